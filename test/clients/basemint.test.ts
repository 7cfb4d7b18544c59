/**
 * The published BaseMint SDK (`@b3dotfun/basemint` 0.3.9, `OffChainStorageManager`) against this
 * service, unchanged: its own metadata (`createMetadata`), its own EIP-712 signature
 * (`generateCreatorSignature`, domain `BaseMintFactory` with the SDK's factory per chain), its own
 * requests. The SDK's base URL is a module constant, so `globalThis.fetch` rewrites that origin to
 * the collections base URL of the service `npm start` runs (test/support/npm-start.ts).
 * The service is configured as production would be for BaseMint's chains: the SDK's domain name and
 * factory addresses (COLLECTION_FACTORY_NAME, COLLECTION_FACTORY_ADDRESSES).
 */
import type { CollectionMetadata, CollectionMetadataInput } from '@b3dotfun/basemint';
import { createPublicClient, createWalletClient, custom, keccak256, toHex, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type NpmStartService, startNpmStart } from '../support/npm-start';

// vitest inlines the package (vitest.config.ts `server.deps.inline`): its ESM build imports directories.
import { createMetadata, FACTORY_ADDRESS, generateCreatorSignature, OffChainStorageManager } from '@b3dotfun/basemint';

/** The SDK's hard-coded API origin (dist/src/utils/offchain.js). */
const SDK_ORIGIN = 'https://api.basemint.fun';

let service: NpmStartService;
const realFetch = globalThis.fetch;
/** Every request the SDK sent, as the service received it. */
const sent: { method: string; url: string; body?: any }[] = [];

beforeAll(async () => {
  service = await startNpmStart({
    env: { COLLECTION_FACTORY_NAME: 'BaseMintFactory', COLLECTION_FACTORY_ADDRESSES: JSON.stringify(FACTORY_ADDRESS) },
  });
  globalThis.fetch = async (input: string | URL | Request, init?: RequestInit) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    if (!url.startsWith(`${SDK_ORIGIN}/`)) throw new Error(`unexpected request outside the SDK's API: ${url}`);
    const local = `${service.urls.collections}${url.slice(SDK_ORIGIN.length)}`;
    sent.push({ method: init?.method ?? 'GET', url: local, body: typeof init?.body === 'string' ? JSON.parse(init.body) : undefined });
    return realFetch(local, init);
  };
}, 180_000);

afterAll(async () => {
  globalThis.fetch = realFetch;
  await service?.stop();
});

const account = (label: string) => privateKeyToAccount(keccak256(toHex(`basemint-client:${label}`)));
const alice = account('alice');
const bob = account('bob');

/** A wallet (local key, no RPC) and a public client that only answers eth_chainId, as the SDK needs. */
function clientsOn(chainId: number, signer = alice) {
  const noRpc = custom({
    request: async ({ method }: { method: string }) => {
      if (method === 'eth_chainId') return toHex(chainId);
      throw new Error(`no RPC in this test: ${method}`);
    },
  });
  return {
    walletClient: createWalletClient({ account: signer, transport: noRpc }),
    publicClient: createPublicClient({ transport: noRpc }),
  };
}

/** What a dapp does: build the metadata, have the creator sign it on the chain of the metadata. */
async function signed(input: CollectionMetadataInput, signer = alice): Promise<{ metadata: CollectionMetadata; signature: Hex }> {
  const metadata = createMetadata(input);
  const { walletClient, publicClient } = clientsOn(metadata.chainId ?? 1993, signer);
  const signature = await generateCreatorSignature(walletClient, publicClient as never, metadata);
  return { metadata, signature };
}

const storage = new OffChainStorageManager();

describe('@b3dotfun/basemint OffChainStorageManager against the collections base URL', () => {
  it('the service, configured with the SDK’s factories, publishes the domain the SDK signs with', async () => {
    for (const [chainId, factory] of Object.entries(FACTORY_ADDRESS)) {
      const response = await realFetch(`${service.urls.collections}/collections/signing-domain?chainId=${chainId}`);
      expect(response.status).toBe(200);
      const body = (await response.json()) as { domain: unknown };
      expect(body.domain).toEqual({ name: 'BaseMintFactory', version: '1', chainId: Number(chainId), verifyingContract: factory });
    }
  });

  it('submitCollection stores the SDK’s metadata and signature; the collection comes back with the uuid sent', async () => {
    const { metadata, signature } = await signed({
      name: 'Sky Islands',
      symbol: 'SKY',
      creator: alice.address,
      gameOwner: bob.address,
      chainId: 8453,
      maxSupply: 500n,
      mintPrice: 1_000_000_000_000_000n,
      maxPerWallet: 3n,
      image: 'https://cdn.example.com/sky/cover.png',
      description: 'Floating islands, one per token',
      external_url: 'https://game.example.com/sky',
      animation_url: 'ipfs://bafybeigdyrzt/sky.glb',
      attributes: [{ trait_type: 'Biome', value: 'Sky' }],
    });
    const result = await storage.submitCollection(metadata, signature, 'partner1', 'sky-game');

    // What the SDK sent: its metadata as is, uuid and tokenStandard included.
    const request = sent.at(-1)!;
    expect(request.method).toBe('POST');
    expect(request.body.uuid).toBe(metadata.uuid);

    expect(result.success).toBe(true);
    const collection = result.collection;
    expect(collection).toMatchObject({
      uuid: metadata.uuid,
      name: 'Sky Islands',
      symbol: 'SKY',
      baseURI: `https://cdn.basemint.fun/${metadata.uuid}.json`,
      creator: alice.address,
      gameOwner: bob.address,
      maxSupply: '500',
      mintPrice: '1000000000000000',
      maxPerWallet: '3',
      isWhitelistEnabled: false,
      whitelistMerkleRoot: metadata.whitelistMerkleRoot,
      startTime: '0',
      endTime: metadata.endTime.toString(),
      tokenStandard: 'ERC721',
      chainId: 8453,
      image: metadata.image,
      description: metadata.description,
      external_url: metadata.external_url,
      animation_url: metadata.animation_url,
      attributes: metadata.attributes,
      creatorSignature: signature.toLowerCase(),
      referrer: 'partner1',
      gameId: 'sky-game',
    });
    expect(collection.predictedAddress).toMatch(/^0x[0-9a-fA-F]{40}$/);
    expect(Number.isNaN(Date.parse(collection.createdAt))).toBe(false);

    // getCollection reads the same collection back.
    const fetched = await storage.getCollection(collection.predictedAddress);
    expect(fetched.success).toBe(true);
    expect(fetched.collection).toEqual(collection);

    // queryCollections finds it by each filter the SDK offers.
    for (const filter of [
      { creator: alice.address },
      { gameOwner: bob.address.toLowerCase() },
      { symbol: 'SKY' },
      { referrer: 'partner1' },
      { chainId: 8453 },
      { gameId: 'sky-game' },
      { creator: alice.address, chainId: 8453, symbol: 'SKY' },
    ]) {
      const page = await storage.queryCollections(filter);
      expect(page.success).toBe(true);
      expect(page.collections.map((c) => c.uuid)).toContain(metadata.uuid);
    }
    const none = await storage.queryCollections({ gameId: 'sky-game', chainId: 1993 });
    expect(none).toEqual({ success: true, total: 0, page: 1, limit: 10, collections: [] });
  });

  it('a second submit of the same collection is refused (409): the SDK throws with the service’s message', async () => {
    const { metadata, signature } = await signed({ name: 'Twice', symbol: 'TWICE', creator: alice.address, gameOwner: alice.address });
    const first = await storage.submitCollection(metadata, signature);
    await expect(storage.submitCollection(metadata, signature, 'other', 'other-game')).rejects.toThrow(
      `Failed to submit collection: A collection with predictedAddress ${first.collection.predictedAddress} already exists`,
    );
    // The stored collection is unchanged.
    expect((await storage.getCollection(first.collection.predictedAddress)).collection).toEqual(first.collection);
  });

  it('works with createMetadata’s defaults (chain 1993, ERC721) and with ERC1155 on B3 mainnet (8333)', async () => {
    const defaults = await signed({ name: 'Defaults', symbol: 'DEF', creator: bob.address, gameOwner: bob.address }, bob);
    const stored = (await storage.submitCollection(defaults.metadata, defaults.signature)).collection;
    expect(stored).toMatchObject({ uuid: defaults.metadata.uuid, chainId: 1993, tokenStandard: 'ERC721', maxSupply: '10000' });
    expect(stored).not.toHaveProperty('referrer');
    expect(stored.attributes).toEqual([]);

    const multi = await signed(
      { name: 'Editions', symbol: 'ED', creator: bob.address, gameOwner: alice.address, chainId: 8333, tokenStandard: 'ERC1155' },
      bob,
    );
    const edition = (await storage.submitCollection(multi.metadata, multi.signature, undefined, 'editions')).collection;
    expect(edition).toMatchObject({ uuid: multi.metadata.uuid, chainId: 8333, tokenStandard: 'ERC1155', gameId: 'editions' });
    expect((await storage.getCollection(edition.predictedAddress)).collection.tokenStandard).toBe('ERC1155');
  });

  it('queryCollections pages newest first with total, page and limit', async () => {
    const creator = account('pager');
    const uuids: string[] = [];
    for (const name of ['Page one', 'Page two', 'Page three']) {
      const { metadata, signature } = await signed({ name, symbol: 'PAGE', creator: creator.address, gameOwner: creator.address }, creator);
      await storage.submitCollection(metadata, signature, undefined, 'pager-game');
      uuids.push(metadata.uuid);
      // Distinct creation milliseconds, so that newest first is creation order (ties go by uuid).
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    const first = await storage.queryCollections({ creator: creator.address, page: 1, limit: 2 });
    const second = await storage.queryCollections({ creator: creator.address, page: 2, limit: 2 });
    expect(sent.at(-1)!.url).toMatch(/\/collections\?creator=0x[0-9a-fA-F]{40}&page=2&limit=2$/);
    expect({ total: first.total, page: first.page, limit: first.limit }).toEqual({ total: 3, page: 1, limit: 2 });
    expect({ total: second.total, page: second.page, limit: second.limit }).toEqual({ total: 3, page: 2, limit: 2 });
    const listed = [...first.collections, ...second.collections].map((c) => c.uuid);
    expect(listed).toEqual([...uuids].reverse());
    const combined = await storage.queryCollections({ gameId: 'pager-game', symbol: 'PAGE', page: 2, limit: 1 });
    expect(combined.total).toBe(3);
    expect(combined.collections.map((c) => c.uuid)).toEqual([uuids[1]]);
  });

  it('getCollection of an address with no collection throws the SDK’s "Collection not found"', async () => {
    await expect(storage.getCollection('0x00000000000000000000000000000000000000aa')).rejects.toThrow('Collection not found');
  });

  it('a signature by someone other than the creator is refused, and the SDK throws the reason', async () => {
    const { metadata, signature } = await signed({ name: 'Forged', symbol: 'FAKE', creator: alice.address, gameOwner: alice.address }, bob);
    await expect(storage.submitCollection(metadata, signature)).rejects.toThrow(
      /Failed to submit collection: creatorSignature: was not made by creator/,
    );
  });
});
