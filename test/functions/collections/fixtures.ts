/**
 * Test data for the collections group: accounts derived from labels, collection bodies, and EIP-712
 * signatures made with viem exactly as a creator's wallet would. The typed data is written out here
 * from the interface description (not imported from the code under test), so a change to what the
 * service expects a creator to sign fails these tests.
 */
import { keccak256, toHex, type Hex } from 'viem';
import { privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { requestJson } from '../../../scripts/lib/dispatch';

/** The default factory: what the anvil dev account deploys first (documented in the decisions). */
export const DEFAULT_FACTORY = '0x5FbDB2315678afecb367f032d93F642f64180aa3';
export const ZERO_ROOT: Hex = `0x${'0'.repeat(64)}`;

export const METADATA_TYPES = {
  CollectionMetadata: [
    { name: 'name', type: 'string' },
    { name: 'symbol', type: 'string' },
    { name: 'baseURI', type: 'string' },
    { name: 'creator', type: 'address' },
    { name: 'gameOwner', type: 'address' },
    { name: 'maxSupply', type: 'uint96' },
    { name: 'mintPrice', type: 'uint256' },
    { name: 'maxPerWallet', type: 'uint256' },
    { name: 'isWhitelistEnabled', type: 'bool' },
    { name: 'whitelistMerkleRoot', type: 'bytes32' },
    { name: 'startTime', type: 'uint256' },
    { name: 'endTime', type: 'uint256' },
  ],
} as const;

export interface Domain {
  name: string;
  version: string;
  chainId: number;
  verifyingContract: Hex;
}

export const defaultDomain = (chainId: number): Domain => ({
  name: 'CollectionFactory',
  version: '1',
  chainId,
  verifyingContract: DEFAULT_FACTORY,
});

/** A deterministic account per label. */
export const accountFor = (label: string): PrivateKeyAccount => privateKeyToAccount(keccak256(toHex(`collections-test:${label}`)));

export interface CollectionInput {
  name: string;
  symbol: string;
  baseURI: string;
  creator: string;
  gameOwner: string;
  maxSupply: string;
  mintPrice: string;
  maxPerWallet: string;
  isWhitelistEnabled: boolean;
  whitelistMerkleRoot: string;
  startTime: string;
  endTime: string;
  chainId: number;
  gameId?: string;
  referrer?: string;
  image?: string;
  description?: string;
  external_url?: string;
  animation_url?: string;
  attributes?: { trait_type: string; value: string }[];
}

export type CollectionBody = CollectionInput & { creatorSignature: string };

export function collectionInput(creator: PrivateKeyAccount, overrides: Partial<CollectionInput> = {}): CollectionInput {
  return {
    name: 'Test Collection',
    symbol: 'TEST',
    baseURI: 'https://example.com/meta/',
    creator: creator.address,
    gameOwner: creator.address,
    maxSupply: '1000',
    mintPrice: '10000000000000000',
    maxPerWallet: '5',
    isWhitelistEnabled: false,
    whitelistMerkleRoot: ZERO_ROOT,
    startTime: '1700000000',
    endTime: '1900000000',
    chainId: 8453,
    ...overrides,
  };
}

export function messageOf(input: CollectionInput) {
  return {
    name: input.name,
    symbol: input.symbol,
    baseURI: input.baseURI,
    creator: input.creator as Hex,
    gameOwner: input.gameOwner as Hex,
    maxSupply: BigInt(input.maxSupply),
    mintPrice: BigInt(input.mintPrice),
    maxPerWallet: BigInt(input.maxPerWallet),
    isWhitelistEnabled: input.isWhitelistEnabled,
    whitelistMerkleRoot: input.whitelistMerkleRoot as Hex,
    startTime: BigInt(input.startTime),
    endTime: BigInt(input.endTime),
  };
}

/** Signs the metadata of `input` with `signer` over `domain` (the default domain of its chain unless given). */
export async function signCollection(
  signer: PrivateKeyAccount,
  input: CollectionInput,
  domain: Domain = defaultDomain(input.chainId),
): Promise<CollectionBody> {
  const creatorSignature = await signer.signTypedData({
    domain,
    types: METADATA_TYPES,
    primaryType: 'CollectionMetadata',
    message: messageOf(input),
  });
  return { ...input, creatorSignature };
}

export async function signedBody(creator: PrivateKeyAccount, overrides: Partial<CollectionInput> = {}): Promise<CollectionBody> {
  return signCollection(creator, collectionInput(creator, overrides));
}

export const postCollection = (body: unknown) => requestJson('collections', 'POST', '/collections', { body });
export const getCollections = (query = '') => requestJson('collections', 'GET', `/collections${query ? `?${query}` : ''}`);

/** The list order of the key design: createdAt (ms) descending, then uuid descending. */
export function newestFirst<T extends { createdAt: string; uuid: string }>(collections: readonly T[]): T[] {
  const key = (collection: T) => `${String(Date.parse(collection.createdAt)).padStart(15, '0')}#${collection.uuid}`;
  return [...collections].sort((a, b) => (key(a) < key(b) ? 1 : key(a) > key(b) ? -1 : 0));
}

/** Asserts the group's error format and returns the message. */
export function expectGroupError(response: { status: number; body: any }, status: number): string {
  if (response.status !== status) throw new Error(`expected HTTP ${status}, got ${response.status}: ${JSON.stringify(response.body)}`);
  const { success, message, statusCode, ...rest } = response.body ?? {};
  if (success !== false || statusCode !== status || typeof message !== 'string' || message.length === 0 || Object.keys(rest).length > 0) {
    throw new Error(`not the collections error format: ${JSON.stringify(response.body)}`);
  }
  return message;
}
