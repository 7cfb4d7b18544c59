/** Serialisers on hand-made records: the conversions a Blockscout client relies on. */
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import type { AddressRecord, InternalTransactionRecord, NftCollectionRecord } from '../../../shared/table/records';
import { internalTransactionItem as internalTransactionSchema } from '../../../shared/explorer/schemas';
import {
  addressObject,
  collectionAmount,
  confirmations,
  emptyDetails,
  instanceMedia,
  internalTransactionItem,
  isoTimestamp,
  tokenObject,
  transactionResult,
} from '../../../shared/explorer/serialise';

const TOKEN = '0x5fbdb2315678afecb367f032d93f642f64180aa3';
const EOA = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266';

const tokenRecord: AddressRecord = {
  kind: 'address',
  chainId: 1,
  address: TOKEN,
  isContract: true,
  creator: EOA,
  creationTransactionHash: null,
  creationBlockNumber: 1,
  firstSeenBlock: 1,
  updatedAtBlock: 5,
  tokenType: 'ERC-20',
  tokenName: 'Demo Token',
  tokenSymbol: 'DEMO',
  tokenDecimals: 18,
  tokenTotalSupply: '1000',
  holders: 3,
};

describe('isoTimestamp', () => {
  it('gives ISO 8601 UTC with microseconds and a trailing Z', () => {
    expect(isoTimestamp(1704067200)).toBe('2024-01-01T00:00:00.000000Z');
    expect(isoTimestamp(0)).toBe('1970-01-01T00:00:00.000000Z');
    expect(isoTimestamp(1700000000)).toBe('2023-11-14T22:13:20.000000Z');
  });
});

describe('address and token objects', () => {
  it('checksums the hash and tells contracts from accounts by the address item', () => {
    const details = emptyDetails();
    details.addresses.set(TOKEN, tokenRecord);
    expect(addressObject(TOKEN, details)).toEqual({
      hash: '0x5FbDB2315678afecb367f032d93F642f64180aa3',
      implementation_name: null,
      name: 'Demo Token',
      is_contract: true,
      private_tags: [],
      watchlist_names: [],
      public_tags: [],
      is_verified: false,
      ens_domain_name: null,
      metadata: null,
      // Blockscout v2's frontend reads it; no proxy is detected (docs/decisions/explorer.md).
      implementations: [],
    });
    expect(addressObject(EOA, details)).toMatchObject({
      hash: '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266',
      is_contract: false,
      name: null,
    });
  });

  it('fills the token object from the address item, and from the transfer standard when it is missing', () => {
    const details = emptyDetails();
    details.addresses.set(TOKEN, tokenRecord);
    expect(tokenObject(TOKEN, 'ERC-20', details)).toEqual({
      circulating_market_cap: null,
      icon_url: null,
      name: 'Demo Token',
      decimals: '18',
      symbol: 'DEMO',
      address: '0x5FbDB2315678afecb367f032d93F642f64180aa3',
      type: 'ERC-20',
      holders: '3',
      exchange_rate: null,
      total_supply: '1000',
      // Blockscout v2's names beside the spec's (the current frontend reads these).
      address_hash: '0x5FbDB2315678afecb367f032d93F642f64180aa3',
      holders_count: '3',
    });
    expect(tokenObject(EOA, 'ERC-721', details)).toMatchObject({
      name: null,
      decimals: null,
      symbol: null,
      type: 'ERC-721',
      holders: '0',
      total_supply: null,
    });
  });
});

describe('NFT instances', () => {
  it('lifts image, animation and external URLs out of resolved metadata, ipfs:// and ar:// through the gateways as Blockscout does', () => {
    expect(instanceMedia(JSON.stringify({ name: 'x', image: 'ipfs://a', animation_url: 'https://b', external_url: 'https://c' }))).toEqual({
      image_url: 'https://ipfs.io/ipfs/a',
      animation_url: 'https://b',
      external_app_url: 'https://c',
      metadata: { name: 'x', image: 'ipfs://a', animation_url: 'https://b', external_url: 'https://c' },
      thumbnails: null,
    });
    expect(instanceMedia(JSON.stringify({ image_url: 'https://d', image: 'ipfs://a' })).image_url).toBe('https://d');
    const gateways = { ipfs: 'https://gw.example/ipfs/', arweave: 'https://ar.example/' };
    expect(instanceMedia({ image: 'ipfs://ipfs/bafy/1.png', animation_url: 'ar://tx/1.mp4' }, gateways)).toMatchObject({
      image_url: 'https://gw.example/ipfs/bafy/1.png',
      animation_url: 'https://ar.example/tx/1.mp4',
      metadata: { image: 'ipfs://ipfs/bafy/1.png', animation_url: 'ar://tx/1.mp4' },
    });
    for (const text of [null, 'not json', '[1,2]', '"text"']) {
      expect(instanceMedia(text)).toEqual({
        image_url: null,
        animation_url: null,
        external_app_url: null,
        metadata: null,
        thumbnails: null,
      });
    }
  });

  it('counts an ERC-721 collection by tokens held and an ERC-1155 one by distinct ids', () => {
    const base: NftCollectionRecord = {
      kind: 'nftCollection',
      chainId: 1,
      holder: EOA,
      contract: TOKEN,
      tokenStandard: 'ERC-721',
      amount: '12',
      instances: [],
      updatedAtBlock: 1,
    };
    const embedded = (tokenId: string) => ({
      tokenId,
      value: '5',
      tokenUri: null,
      metadataStatus: 'none' as const,
      metadataJson: null,
      omitted: false,
    });
    expect(collectionAmount(base)).toBe('12');
    expect(collectionAmount({ ...base, tokenStandard: 'ERC-1155', amount: '15', instances: [embedded('2'), embedded('1')] })).toBe('2');
    expect(
      collectionAmount({
        ...base,
        tokenStandard: 'ERC-1155',
        amount: '150',
        instances: [embedded('2')],
        distinctTokenIds: 30,
      } as NftCollectionRecord),
    ).toBe('30');
  });
});

describe('transactions', () => {
  it('reads success, a revert with data and a failure without', () => {
    expect(transactionResult({ status: 1, revertReason: null })).toBe('success');
    expect(transactionResult({ status: 0, revertReason: 'demo: always reverts' })).toBe('execution reverted');
    expect(transactionResult({ status: 0, revertReason: null })).toBe('error');
  });

  it('counts confirmations from the indexed head, the head block itself being 1', () => {
    expect(confirmations(100, 100)).toBe(1);
    expect(confirmations(90, 100)).toBe(11);
    expect(confirmations(101, 100)).toBe(1);
    expect(confirmations(5, null)).toBe(1);
  });
});

describe('internal transactions', () => {
  it('shows the call type of a call, and a creation with its created contract and no to', () => {
    const base: InternalTransactionRecord = {
      kind: 'internalTransaction',
      chainId: 1,
      blockNumber: 7,
      blockHash: `0x${'1'.repeat(64)}`,
      blockTimestamp: 1704067200,
      transactionHash: `0x${'2'.repeat(64)}`,
      transactionIndex: 0,
      index: 1,
      type: 'call',
      callType: 'delegatecall',
      from: EOA,
      to: TOKEN,
      createdContract: null,
      value: '0',
      gasLimit: '5000',
      gasUsed: '100',
      success: true,
      error: null,
      traceAddress: [0],
    };
    const call = internalTransactionItem(base, emptyDetails());
    expect(call).toMatchObject({
      type: 'delegatecall',
      gas_limit: '5000',
      timestamp: '2024-01-01T00:00:00.000000Z',
      created_contract: null,
    });
    expect(() => v.parse(internalTransactionSchema, call)).not.toThrow();
    const creation = internalTransactionItem(
      { ...base, type: 'create2', callType: null, to: null, createdContract: TOKEN },
      emptyDetails(),
    );
    expect(creation).toMatchObject({ type: 'create2', to: null, created_contract: { hash: '0x5FbDB2315678afecb367f032d93F642f64180aa3' } });
  });
});
