/**
 * Settings of the collections group, from the environment: each handler module calls
 * `loadCollectionsConfig()` once at cold start (a bad value fails there) and passes the result on:
 * - COLLECTION_FACTORY_ADDRESSES: JSON object `{"<chainId>": "0x<factory>"}`; the factory is the
 *   EIP-712 `verifyingContract` and the CREATE2 deployer of a chain's collections;
 * - COLLECTION_FACTORY_NAME: the EIP-712 domain name (default `CollectionFactory`);
 * - COLLECTION_INIT_CODE_HASH: keccak256 of the ERC721 collection contract's init code (CREATE2 `bytecodeHash`);
 * - COLLECTION_INIT_CODE_HASH_ERC1155: the same for ERC1155 collections (the factory clones another
 *   implementation for them, so the same signed metadata has another address);
 * - COLLECTION_COMBINATION_SCAN_LIMIT: the most list entries a combination of filters may read.
 */
import * as v from 'valibot';
import { getAddress, type Address, type Hex } from 'viem';
import { readEnv } from '../config';

/**
 * Factory of every chain that COLLECTION_FACTORY_ADDRESSES does not name: the address of the first
 * contract the well-known anvil dev account (0xf39F...2266) deploys at nonce 0, i.e. where a fresh
 * local demo chain has its factory. Production chains must be configured.
 */
export const DEFAULT_FACTORY_ADDRESS: Address = '0x5FbDB2315678afecb367f032d93F642f64180aa3';
export const DEFAULT_FACTORY_NAME = 'CollectionFactory';
/**
 * keccak256 of the UTF-8 text `BaseMintCollection`: a documented placeholder until a real init code is
 * configured. Written out, not hashed at module load (cold start); test/shared/collections/config.test.ts checks it.
 */
export const DEFAULT_INIT_CODE_HASH: Hex = '0xf6cc2c625dab88b93ead50ec8a1c03eb492e21e56669b07b970798ed8a99c1ab';
/** keccak256 of the UTF-8 text `BaseMintCollection1155`: the ERC1155 placeholder. */
export const DEFAULT_INIT_CODE_HASH_ERC1155: Hex = '0xf1813e200e348528a0f279ec7b03dfc8a31234903548e680754c7f801446d26a';
export const DEFAULT_COMBINATION_SCAN_LIMIT = 5000;

export interface CollectionsConfig {
  factoryName: string;
  /** Factory per chain id. */
  factories: ReadonlyMap<number, Address>;
  /** CREATE2 init-code hash per token standard. */
  initCodeHashes: Readonly<Record<'ERC721' | 'ERC1155', Hex>>;
  combinationScanLimit: number;
}

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const initCodeHashSchema = v.pipe(v.string(), v.regex(/^0x[0-9a-fA-F]{64}$/, 'must be 32 bytes of hex'));

const factoriesSchema = v.pipe(
  v.string(),
  v.rawTransform(({ dataset, addIssue, NEVER }) => {
    try {
      return JSON.parse(dataset.value) as unknown;
    } catch {
      addIssue({ message: 'must be a JSON object' });
      return NEVER;
    }
  }),
  v.record(
    v.pipe(v.string(), v.regex(/^[1-9][0-9]{0,15}$/, 'keys must be chain ids')),
    v.pipe(v.string(), v.regex(ADDRESS, 'values must be addresses (0x followed by 40 hex digits)')),
  ),
);

const collectionsSchema = v.object({
  COLLECTION_FACTORY_ADDRESSES: v.optional(factoriesSchema, '{}'),
  COLLECTION_FACTORY_NAME: v.optional(v.pipe(v.string(), v.minLength(1), v.maxLength(100)), DEFAULT_FACTORY_NAME),
  COLLECTION_INIT_CODE_HASH: v.optional(initCodeHashSchema, DEFAULT_INIT_CODE_HASH),
  COLLECTION_INIT_CODE_HASH_ERC1155: v.optional(initCodeHashSchema, DEFAULT_INIT_CODE_HASH_ERC1155),
  COLLECTION_COMBINATION_SCAN_LIMIT: v.optional(
    v.pipe(v.string(), v.regex(/^[1-9][0-9]*$/, 'must be a positive integer'), v.transform(Number), v.safeInteger()),
    String(DEFAULT_COMBINATION_SCAN_LIMIT),
  ),
});

export function loadCollectionsConfig(env: Record<string, string | undefined> = process.env): CollectionsConfig {
  const raw = readEnv(collectionsSchema, env);
  const factories = new Map<number, Address>();
  for (const [chainId, factory] of Object.entries(raw.COLLECTION_FACTORY_ADDRESSES)) {
    factories.set(Number(chainId), getAddress(factory.toLowerCase()));
  }
  return {
    factoryName: raw.COLLECTION_FACTORY_NAME,
    factories,
    initCodeHashes: {
      ERC721: raw.COLLECTION_INIT_CODE_HASH.toLowerCase() as Hex,
      ERC1155: raw.COLLECTION_INIT_CODE_HASH_ERC1155.toLowerCase() as Hex,
    },
    combinationScanLimit: raw.COLLECTION_COMBINATION_SCAN_LIMIT,
  };
}

/** The factory (verifying contract and CREATE2 deployer) of a chain. */
export function factoryAddress(config: CollectionsConfig, chainId: number): Address {
  return config.factories.get(chainId) ?? DEFAULT_FACTORY_ADDRESS;
}
