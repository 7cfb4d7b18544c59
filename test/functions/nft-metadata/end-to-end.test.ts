/**
 * NFT metadata from the web, end to end with real parts: NFTs minted on anvil whose token URIs point at
 * a metadata server on 127.0.0.1 (http://127.0.0.1:<port>/token/<id>), and an ERC-1155 whose URI is
 * `ipfs://…/{id}.json` read through a local IPFS "gateway" (the same server); the real ingest with the
 * fetcher's listener, the in-process fetcher `npm start` runs (scripts/lib/nft-metadata-worker.ts:
 * the Lambda's code), then the explorer and insights handlers through the route table serve the
 * metadata; a token whose server keeps failing ends `failed` with its reason; the refresh routes queue
 * a fetch again (one token, a whole contract); a new base URI (a reveal) is fetched once the token moves.
 */
import { createPublicClient, createWalletClient, defineChain, http as httpTransport, type Abi, type Address, type Hash } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ANVIL_PRIVATE_KEYS, startAnvil, type Anvil } from '../../../scripts/lib/anvil';
import { type DemoArtifacts, loadContracts } from '../../../scripts/lib/contracts';
import { requestJson } from '../../../scripts/lib/dispatch';
import { type LocalMetadataWorker, startLocalMetadataWorker } from '../../../scripts/lib/nft-metadata-worker';
import { createChainClient } from '../../../shared/chain/client';
import { getItem } from '../../../shared/db/operations';
import { ingestRange } from '../../../shared/ingest/ingest';
import { loadLocalFetcherSettings } from '../../../shared/nft-metadata/config';
import { nftMetadataListener } from '../../../shared/nft-metadata/listener';
import { MESSAGE_VERSION, type MetadataRequest, useLocalMetadataQueue } from '../../../shared/nft-metadata/queue';
import { nftKeys } from '../../../shared/table/keys';
import type { NftInstanceRecord } from '../../../shared/table/records';
import { json, type MetadataServer, startMetadataServer, status } from '../../support/metadata-server';
import { useTestTable } from '../../support/table';

useTestTable('nft-metadata-e2e');

const CHAIN_ID = 31337;
const accounts = ANVIL_PRIVATE_KEYS.map((key) => privateKeyToAccount(key));
const alice = accounts[1]!.address.toLowerCase() as Address;
const bob = accounts[2]!.address.toLowerCase() as Address;
const MULTI_HEX = `${'0'.repeat(63)}5`;

let anvil: Anvil;
let artifacts: DemoArtifacts;
let server: MetadataServer;
let worker: LocalMetadataWorker;
let wallet: ReturnType<typeof createWalletClient>;
let nft: Address;
let multi: Address;
let version = 1;

const tokenDocument = (id: number) => ({
  name: `Uri NFT #${id} v${version}`,
  description: `Token ${id}, served by a local metadata server`,
  image: `ipfs://bafyimages/${id}.png`,
  animation_url: `https://cdn.example/${id}.mp4`,
  external_url: `https://example.com/token/${id}`,
  attributes: [{ trait_type: 'Serial', value: id }],
});

const publicClient = (rpcUrl: string) => createPublicClient({ transport: httpTransport(rpcUrl) });

async function mined(hash: Promise<Hash>): Promise<Address | null> {
  const receipt = await publicClient(anvil.rpcUrl).waitForTransactionReceipt({ hash: await hash, pollingInterval: 20 });
  if (receipt.status !== 'success') throw new Error(`transaction ${receipt.transactionHash} failed`);
  return (receipt.contractAddress?.toLowerCase() as Address | undefined) ?? null;
}

const send = (address: Address, abi: Abi, functionName: string, args: unknown[], from = 0) =>
  mined(wallet.writeContract({ address, abi, functionName, args, account: accounts[from]!, chain: wallet.chain }));

/** The fetches the ingest's listener queued (not the worker's own retries). */
const queued: MetadataRequest[] = [];

/** Ingests every block not yet ingested, then waits for the fetcher to have nothing left to do. */
async function ingestAndFetch(): Promise<void> {
  const head = Number(await publicClient(anvil.rpcUrl).getBlockNumber({ cacheTime: 0 }));
  const listener = nftMetadataListener({
    send: async (requests) => {
      queued.push(...requests);
      await worker.send(requests);
    },
  });
  await ingestRange({ chainId: CHAIN_ID, client: createChainClient(anvil.rpcUrl), to: head, listeners: [listener] });
  await worker.idle();
}

const get = (url: string) => requestJson('base', 'GET', url);
/** What the fetcher stored for an instance (G7: the instance item's `fetched`). */
const stored = async (contract: Address, id: number) =>
  (await getItem<NftInstanceRecord>(nftKeys.instance(CHAIN_ID, contract, BigInt(id))))?.fetched;

beforeAll(async () => {
  server = await startMetadataServer('127.0.0.1');
  for (const id of [1, 2]) server.on(`/token/${id}`, (request, response, count) => json(tokenDocument(id))(request, response, count));
  // Token 3's server answers 503 every time: it ends failed.
  server.on('/token/3', status(503));
  server.on(
    `/ipfs/bafymulti/${MULTI_HEX}.json`,
    json({ name: 'Multi {id}', image: 'ipfs://bafymulti/{id}.png' }, 'text/plain; charset=utf-8'),
  );
  server.on('/revealed/2', json({ name: 'Uri NFT #2 revealed', image: 'https://cdn.example/2-revealed.png' }));
  // The explorer and insights handlers read the gateway at their cold start (the first request below).
  process.env.NFT_METADATA_IPFS_GATEWAY = server.url('/ipfs/');
  worker = startLocalMetadataWorker({
    settings: loadLocalFetcherSettings({
      NFT_METADATA_ALLOW_LOOPBACK: '1',
      NFT_METADATA_IPFS_GATEWAY: server.url('/ipfs/'),
      NFT_METADATA_MAX_ATTEMPTS: '2',
      NFT_METADATA_RETRY_SECONDS: '0',
      NFT_METADATA_TIMEOUT_MS: '2000',
    }),
    print: null,
    refreshCooldownMs: 0,
  });

  [anvil, artifacts] = await Promise.all([startAnvil({ chainId: CHAIN_ID }), loadContracts()]);
  const chain = defineChain({
    id: CHAIN_ID,
    name: 'nft-metadata',
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [anvil.rpcUrl] } },
  });
  wallet = createWalletClient({ chain, transport: httpTransport(anvil.rpcUrl) });
  const deploy = (name: 'UriNFT' | 'UriMulti', args: unknown[]) =>
    mined(wallet.deployContract({ abi: artifacts[name].abi, bytecode: artifacts[name].bytecode, args, account: accounts[0]!, chain }));
  nft = (await deploy('UriNFT', [server.url('/token/')]))!;
  multi = (await deploy('UriMulti', ['ipfs://bafymulti/{id}.json']))!;
  for (const id of [1n, 2n, 3n]) await send(nft, artifacts.UriNFT.abi, 'mint', [alice, id]);
  await send(multi, artifacts.UriMulti.abi, 'mint', [alice, 5n, 2n]);
  await ingestAndFetch();
}, 120_000);

afterAll(async () => {
  await worker?.stop();
  await anvil?.stop();
  await server?.close();
  delete process.env.NFT_METADATA_IPFS_GATEWAY;
});

describe('NFT metadata fetched from the web', () => {
  it('the ingest queued each new instance once and the fetcher stored its document (G7)', async () => {
    expect(server.count('/token/1')).toBe(1);
    expect(server.count('/token/2')).toBe(1);
    expect(await stored(nft, 1)).toMatchObject({ status: 'fetched', tokenUri: server.url('/token/1'), attempts: 1 });
    expect(await stored(multi, 5)).toMatchObject({
      status: 'fetched',
      tokenUri: `ipfs://bafymulti/${MULTI_HEX}.json`,
      sourceUrl: server.url(`/ipfs/bafymulti/${MULTI_HEX}.json`),
    });
    // Token 3: two attempts (NFT_METADATA_MAX_ATTEMPTS), then failed with the reason.
    expect(server.count('/token/3')).toBe(2);
    expect(await stored(nft, 3)).toMatchObject({ status: 'failed', attempts: 2, error: 'HTTP 503', metadataJson: null });
  });

  it('the explorer serves metadata, image_url (ipfs:// through the gateway), animation_url and external_app_url', async () => {
    const { status: code, body } = await get(`/explorer/addresses/${alice}/nft`);
    expect(code, JSON.stringify(body)).toBe(200);
    const byId = new Map(
      body.items.map((item: { token: { address_hash: string }; id: string }) => [
        `${item.token.address_hash.toLowerCase()}/${item.id}`,
        item,
      ]),
    );
    expect(byId.get(`${nft}/1`)).toMatchObject({
      metadata: tokenDocument(1),
      image_url: server.url('/ipfs/bafyimages/1.png'),
      animation_url: 'https://cdn.example/1.mp4',
      external_app_url: 'https://example.com/token/1',
    });
    expect(byId.get(`${multi}/5`)).toMatchObject({
      metadata: { name: `Multi ${MULTI_HEX}`, image: `ipfs://bafymulti/${MULTI_HEX}.png` },
      image_url: server.url(`/ipfs/bafymulti/${MULTI_HEX}.png`),
    });
    expect(byId.get(`${nft}/3`)).toMatchObject({ metadata: null, image_url: null });
    const collections = await get(`/explorer/addresses/${alice}/nft/collections`);
    expect(collections.status).toBe(200);
    const instances = collections.body.items.flatMap(
      (item: { token_instances: { id: string; metadata: unknown }[] }) => item.token_instances,
    );
    expect(instances.find((instance: { id: string }) => instance.id === '2')).toMatchObject({ metadata: tokenDocument(2) });
    expect(instances.find((instance: { id: string }) => instance.id === '5')).toMatchObject({ metadata: { name: `Multi ${MULTI_HEX}` } });
  });

  it('insights serves name, description, image_url, animation_url, external_url, extra_metadata and metadata_url; status failed says why', async () => {
    const one = await get(`/insights/v1/nfts/${nft}/1?chain_id=${CHAIN_ID}`);
    expect(one.status, JSON.stringify(one.body)).toBe(200);
    expect(one.body.data[0]).toMatchObject({
      name: 'Uri NFT #1 v1',
      description: 'Token 1, served by a local metadata server',
      image_url: 'ipfs://bafyimages/1.png',
      animation_url: 'https://cdn.example/1.mp4',
      external_url: 'https://example.com/token/1',
      extra_metadata: { attributes: [{ trait_type: 'Serial', value: 1 }] },
      metadata_url: server.url('/token/1'),
      status: 'resolved',
    });
    const resolved = await get(`/insights/v1/nfts/${nft}/1?chain_id=${CHAIN_ID}&resolve_metadata_links=true`);
    expect(resolved.body.data[0].image_url).toBe(server.url('/ipfs/bafyimages/1.png'));
    const failed = await get(`/insights/v1/nfts/${nft}/3?chain_id=${CHAIN_ID}`);
    expect(failed.body.data[0]).toMatchObject({
      status: 'failed',
      metadata_error: 'HTTP 503',
      name: null,
      metadata_url: server.url('/token/3'),
    });
    const owned = await get(`/insights/v1/nfts/balance/${alice}?chain_id=${CHAIN_ID}&metadata=true`);
    expect(owned.status).toBe(200);
    expect(owned.body.data.map((row: { token_id: string; name: string | null }) => [row.token_id, row.name])).toEqual([
      ['3', null],
      ['2', 'Uri NFT #2 v1'],
      ['1', 'Uri NFT #1 v1'],
      ['5', `Multi ${MULTI_HEX}`],
    ]);
    const listed = await get(`/insights/v1/nfts/${multi}?chain_id=${CHAIN_ID}`);
    expect(listed.body.data[0]).toMatchObject({
      token_id: '5',
      name: `Multi ${MULTI_HEX}`,
      metadata_url: `ipfs://bafymulti/${MULTI_HEX}.json`,
    });
  });

  it('GET /insights/v1/nfts/metadata/refresh/{contract}/{token_id} queues a fetch again, answered as Insight does', async () => {
    version = 2;
    const refreshed = await get(`/insights/v1/nfts/metadata/refresh/${nft}/1?chain_id=${CHAIN_ID}`);
    expect(refreshed.status, JSON.stringify(refreshed.body)).toBe(200);
    expect(refreshed.body).toEqual({ data: { success: true, message: expect.stringContaining(`queued on chain ${CHAIN_ID}`) } });
    await worker.idle();
    expect(server.count('/token/1')).toBe(2);
    expect((await get(`/insights/v1/nfts/${nft}/1?chain_id=${CHAIN_ID}`)).body.data[0].name).toBe('Uri NFT #1 v2');
    expect((await get(`/insights/v1/nfts/metadata/refresh/${nft}/999?chain_id=${CHAIN_ID}`)).status).toBe(404);
    expect((await get(`/insights/v1/nfts/metadata/refresh/${nft}/abc?chain_id=${CHAIN_ID}`)).status).toBe(400);
  });

  it('GET /insights/v1/nfts/metadata/refresh/{contract} queues every token of the contract (a failed one gets its attempts again)', async () => {
    version = 3;
    const before = { one: server.count('/token/1'), two: server.count('/token/2'), three: server.count('/token/3') };
    const refreshed = await get(`/insights/v1/nfts/metadata/refresh/${nft}?chain_id=${CHAIN_ID}`);
    expect(refreshed.status, JSON.stringify(refreshed.body)).toBe(200);
    expect(refreshed.body.data.success).toBe(true);
    await worker.idle();
    expect(server.count('/token/1') - before.one).toBe(1);
    expect(server.count('/token/2') - before.two).toBe(1);
    expect(server.count('/token/3') - before.three).toBe(2);
    expect((await stored(nft, 2))?.metadataJson).toContain('v3');
    expect((await get(`/insights/v1/nfts/metadata/refresh/${alice}?chain_id=${CHAIN_ID}`)).status).toBe(404);
  });

  it('without a fetcher in the process (no queue URL, no local worker) a refresh queues nothing and says so: success false', async () => {
    useLocalMetadataQueue(undefined);
    try {
      const answer = await get(`/insights/v1/nfts/metadata/refresh/${nft}/1?chain_id=${CHAIN_ID}`);
      expect(answer.status).toBe(200);
      expect(answer.body).toEqual({ data: { success: false, message: expect.stringContaining('nothing was queued') } });
    } finally {
      useLocalMetadataQueue(worker);
    }
  });

  it('tokens moved with their URIs unchanged are not queued again (the ingest tells the listener what their metadata is about)', async () => {
    queued.length = 0;
    const fetches = server.count('/token/1');
    await send(nft, artifacts.UriNFT.abi, 'transferFrom', [alice, bob, 1n], 1);
    await send(nft, artifacts.UriNFT.abi, 'transferFrom', [alice, bob, 3n], 1);
    await send(multi, artifacts.UriMulti.abi, 'safeTransferFrom', [alice, bob, 5n, 1n, '0x'], 1);
    await ingestAndFetch();
    expect(queued).toEqual([]);
    expect(server.count('/token/1')).toBe(fetches);
    expect(await stored(nft, 1)).toMatchObject({ status: 'fetched', tokenUri: server.url('/token/1') });
    expect((await getItem<NftInstanceRecord>(nftKeys.instance(CHAIN_ID, nft, 1n)))?.owner).toBe(bob);
  });

  it('a new token URI (a reveal) is fetched once the ingest sees the token again', async () => {
    queued.length = 0;
    await send(nft, artifacts.UriNFT.abi, 'setBaseURI', [server.url('/revealed/')]);
    await send(nft, artifacts.UriNFT.abi, 'transferFrom', [alice, bob, 2n], 1);
    await ingestAndFetch();
    expect(queued).toEqual([{ v: MESSAGE_VERSION, kind: 'token', chainId: CHAIN_ID, contract: nft, tokenId: '2' }]);
    expect(await stored(nft, 2)).toMatchObject({ status: 'fetched', tokenUri: server.url('/revealed/2') });
    const row = (await get(`/insights/v1/nfts/${nft}/2?chain_id=${CHAIN_ID}`)).body.data[0];
    expect(row).toMatchObject({ name: 'Uri NFT #2 revealed', metadata_url: server.url('/revealed/2'), status: 'resolved' });
  });
});
