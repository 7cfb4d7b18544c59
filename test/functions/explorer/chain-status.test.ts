/**
 * The chain's status through the handlers, on a real anvil ingested with traces refused
 * (`traceMethod: 'none'`, as for a node without debug_ / trace_ methods):
 *  - internal transactions are answered as not indexed (a 404 in the explorer's format), never as an
 *    empty list; `has_error_in_internal_transactions` is null on the transactions; the status says
 *    `trace_method: none`;
 *  - GET /insights/v1/chains/{chainId}/status and GET /explorer/main-page/indexing-status give the
 *    indexed head, the node's head, the lag and the state; explorer pages carry X-Indexed-Block;
 *  - a stopped ingest (a failed run) and a status older than CHAIN_STATUS_STALE_SECONDS read `stopped`.
 * Endpoint ids (E5, E7, I5): docs/access-patterns.md.
 */
import { createWalletClient, defineChain, http, parseEther } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ANVIL_PRIVATE_KEYS, startAnvil, type Anvil } from '../../../scripts/lib/anvil';
import { requestJson } from '../../../scripts/lib/dispatch';
import { createChainClient } from '../../../shared/chain/client';
import { measureTable } from '../../../shared/db/instrument';
import { ChainIngest } from '../../../shared/ingest/ingest';
import { readCursor } from '../../../shared/ingest/manifest';
import {
  DEFAULT_STATUS_SETTINGS,
  describeChainStatus,
  forgetChainStatuses,
  loadChainStatusSettings,
} from '../../../shared/chain-status/status';
import { readStoredStatus } from '../../../shared/ingest/status';
import { useTestTable } from '../../support/table';

useTestTable('chain-status');
const CHAIN_ID = 31337; // the explorer's default chain
const quiet = { info: () => undefined, warn: () => undefined };
const [sender, receiver] = ANVIL_PRIVATE_KEYS.slice(0, 2).map((key) => privateKeyToAccount(key));
let anvil: Anvil;

const ingest = (rpcUrl = anvil.rpcUrl) =>
  new ChainIngest({ chainId: CHAIN_ID, client: createChainClient(rpcUrl), log: quiet, traceMethod: 'none', statusIntervalMs: 0 });

beforeAll(async () => {
  anvil = await startAnvil({ chainId: CHAIN_ID });
  const chain = defineChain({
    id: CHAIN_ID,
    name: 'no-traces',
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [anvil.rpcUrl] } },
  });
  const wallet = createWalletClient({ chain, transport: http(anvil.rpcUrl), account: sender! });
  for (let i = 0; i < 3; i += 1) await wallet.sendTransaction({ to: receiver!.address, value: parseEther('1') });
  await ingest().ingestRange();
  forgetChainStatuses();
}, 60_000);

afterAll(async () => {
  await anvil?.stop();
});

describe('a chain whose node serves no traces', () => {
  it('answers internal transactions as not indexed (404), not as an empty list', async () => {
    for (const address of [sender!.address, receiver!.address]) {
      const response = await requestJson('base', 'GET', `/explorer/addresses/${address}/internal-transactions`);
      expect(response.status).toBe(404);
      expect(response.body.message).toMatch(/internal transactions are not indexed on chain 31337: its node serves no trace API/);
    }
  });

  it('says has_error_in_internal_transactions: null on its transactions, and trace_method none in its status', async () => {
    const page = await requestJson('base', 'GET', `/explorer/addresses/${sender!.address}/transactions`);
    expect(page.status).toBe(200);
    expect(page.body.items).toHaveLength(3);
    for (const item of page.body.items) expect(item.has_error_in_internal_transactions).toBeNull();
    const status = await requestJson('base', 'GET', `/insights/v1/chains/${CHAIN_ID}/status`);
    expect(status.body.data.capabilities).toMatchObject({ trace_method: 'none', block_receipts: 'eth_getBlockReceipts' });
    const indexing = await requestJson('base', 'GET', '/explorer/main-page/indexing-status');
    expect(indexing.body).toMatchObject({ indexed_internal_transactions_ratio: null, capabilities: { trace_method: 'none' } });
  });
});

describe('the status endpoints and headers', () => {
  it('give the indexed head, the node head, the lag and the state', async () => {
    const cursor = (await readCursor(CHAIN_ID))!;
    const { status, body } = await requestJson('base', 'GET', `/insights/v1/chains/${CHAIN_ID}/status`);
    expect(status).toBe(200);
    expect(body.data).toMatchObject({
      chain_id: CHAIN_ID,
      state: 'following',
      reason: null,
      first_block: 0,
      indexed_head: { block_number: cursor.blockNumber, block_hash: cursor.blockHash, block_timestamp: cursor.blockTimestamp },
      node_head: { block_number: cursor.blockNumber },
      lag: { blocks: 0, seconds: 0 },
      // The cold tier is off for this chain.
      cold_history: null,
    });
    expect(Date.now() - Date.parse(body.data.updated_at)).toBeLessThan(60_000);

    const blockscout = await requestJson('base', 'GET', '/explorer/main-page/indexing-status');
    expect(blockscout.status).toBe(200);
    expect(blockscout.body).toMatchObject({
      finished_indexing: true,
      finished_indexing_blocks: true,
      indexed_blocks_ratio: '1.00',
      state: 'following',
    });

    const unknown = await requestJson('base', 'GET', '/insights/v1/chains/999/status');
    expect(unknown.status).toBe(404);
  });

  it('explorer pages carry the indexed head in headers, within two round trips (status read beside the page, then kept)', async () => {
    const cursor = (await readCursor(CHAIN_ID))!;
    forgetChainStatuses();
    const first = await measureTable(() => requestJson('base', 'GET', `/explorer/addresses/${sender!.address}/transactions`));
    expect(first.result.headers).toMatchObject({
      'x-indexed-block': String(cursor.blockNumber),
      'x-indexing-state': 'following',
      'x-indexing-lag-blocks': '0',
    });
    // The page's Queries (the `all` union: `to` and `from`) and the status BatchGetItem in parallel, then
    // the page's details BatchGetItem.
    expect(first.usage.calls).toEqual({ QueryCommand: 2, BatchGetItemCommand: 2 });
    const kept = await measureTable(() => requestJson('base', 'GET', `/explorer/addresses/${sender!.address}/transactions`));
    expect(kept.result.headers['x-indexed-block']).toBe(String(cursor.blockNumber));
    expect(kept.usage.calls, 'the status is kept by the container').toEqual({ QueryCommand: 2, BatchGetItemCommand: 1 });
  });

  it('reads stopped, with the reason, after a failed run; and when the status is older than the setting', async () => {
    const dead = await startAnvil({ chainId: CHAIN_ID });
    const deadUrl = dead.rpcUrl;
    await dead.stop();
    const failing = new ChainIngest({
      chainId: CHAIN_ID,
      client: createChainClient(deadUrl),
      log: quiet,
      traceMethod: 'none',
      retry: { attempts: 1, baseDelayMs: 1, maxDelayMs: 1 },
    });
    await expect(failing.ingestRange({ to: 1_000 })).rejects.toThrow();
    const stored = (await readStoredStatus(CHAIN_ID))!;
    expect(stored).toMatchObject({ state: 'stopped', reason: expect.stringMatching(/^ingest failed: /) });
    const { body } = await requestJson('base', 'GET', `/insights/v1/chains/${CHAIN_ID}/status`);
    expect(body.data).toMatchObject({ state: 'stopped', reason: stored.reason });

    // A later run that works says following again.
    await ingest().ingestRange();
    expect((await requestJson('base', 'GET', `/insights/v1/chains/${CHAIN_ID}/status`)).body.data.state).toBe('following');

    // The ingest died without a word: its last status is older than the setting.
    const fresh = (await readStoredStatus(CHAIN_ID))!;
    const later = describeChainStatus(
      CHAIN_ID,
      await readCursor(CHAIN_ID),
      fresh,
      fresh.updatedAt + DEFAULT_STATUS_SETTINGS.staleAfterMs + 1_000,
      DEFAULT_STATUS_SETTINGS,
    );
    expect(later.state).toBe('stopped');
    expect(later.reason).toMatch(/no status from the ingest for 301 s .*it is not running/);
  });
});

describe('the readers’ settings (CHAIN_STATUS_*)', () => {
  it('refuse a cache longer than the staleness: a kept copy older than it would show every chain stopped', () => {
    expect(() => loadChainStatusSettings({ CHAIN_STATUS_CACHE_SECONDS: '600' })).toThrow(
      /CHAIN_STATUS_CACHE_SECONDS \(600\) must not exceed CHAIN_STATUS_STALE_SECONDS \(300\)/,
    );
    expect(() => loadChainStatusSettings({ CHAIN_STATUS_CACHE_SECONDS: '120', CHAIN_STATUS_STALE_SECONDS: '60' })).toThrow(
      /must not exceed CHAIN_STATUS_STALE_SECONDS/,
    );
    // At most 10 minutes, however long the staleness.
    expect(() => loadChainStatusSettings({ CHAIN_STATUS_CACHE_SECONDS: '3600', CHAIN_STATUS_STALE_SECONDS: '86400' })).toThrow(
      /CHAIN_STATUS_CACHE_SECONDS/,
    );
    expect(loadChainStatusSettings({ CHAIN_STATUS_CACHE_SECONDS: '300' })).toEqual({ ...DEFAULT_STATUS_SETTINGS, cacheMs: 300_000 });
    expect(loadChainStatusSettings({})).toEqual(DEFAULT_STATUS_SETTINGS);
  });
});
