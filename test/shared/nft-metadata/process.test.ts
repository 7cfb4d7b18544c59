/**
 * What the fetcher does with a request (shared/nft-metadata/process.ts), against the embedded table and
 * a local metadata server that is also the IPFS "gateway": the item's states (pending with an attempt
 * count and a backoff, fetched, failed with the reason), an ipfs:// URI through the local gateway, an
 * ERC-1155 `{id}` URI, 404 then 200, giving up after the last attempt, refresh and its cooldown, a new
 * token URI, a contract refresh expanded into token requests; the settings the Lambda reads; and the
 * ingest listener's choice of what to queue (web URIs not yet fetched for that URI).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getItem, writeItems } from '../../../shared/db/operations';
import {
  type FetcherSettings,
  loadFetcherSettings,
  loadLocalFetcherSettings,
  REFRESH_COOLDOWN_MS,
} from '../../../shared/nft-metadata/config';
import { nftMetadataListener } from '../../../shared/nft-metadata/listener';
import { processMetadataRequest } from '../../../shared/nft-metadata/process';
import { writeFetched } from '../../../shared/nft-metadata/store';
import { shownMetadata } from '../../../shared/nft-metadata/view';
import { StateWriter } from '../../../shared/ingest/state';
import { MESSAGE_VERSION, type MetadataQueue, type MetadataRequest } from '../../../shared/nft-metadata/queue';
import { nftKeys } from '../../../shared/table/keys';
import type { NftInstanceRecord } from '../../../shared/table/records';
import { json, type MetadataServer, startMetadataServer, status } from '../../support/metadata-server';
import { useTestTable } from '../../support/table';
import { observingTable } from '../../support/table-calls';

useTestTable('nft-metadata');

const CHAIN = 31337;
const CONTRACT = '0x00000000000000000000000000000000000000aa';
const MULTI = '0x00000000000000000000000000000000000000bb';
const TRADED = '0x00000000000000000000000000000000000000cc';
let server: MetadataServer;
let settings: FetcherSettings;
const sent: MetadataRequest[] = [];
const queue: MetadataQueue = { send: async (requests) => void sent.push(...requests) };

async function putInstance(contract: string, tokenId: string, tokenUri: string | null, standard: 'ERC-721' | 'ERC-1155' = 'ERC-721') {
  const record: NftInstanceRecord = {
    kind: 'nftInstance',
    chainId: CHAIN,
    contract,
    tokenStandard: standard,
    tokenId,
    owner: null,
    tokenUri,
    metadataStatus: tokenUri?.startsWith('data:') ? 'resolved' : tokenUri ? 'unresolved' : 'none',
    metadataJson: null,
    totalSupply: null,
    totalSupplySource: null,
    firstSeenBlock: 1,
    updatedAtBlock: 1,
  };
  await writeItems({ put: [{ ...nftKeys.instance(CHAIN, contract, tokenId), ...record }] });
}

const token = (contract: string, tokenId: string, refresh?: number): MetadataRequest => ({
  v: MESSAGE_VERSION,
  kind: 'token',
  chainId: CHAIN,
  contract,
  tokenId,
  ...(refresh === undefined ? {} : { refresh }),
});
/** What the fetcher stored for an instance (G7: the instance item's `fetched`). */
const item = async (contract: string, tokenId: string) =>
  (await getItem<NftInstanceRecord>(nftKeys.instance(CHAIN, contract, tokenId)))?.fetched;

beforeAll(async () => {
  server = await startMetadataServer('127.0.0.1');
  settings = loadLocalFetcherSettings({
    NFT_METADATA_ALLOW_LOOPBACK: '1',
    NFT_METADATA_IPFS_GATEWAY: server.url('/ipfs/'),
    NFT_METADATA_TIMEOUT_MS: '1500',
    NFT_METADATA_MAX_ATTEMPTS: '3',
    NFT_METADATA_RETRY_SECONDS: '2',
  });
});

afterAll(async () => {
  await server?.close();
});

describe('the settings', () => {
  it('the Lambda’s never allow loopback or plain http, whatever NFT_METADATA_ALLOW_LOOPBACK says; the local ones honour it', () => {
    const lambda = loadFetcherSettings({ NFT_METADATA_ALLOW_LOOPBACK: '1' });
    expect(lambda.limits).toMatchObject({
      allowLoopback: false,
      allowHttp: false,
      maxRedirects: 3,
      connectTimeoutMs: 3000,
      totalTimeoutMs: 10000,
      maxBytes: 1048576,
    });
    expect(lambda.gateways).toEqual({ ipfs: 'https://ipfs.io/ipfs/', arweave: 'https://arweave.net/' });
    expect(loadLocalFetcherSettings({}).limits).toMatchObject({ allowLoopback: false, allowHttp: false });
    expect(loadLocalFetcherSettings({ NFT_METADATA_ALLOW_LOOPBACK: '1' }).limits).toMatchObject({ allowLoopback: true, allowHttp: true });
    expect(loadFetcherSettings({ NFT_METADATA_IPFS_GATEWAY: 'https://gw.example/ipfs' }).gateways.ipfs).toBe('https://gw.example/ipfs/');
    expect(() => loadFetcherSettings({ NFT_METADATA_IPFS_GATEWAY: 'ftp://gw.example/' })).toThrow(/NFT_METADATA_IPFS_GATEWAY/);
    expect(() => loadFetcherSettings({ NFT_METADATA_MAX_ATTEMPTS: '50' })).toThrow(/NFT_METADATA_MAX_ATTEMPTS/);
  });
});

describe('processMetadataRequest', () => {
  it('fetches an ipfs:// token URI through the gateway and stores the document (fetched); a second request is skipped', async () => {
    server.on('/ipfs/bafyroot/1.json', json({ name: 'One', image: 'ipfs://bafyroot/1.png' }));
    await putInstance(CONTRACT, '1', 'ipfs://bafyroot/1.json');
    expect(await processMetadataRequest(token(CONTRACT, '1'), { settings, queue })).toEqual({ outcome: 'fetched' });
    expect(await item(CONTRACT, '1')).toMatchObject({
      status: 'fetched',
      tokenUri: 'ipfs://bafyroot/1.json',
      metadataJson: JSON.stringify({ name: 'One', image: 'ipfs://bafyroot/1.png' }),
      attempts: 1,
      error: null,
      sourceUrl: server.url('/ipfs/bafyroot/1.json'),
    });
    expect(await processMetadataRequest(token(CONTRACT, '1'), { settings, queue })).toEqual({
      outcome: 'skipped',
      detail: 'already fetched',
    });
    expect(server.count('/ipfs/bafyroot/1.json')).toBe(1);
  });

  it('expands an ERC-1155 {id} in the URI and in the document to 64 lowercase hex digits', async () => {
    const hex = `${'0'.repeat(62)}ff`;
    server.on(`/multi/${hex}.json`, json({ name: 'Multi {id}', image: 'https://cdn.example/{id}.png' }));
    await putInstance(MULTI, '255', server.url('/multi/{id}.json'), 'ERC-1155');
    expect(await processMetadataRequest(token(MULTI, '255'), { settings, queue })).toEqual({ outcome: 'fetched' });
    expect(JSON.parse((await item(MULTI, '255'))!.metadataJson!)).toEqual({
      name: `Multi ${hex}`,
      image: `https://cdn.example/${hex}.png`,
    });
  });

  it('404 then 200: the first attempt leaves the item pending with its reason and asks for a retry after the backoff; the retry fetches it', async () => {
    server.on('/flaky/2.json', (request, response, count) => (count === 1 ? status(404) : json({ name: 'Two' }))(request, response, count));
    await putInstance(CONTRACT, '2', server.url('/flaky/2.json'));
    expect(await processMetadataRequest(token(CONTRACT, '2'), { settings, queue })).toEqual({
      outcome: 'retry',
      retryInMs: 2000,
      detail: 'HTTP 404',
    });
    expect(await item(CONTRACT, '2')).toMatchObject({ status: 'pending', attempts: 1, error: 'HTTP 404', metadataJson: null });
    expect(await processMetadataRequest(token(CONTRACT, '2'), { settings, queue })).toEqual({ outcome: 'fetched' });
    expect(await item(CONTRACT, '2')).toMatchObject({ status: 'fetched', attempts: 2, error: null, metadataJson: '{"name":"Two"}' });
  });

  it('gives up after NFT_METADATA_MAX_ATTEMPTS retryable failures (backoff x4 each time): failed, with the reason; never retried again', async () => {
    server.on('/down/3.json', status(503));
    await putInstance(CONTRACT, '3', server.url('/down/3.json'));
    expect(await processMetadataRequest(token(CONTRACT, '3'), { settings, queue })).toMatchObject({ outcome: 'retry', retryInMs: 2000 });
    expect(await processMetadataRequest(token(CONTRACT, '3'), { settings, queue })).toMatchObject({ outcome: 'retry', retryInMs: 8000 });
    expect(await processMetadataRequest(token(CONTRACT, '3'), { settings, queue })).toEqual({ outcome: 'failed', detail: 'HTTP 503' });
    expect(await item(CONTRACT, '3')).toMatchObject({ status: 'failed', attempts: 3, error: 'HTTP 503' });
    expect(await processMetadataRequest(token(CONTRACT, '3'), { settings, queue })).toEqual({
      outcome: 'skipped',
      detail: 'already failed',
    });
    expect(server.count('/down/3.json')).toBe(3);
  });

  it('fails at once on what a retry cannot fix: invalid JSON, a refused redirect, plain http in AWS', async () => {
    server.on('/bad/4.json', json('{not json', 'application/json'));
    server.on('/bad/5.json', (_request, response) => {
      response.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' });
      response.end();
    });
    await putInstance(CONTRACT, '4', server.url('/bad/4.json'));
    await putInstance(CONTRACT, '5', server.url('/bad/5.json'));
    expect(await processMetadataRequest(token(CONTRACT, '4'), { settings, queue })).toEqual({
      outcome: 'failed',
      detail: 'the body is not JSON',
    });
    expect(await processMetadataRequest(token(CONTRACT, '5'), { settings, queue })).toMatchObject({
      outcome: 'failed',
      detail: expect.stringMatching(/169\.254\.169\.254 is link-local/),
    });
    await putInstance(CONTRACT, '6', 'http://meta.example/6.json');
    expect(await processMetadataRequest(token(CONTRACT, '6'), { settings: loadFetcherSettings({}), queue })).toEqual({
      outcome: 'failed',
      detail: 'plain http:// is not fetched (https://, ipfs:// or ar:// only)',
    });
    expect(await item(CONTRACT, '6')).toMatchObject({ status: 'failed', attempts: 1, sourceUrl: null });
  });

  it('skips what is not to fetch: no instance, a data: URI, no URI', async () => {
    expect(await processMetadataRequest(token(CONTRACT, '999'), { settings, queue })).toMatchObject({ outcome: 'skipped' });
    await putInstance(CONTRACT, '7', 'data:application/json,{"name":"x"}');
    await putInstance(CONTRACT, '8', null);
    for (const id of ['7', '8']) {
      expect(await processMetadataRequest(token(CONTRACT, id), { settings, queue })).toEqual({
        outcome: 'skipped',
        detail: 'its token URI is not on the web',
      });
      expect(await item(CONTRACT, id)).toBeUndefined();
    }
  });

  it('a refresh fetches again, unless it ran already or the last attempt is under a minute older than the refresh', async () => {
    let calls = 0;
    server.on('/refresh/9.json', (request, response) => json({ name: `Nine v${++calls}` })(request, response, calls));
    await putInstance(CONTRACT, '9', server.url('/refresh/9.json'));
    let clock = 1_000_000_000;
    const context = { settings, queue, now: () => clock };
    expect(await processMetadataRequest(token(CONTRACT, '9'), context)).toEqual({ outcome: 'fetched' });
    clock += 10_000;
    expect(await processMetadataRequest(token(CONTRACT, '9', clock), context)).toMatchObject({
      outcome: 'skipped',
      detail: expect.stringMatching(/less than 60 s/),
    });
    clock += REFRESH_COOLDOWN_MS;
    const refresh = clock;
    expect(await processMetadataRequest(token(CONTRACT, '9', refresh), context)).toEqual({ outcome: 'fetched' });
    expect(await item(CONTRACT, '9')).toMatchObject({ metadataJson: '{"name":"Nine v2"}', attempts: 1 });
    // The same refresh delivered again: already done.
    clock += REFRESH_COOLDOWN_MS * 2;
    expect(await processMetadataRequest(token(CONTRACT, '9', refresh), context)).toEqual({
      outcome: 'skipped',
      detail: 'this refresh already ran',
    });
    expect(calls).toBe(2);
  });

  it('fetches again when the instance’s token URI changed (a reveal)', async () => {
    server.on('/hidden.json', json({ name: 'Hidden' }));
    server.on('/revealed/10.json', json({ name: 'Revealed' }));
    await putInstance(CONTRACT, '10', server.url('/hidden.json'));
    expect(await processMetadataRequest(token(CONTRACT, '10'), { settings, queue })).toEqual({ outcome: 'fetched' });
    await putInstance(CONTRACT, '10', server.url('/revealed/10.json'));
    expect(await processMetadataRequest(token(CONTRACT, '10'), { settings, queue })).toEqual({ outcome: 'fetched' });
    expect(await item(CONTRACT, '10')).toMatchObject({ tokenUri: server.url('/revealed/10.json'), metadataJson: '{"name":"Revealed"}' });
  });

  it('keeps what was fetched on the instance when the ingest writes it again (a transfer); a state about another URI is refused', async () => {
    server.on('/kept/11.json', json({ name: 'Kept' }));
    const uri = server.url('/kept/11.json');
    await putInstance(TRADED, '11', uri);
    expect(await processMetadataRequest(token(TRADED, '11'), { settings, queue })).toEqual({ outcome: 'fetched' });
    const fetched = await item(TRADED, '11');
    const owner = '0x00000000000000000000000000000000000000b1';
    await new StateWriter(CHAIN).setNftInstance(TRADED, 'ERC-721', 11n, { owner, tokenUri: uri, totalSupply: null }, 5);
    const after = await getItem<NftInstanceRecord>(nftKeys.instance(CHAIN, TRADED, '11'));
    expect(after).toMatchObject({ owner, updatedAtBlock: 5, fetched });
    expect(shownMetadata(after)).toEqual({ document: { name: 'Kept' }, status: 'resolved', error: null });
    // A state about a URI the instance no longer has (the ingest wrote a new one, or a reorg deleted it) is not written.
    const stale = { ...fetched!, tokenUri: server.url('/other.json'), attemptedAt: fetched!.attemptedAt + 1 };
    expect(await writeFetched({ chainId: CHAIN, contract: TRADED, tokenId: '11' }, stale, fetched)).toBe(false);
    expect(await writeFetched({ chainId: CHAIN, contract: TRADED, tokenId: '12' }, stale, undefined)).toBe(false);
    expect(await getItem(nftKeys.instance(CHAIN, TRADED, '12'))).toBeUndefined();
    expect(await item(TRADED, '11')).toEqual(fetched);
  });

  it('a contract refresh becomes one token refresh per instance with a web URI', async () => {
    sent.length = 0;
    const refresh = Date.now();
    expect(
      await processMetadataRequest(
        { v: MESSAGE_VERSION, kind: 'contract', chainId: CHAIN, contract: CONTRACT, refresh },
        { settings, queue },
      ),
    ).toEqual({
      outcome: 'expanded',
      detail: '8 tokens',
    });
    // Instances 1-6, 9, 10 have web URIs; 7 (data:) and 8 (none) do not.
    expect(sent.map((request) => request.kind === 'token' && request.tokenId)).toEqual(['1', '2', '3', '4', '5', '6', '9', '10']);
    expect(sent.every((request) => request.kind === 'token' && request.refresh === refresh)).toBe(true);
  });
});

describe('nftMetadataListener (the ingest’s side)', () => {
  it('queues the instances a batch wrote whose URI is on the web and not yet fetched for that URI, once each, nothing else, without a table read', async () => {
    const requests: MetadataRequest[] = [];
    const listener = nftMetadataListener({ send: async (batch) => void requests.push(...batch) });
    const calls: string[] = [];
    await observingTable(
      (command) => void calls.push(command),
      async () =>
        listener.nftInstancesWritten!({
          chainId: CHAIN,
          blockNumber: 5,
          instances: [
            // Fetched for this very URI when the ingest read the instance: skipped.
            {
              contract: CONTRACT,
              standard: 'ERC-721',
              tokenId: '1',
              tokenUri: 'ipfs://bafyroot/1.json',
              fetchedTokenUri: 'ipfs://bafyroot/1.json',
            },
            // Failed for this URI: skipped too (a refresh asks again).
            {
              contract: CONTRACT,
              standard: 'ERC-721',
              tokenId: '3',
              tokenUri: server.url('/down/3.json'),
              fetchedTokenUri: server.url('/down/3.json'),
            },
            // Its URI changed since it was fetched: queued.
            {
              contract: CONTRACT,
              standard: 'ERC-721',
              tokenId: '10',
              tokenUri: server.url('/revealed-again/10.json'),
              fetchedTokenUri: server.url('/revealed/10.json'),
            },
            // Never fetched: queued once, though the batch names it twice.
            {
              contract: CONTRACT.toUpperCase().replace('0X', '0x'),
              standard: 'ERC-721',
              tokenId: '77',
              tokenUri: 'ar://tx/77',
              fetchedTokenUri: null,
            },
            { contract: CONTRACT, standard: 'ERC-721', tokenId: '77', tokenUri: 'ar://tx/77', fetchedTokenUri: null },
            // Not on the web: data:, none, an unknown scheme.
            { contract: CONTRACT, standard: 'ERC-721', tokenId: '78', tokenUri: 'data:application/json,{}', fetchedTokenUri: null },
            { contract: CONTRACT, standard: 'ERC-721', tokenId: '79', tokenUri: null, fetchedTokenUri: null },
            { contract: CONTRACT, standard: 'ERC-721', tokenId: '80', tokenUri: 'foo://bar', fetchedTokenUri: null },
          ],
        }),
    );
    // (The ingest read the instances before writing them: nothing is read on its commit path here.)
    expect(calls).toEqual([]);
    expect(requests).toEqual([token(CONTRACT, '10'), token(CONTRACT, '77')]);
    await listener.nftInstancesWritten!({ chainId: CHAIN, blockNumber: 6, instances: [] });
    expect(requests).toHaveLength(2);
  });
});
