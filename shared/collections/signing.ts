/**
 * What a creator signs and what the service derives from it (viem underneath):
 * - the EIP-712 typed data `CollectionMetadata` under the domain {name, version "1", chainId, factory};
 * - the CREATE2 salt: the EIP-712 hash of the signed metadata (so every signed field, and the chain,
 *   shapes the address; the unsigned display fields do not);
 * - the predicted address: CREATE2 from the chain's factory with that salt and the init-code hash of
 *   the collection's token standard (as the factory's `predictCollectionAddress(metadata, sig, isERC1155)`).
 */
import { getAddress, getContractAddress, hashTypedData, recoverTypedDataAddress, type Address, type Hex } from 'viem';
import { factoryAddress, type CollectionsConfig } from './config';

export const COLLECTION_PRIMARY_TYPE = 'CollectionMetadata';

/** The fields a creator signs, in signing order. */
export const COLLECTION_METADATA_TYPES = {
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

/** The signed metadata as JSON carries it: integers as decimal strings. */
export interface SignedCollectionMetadata {
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
}

export interface CollectionSigningDomain {
  name: string;
  version: '1';
  chainId: number;
  verifyingContract: Address;
}

export function collectionSigningDomain(chainId: number, config: CollectionsConfig): CollectionSigningDomain {
  return { name: config.factoryName, version: '1', chainId, verifyingContract: factoryAddress(config, chainId) };
}

/** Everything a wallet needs besides the message: spread it into viem's `signTypedData`. */
export function collectionTypedData(chainId: number, config: CollectionsConfig) {
  return {
    domain: collectionSigningDomain(chainId, config),
    types: COLLECTION_METADATA_TYPES,
    primaryType: COLLECTION_PRIMARY_TYPE,
  } as const;
}

/** The typed-data message: integers as bigint, addresses checksummed (EIP-712 ignores their case). */
export function collectionMessage(metadata: SignedCollectionMetadata) {
  return {
    name: metadata.name,
    symbol: metadata.symbol,
    baseURI: metadata.baseURI,
    creator: toAddress(metadata.creator),
    gameOwner: toAddress(metadata.gameOwner),
    maxSupply: BigInt(metadata.maxSupply),
    mintPrice: BigInt(metadata.mintPrice),
    maxPerWallet: BigInt(metadata.maxPerWallet),
    isWhitelistEnabled: metadata.isWhitelistEnabled,
    whitelistMerkleRoot: metadata.whitelistMerkleRoot.toLowerCase() as Hex,
    startTime: BigInt(metadata.startTime),
    endTime: BigInt(metadata.endTime),
  };
}

/** The CREATE2 salt of a collection: the EIP-712 hash of its signed metadata on its chain. */
export function collectionSalt(metadata: SignedCollectionMetadata, chainId: number, config: CollectionsConfig): Hex {
  return hashTypedData({ ...collectionTypedData(chainId, config), message: collectionMessage(metadata) });
}

/** CREATE2 address: keccak256(0xff ++ factory ++ salt ++ initCodeHash)[12:]. */
export function predictCollectionAddress(factory: Address, salt: Hex, initCodeHash: Hex): Address {
  return getContractAddress({ opcode: 'CREATE2', from: factory, salt, bytecodeHash: initCodeHash });
}

/** The predicted address of a collection on its chain, from the configured factory and its standard's init code. */
export function predictedAddressOf(
  metadata: SignedCollectionMetadata,
  chainId: number,
  config: CollectionsConfig,
  tokenStandard: 'ERC721' | 'ERC1155' = 'ERC721',
): Address {
  const salt = collectionSalt(metadata, chainId, config);
  return predictCollectionAddress(factoryAddress(config, chainId), salt, config.initCodeHashes[tokenStandard]);
}

/** The address that signed the metadata for this chain, or undefined when the signature is not a valid signature at all. */
export async function recoverCollectionSigner(
  metadata: SignedCollectionMetadata,
  chainId: number,
  signature: Hex,
  config: CollectionsConfig,
): Promise<Address | undefined> {
  try {
    return await recoverTypedDataAddress({ ...collectionTypedData(chainId, config), message: collectionMessage(metadata), signature });
  } catch {
    return undefined;
  }
}

/** Any-case hex address -> EIP-55 checksummed address. */
export function toAddress(address: string): Address {
  return getAddress(address.toLowerCase());
}
