import { concat, getAddress, getContractAddress, hashTypedData, keccak256, stringToHex, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { describe, expect, it } from 'vitest';
import { METADATA_TYPES } from '../../functions/collections/fixtures';
import { DEFAULT_FACTORY_ADDRESS, DEFAULT_INIT_CODE_HASH, loadCollectionsConfig } from '../../../shared/collections/config';
import {
  collectionMessage,
  collectionSalt,
  collectionTypedData,
  predictCollectionAddress,
  predictedAddressOf,
  recoverCollectionSigner,
  type SignedCollectionMetadata,
} from '../../../shared/collections/signing';

const ANVIL_DEV_KEY = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';
const creator = privateKeyToAccount(ANVIL_DEV_KEY);
const config = loadCollectionsConfig({});

const metadata: SignedCollectionMetadata = {
  name: 'Unit',
  symbol: 'UNIT',
  baseURI: 'ipfs://bafy/',
  creator: creator.address,
  gameOwner: creator.address,
  maxSupply: '79228162514264337593543950335', // 2^96 - 1
  mintPrice: '0',
  maxPerWallet: '1',
  isWhitelistEnabled: true,
  whitelistMerkleRoot: `0x${'ab'.repeat(32)}`,
  startTime: '0',
  endTime: '115792089237316195423570985008687907853269984665640564039457584007913129639935', // 2^256 - 1
};

/** The typed data written out from the interface description. */
const domain = { name: 'CollectionFactory', version: '1', chainId: 8453, verifyingContract: DEFAULT_FACTORY_ADDRESS } as const;
const types = METADATA_TYPES;

describe('salt and predicted address', () => {
  it('the salt is the EIP-712 hash of the signed metadata under the chain’s domain', () => {
    const expected = hashTypedData({ domain, types, primaryType: 'CollectionMetadata', message: collectionMessage(metadata) });
    expect(collectionSalt(metadata, 8453, config)).toBe(expected);
    expect(collectionSalt(metadata, 1, config)).not.toBe(expected);
    expect(collectionSalt({ ...metadata, maxPerWallet: '2' }, 8453, config)).not.toBe(expected);
  });

  it('does not depend on the case of the addresses', () => {
    const lower = { ...metadata, creator: metadata.creator.toLowerCase(), gameOwner: metadata.gameOwner.toLowerCase() };
    expect(collectionSalt(lower, 8453, config)).toBe(collectionSalt(metadata, 8453, config));
  });

  it('the predicted address is keccak256(0xff ++ factory ++ salt ++ initCodeHash)[12:]', () => {
    const factory = '0x1111111111111111111111111111111111111111';
    const salt = `0x${'22'.repeat(32)}` as Hex;
    const initCodeHash = `0x${'33'.repeat(32)}` as Hex;
    const hash = keccak256(concat(['0xff', factory, salt, initCodeHash]));
    expect(predictCollectionAddress(factory, salt, initCodeHash)).toBe(getAddress(`0x${hash.slice(26)}`));
  });

  it('a collection’s address: CREATE2 from the default factory with its salt and the default init-code hash', () => {
    const salt = collectionSalt(metadata, 8453, config);
    const hash = keccak256(concat(['0xff', DEFAULT_FACTORY_ADDRESS, salt, keccak256(stringToHex('BaseMintCollection'))]));
    expect(predictedAddressOf(metadata, 8453, config)).toBe(getAddress(`0x${hash.slice(26)}`));
  });

  it('an ERC1155 collection: the same salt with the ERC1155 init-code hash, so another address', () => {
    const salt = collectionSalt(metadata, 8453, config);
    const erc1155 = keccak256(stringToHex('BaseMintCollection1155'));
    expect(predictedAddressOf(metadata, 8453, config, 'ERC1155')).toBe(
      getContractAddress({ opcode: 'CREATE2', from: DEFAULT_FACTORY_ADDRESS, salt, bytecodeHash: erc1155 }),
    );
    expect(predictedAddressOf(metadata, 8453, config, 'ERC1155')).not.toBe(predictedAddressOf(metadata, 8453, config, 'ERC721'));
    expect(predictedAddressOf(metadata, 8453, config, 'ERC721')).toBe(predictedAddressOf(metadata, 8453, config));
  });

  it('follows a configured factory and init-code hash', () => {
    const factory = '0x000000000000000000000000000000000000beef';
    const initCodeHash = `0x${'44'.repeat(32)}`;
    const custom = loadCollectionsConfig({
      COLLECTION_FACTORY_ADDRESSES: JSON.stringify({ 8453: factory }),
      COLLECTION_INIT_CODE_HASH: initCodeHash,
    });
    const salt = collectionSalt(metadata, 8453, custom);
    expect(predictedAddressOf(metadata, 8453, custom)).toBe(
      getContractAddress({ opcode: 'CREATE2', from: factory, salt, bytecodeHash: initCodeHash as Hex }),
    );
    expect(predictedAddressOf(metadata, 8453, custom)).not.toBe(predictedAddressOf(metadata, 8453, config));
  });

  it('the defaults are the documented ones', () => {
    // The first contract the anvil dev account deploys (nonce 0).
    expect(DEFAULT_FACTORY_ADDRESS).toBe(getContractAddress({ from: creator.address, nonce: 0n }));
    expect(DEFAULT_INIT_CODE_HASH).toBe(keccak256(stringToHex('BaseMintCollection')));
    expect(collectionTypedData(8453, config).domain).toEqual(domain);
  });
});

describe('signer recovery', () => {
  it('recovers the signer of the typed data', async () => {
    const signature = await creator.signTypedData({
      domain,
      types,
      primaryType: 'CollectionMetadata',
      message: collectionMessage(metadata),
    });
    expect(await recoverCollectionSigner(metadata, 8453, signature, config)).toBe(creator.address);
    expect(await recoverCollectionSigner(metadata, 1, signature, config)).not.toBe(creator.address);
  });

  it('answers undefined for a signature no key can have made', async () => {
    expect(await recoverCollectionSigner(metadata, 8453, `0x${'00'.repeat(64)}1b`, config)).toBeUndefined();
    expect(await recoverCollectionSigner(metadata, 8453, `0x${'ff'.repeat(65)}`, config)).toBeUndefined();
  });
});
