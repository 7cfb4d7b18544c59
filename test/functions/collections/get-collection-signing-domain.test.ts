/**
 * The signing domain a wallet is given must be exactly what creation verifies: sign the endpoint's
 * output with viem, post it, and the collection is created. A configured factory is used for its chain.
 */
import { getAddress, getContractAddress, hashTypedData, keccak256, stringToHex } from 'viem';
import * as v from 'valibot';
import { afterAll, describe, expect, it } from 'vitest';
import { tableSnapshot, useTestTable } from '../../support/table';
import { accountFor, collectionInput, DEFAULT_FACTORY, expectGroupError, messageOf, METADATA_TYPES, postCollection } from './fixtures';

/** The documented default init-code hash: keccak256 of the text BaseMintCollection. */
const DEFAULT_INIT_CODE_HASH = keccak256(stringToHex('BaseMintCollection'));
const CONFIGURED_FACTORY = '0x00000000000000000000000000000000000c0ffe';
// Read when the handlers load (first request), as at a Lambda cold start.
process.env.COLLECTION_FACTORY_ADDRESSES = JSON.stringify({ 31337: CONFIGURED_FACTORY });
process.env.COLLECTION_FACTORY_NAME = 'TestFactory';
afterAll(() => {
  delete process.env.COLLECTION_FACTORY_ADDRESSES;
  delete process.env.COLLECTION_FACTORY_NAME;
});

const table = useTestTable('collections-domain');
const { signingDomainResponse } = await import('../../../shared/collections/schemas');
const { requestJson } = await import('../../../scripts/lib/dispatch');

const getDomain = (query: string) => requestJson('collections', 'GET', `/collections/signing-domain?${query}`);

describe('GET /collections/signing-domain', () => {
  it('gives the domain, types and primary type of a chain', async () => {
    const response = await getDomain('chainId=8453');
    expect(response.status).toBe(200);
    expect(v.safeParse(signingDomainResponse, response.body).success).toBe(true);
    expect(response.body).toEqual({
      domain: { name: 'TestFactory', version: '1', chainId: 8453, verifyingContract: DEFAULT_FACTORY },
      types: { CollectionMetadata: METADATA_TYPES.CollectionMetadata.map((field) => ({ ...field })) },
      primaryType: 'CollectionMetadata',
    });
  });

  it('names the configured factory of a configured chain', async () => {
    const response = await getDomain('chainId=31337');
    expect(response.body.domain).toEqual({
      name: 'TestFactory',
      version: '1',
      chainId: 31337,
      verifyingContract: getAddress(CONFIGURED_FACTORY),
    });
  });

  it.each([8453, 31337])('is what creation verifies: its output signed with viem creates a collection (chain %i)', async (chainId) => {
    const creator = accountFor(`domain-${chainId}`);
    const typedData = (await getDomain(`chainId=${chainId}`)).body;
    const input = collectionInput(creator, { name: 'Signed from the endpoint', chainId });
    const creatorSignature = await creator.signTypedData({ ...typedData, message: messageOf(input) });
    const response = await postCollection({ ...input, creatorSignature });
    expect(response.status).toBe(201);
    // CREATE2 from the domain's factory, salted with the typed-data hash.
    const salt = hashTypedData({ ...typedData, message: messageOf(input) });
    expect(response.body.data.predictedAddress).toBe(
      getContractAddress({ opcode: 'CREATE2', from: typedData.domain.verifyingContract, salt, bytecodeHash: DEFAULT_INIT_CODE_HASH }),
    );
  });

  it('is not valid for the default factory name: a signature over the unconfigured domain fails', async () => {
    const creator = accountFor('domain-default-name');
    const input = collectionInput(creator, { name: 'Wrong name' });
    const creatorSignature = await creator.signTypedData({
      domain: { name: 'CollectionFactory', version: '1', chainId: 8453, verifyingContract: DEFAULT_FACTORY },
      types: METADATA_TYPES,
      primaryType: 'CollectionMetadata',
      message: messageOf(input),
    });
    expect(expectGroupError(await postCollection({ ...input, creatorSignature }), 400)).toMatch(/creatorSignature/);
  });

  it.each([
    ['', /chainId/],
    ['chainId=', /chainId/],
    ['chainId=0', /chainId: must be a positive integer/],
    ['chainId=-5', /chainId/],
    ['chainId=base', /chainId/],
    ['chainId=1.5', /chainId/],
    ['chainId=1&chainId=2', /chainId/],
    ['chainId=1&extra=1', /Unexpected field: extra/],
  ])('answers 400 to %j', async (query, messagePart) => {
    const before = await tableSnapshot(table.name);
    expect(expectGroupError(await getDomain(query), 400)).toMatch(messagePart);
    expect(await tableSnapshot(table.name)).toEqual(before);
  });
});
