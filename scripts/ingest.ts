/**
 * The ingest CLI: `npm run ingest -- --rpc-url URL [--chain-id N] [--from-block N] [--to-block N]
 * [--repair] [--follow] [--poll-interval MS]`. Writes into the table the configuration names (TABLE_NAME,
 * DYNAMODB_ENDPOINT; with a local endpoint the table is created when missing), through the same code
 * path as the scheduled Lambda (shared/ingest), with order deposit detection listening to the blocks
 * as there. Shows a progress bar with blocks per second.
 *
 * --chain-id     checked against eth_chainId (which is the default)
 * --from-block   first block (default: the block after the cursor, or 0 on an empty table);
 *                blocks at or below the cursor are complete and skipped, unless --repair
 * --repair       write the blocks from --from-block up to the cursor again (identical items)
 * --to-block     last block (default: the head when the run starts)
 * --follow       after the range, keep polling for new blocks every --poll-interval ms (default 1000)
 *                until Ctrl-C
 * --max-reorg-depth N  deepest reorg repaired (default 1024); deeper, the ingest stops writing and the
 *                chain's status says why (GET /insights/v1/chains/{chainId}/status)
 * --manifest-retention-days N  days a block's write manifest is kept past the block's timestamp
 *                (default 7; 0: forever); must cover the reorg window (max reorg depth x block time)
 * --trace-method how to read block traces: callTracer, parity (trace_block) or none (default: found
 *                out from the node; parity is much faster on anvil for blocks of many transactions)
 * --rpc-batch-size  JSON-RPC calls per batch request at start (default 100); halved for the run when
 *                the node refuses a batch (shared/chain/transport.ts)
 * --workers N    backfill --from-block..--to-block with N worker processes in parallel
 *                (shared/ingest/backfill.ts; scripts/lib/backfill-pool.ts): they stage segments of
 *                --segment-blocks blocks (default 32) in any order while this process numbers them in
 *                block order. The range starts after the cursor and must be final: --confirmations C
 *                (default 0) keeps it C blocks below the head.
 * INGEST_COIN_BALANCES=off (environment) keeps no native coin balances (one eth_getBalance and one
 *                write per address a batch touched: shared/ingest/native-state.ts); default on.
 * INGEST_ZERO_VALUE_CALLS_RETENTION_DAYS=N (environment, the workers' too) lets DynamoDB delete the
 *                internal transactions that are zero-value calls N days after their block; 0 stores
 *                none; unset keeps them (shared/ingest/zero-value-calls.ts).
 */
import { parseArgs } from 'node:util';
import * as v from 'valibot';
import cliProgress from 'cli-progress';
import { createChainClient } from '../shared/chain/client';
import { platformConfig } from '../shared/config';
import { ensureTable, localClient } from './lib/local-table/ensure-table';
import { coldHistoryOfEnv, INGEST_COIN_BALANCES, INGEST_ZERO_VALUE_CALLS_RETENTION_DAYS } from '../shared/ingest/config';
import { ChainIngest, type ChainCapabilities } from '../shared/ingest/ingest';
import type { IngestLog } from '../shared/ingest/log';
import { readCursor } from '../shared/ingest/manifest';
import { planBackfill } from '../shared/ingest/backfill';
import type { TraceMethod } from '../shared/ingest/fetch-block';
import { stageWithWorkers } from './lib/backfill-pool';
import { orderDepositListener } from '../shared/orders/deposits';

const USAGE =
  'usage: npm run ingest -- --rpc-url URL [--chain-id N] [--from-block N] [--to-block N] [--repair] [--follow] [--poll-interval MS] [--batch-blocks N] [--trace-method callTracer|parity|none] [--max-reorg-depth N] [--manifest-retention-days N] [--rpc-batch-size N] [--workers N [--segment-blocks N] [--confirmations N]]';

function wholeNumber(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value)) throw new Error(`--${name} must be a whole number, got "${value}"\n${USAGE}`);
  return Number(value);
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      'rpc-url': { type: 'string' },
      'chain-id': { type: 'string' },
      'from-block': { type: 'string' },
      'to-block': { type: 'string' },
      follow: { type: 'boolean', default: false },
      repair: { type: 'boolean', default: false },
      'poll-interval': { type: 'string' },
      'batch-blocks': { type: 'string' },
      workers: { type: 'string' },
      'segment-blocks': { type: 'string' },
      confirmations: { type: 'string' },
      'trace-method': { type: 'string' },
      'max-reorg-depth': { type: 'string' },
      'manifest-retention-days': { type: 'string' },
      'rpc-batch-size': { type: 'string' },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    console.log(USAGE);
    return;
  }
  const rpcUrl = values['rpc-url'];
  if (!rpcUrl) throw new Error(`--rpc-url is required\n${USAGE}`);
  const fromBlock = wholeNumber('from-block', values['from-block']);
  const toBlock = wholeNumber('to-block', values['to-block']);
  const pollInterval = wholeNumber('poll-interval', values['poll-interval']) ?? 1_000;
  const batchBlocks = wholeNumber('batch-blocks', values['batch-blocks']);
  if (batchBlocks === 0) throw new Error(`--batch-blocks must be at least 1\n${USAGE}`);
  const traceMethod = values['trace-method'];
  if (traceMethod !== undefined && !['callTracer', 'parity', 'none'].includes(traceMethod)) {
    throw new Error(`--trace-method must be callTracer, parity or none, got "${traceMethod}"\n${USAGE}`);
  }
  const rpcBatchSize = wholeNumber('rpc-batch-size', values['rpc-batch-size']);
  if (rpcBatchSize === 0) throw new Error(`--rpc-batch-size must be at least 1\n${USAGE}`);
  const maxReorgDepth = wholeNumber('max-reorg-depth', values['max-reorg-depth']);
  if (maxReorgDepth === 0) throw new Error(`--max-reorg-depth must be at least 1\n${USAGE}`);
  // (0 keeps the manifests forever.)
  const manifestRetentionDays = wholeNumber('manifest-retention-days', values['manifest-retention-days']);
  const workers = wholeNumber('workers', values.workers);
  const segmentBlocks = wholeNumber('segment-blocks', values['segment-blocks']);
  const confirmations = wholeNumber('confirmations', values.confirmations);
  if (workers === 0 || segmentBlocks === 0) throw new Error(`--workers and --segment-blocks must be at least 1\n${USAGE}`);
  if (workers === undefined && (segmentBlocks !== undefined || confirmations !== undefined)) {
    throw new Error(`--segment-blocks and --confirmations go with --workers\n${USAGE}`);
  }
  if (workers !== undefined && values.repair) throw new Error(`--workers backfills new blocks; it does not go with --repair\n${USAGE}`);

  const warn = (message: string, details?: Record<string, unknown>) =>
    console.error(`\nwarning: ${message} ${details ? JSON.stringify(details) : ''}`);
  // Its first request (eth_chainId) is retried like every other (a 429 there must not end the run).
  const client = createChainClient(rpcUrl, { ...(rpcBatchSize ? { batchSize: rpcBatchSize } : {}), log: { warn } });
  const nodeChainId = await client.getChainId();
  const chainId = wholeNumber('chain-id', values['chain-id']) ?? nodeChainId;
  if (chainId !== nodeChainId) throw new Error(`--chain-id ${chainId} does not match the node's eth_chainId ${nodeChainId}`);

  const config = platformConfig();
  if (config.dynamodbEndpoint) await ensureTable(localClient(config.dynamodbEndpoint), config.tableName);

  const bar = new cliProgress.SingleBar(
    { format: 'chain {chainId} |{bar}| block {block} | {value}/{total} | {speed} blocks/s | {mode}', hideCursor: true, etaBuffer: 50 },
    cliProgress.Presets.shades_classic,
  );
  const log: IngestLog = { info: () => undefined, warn };
  const started = Date.now();
  let done = 0;
  const ingest = new ChainIngest({
    chainId,
    client,
    log,
    maxBatchBlocks: batchBlocks,
    ...(maxReorgDepth !== undefined ? { maxReorgDepth } : {}),
    ...(manifestRetentionDays !== undefined ? { manifestRetentionDays } : {}),
    listeners: [orderDepositListener],
    coinBalances: v.parse(INGEST_COIN_BALANCES, process.env.INGEST_COIN_BALANCES),
    zeroValueCallsRetentionDays: v.parse(INGEST_ZERO_VALUE_CALLS_RETENTION_DAYS, process.env.INGEST_ZERO_VALUE_CALLS_RETENTION_DAYS),
    coldHistory: coldHistoryOfEnv(),
    ...(traceMethod ? { traceMethod: traceMethod as TraceMethod } : {}),
    ...(workers !== undefined ? { backfillPollMs: 100 } : {}),
    onBlock: ({ blockNumber, mode }) => {
      done += 1;
      if (done > bar.getTotal()) bar.setTotal(done); // following the head: the total grows
      const seconds = Math.max(0.001, (Date.now() - started) / 1000);
      bar.update(done, { block: blockNumber, speed: (done / seconds).toFixed(1), mode });
    },
  });

  const head = Number(await ingest.head());
  // A backfill reaches final blocks only: by default the head less the confirmations asked for.
  const last = toBlock ?? Math.max(0, head - (confirmations ?? 0));
  const cursor = await readCursor(chainId);
  const first = values.repair ? (fromBlock ?? 0) : Math.max(fromBlock ?? 0, cursor ? cursor.blockNumber + 1 : 0);
  bar.start(Math.max(1, last - first + 1), 0, { chainId, block: '-', speed: '0.0', mode: 'starting' });
  const controller = new AbortController();
  const stop = () => controller.abort();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  try {
    // A backfill: the plan first (the ingest below numbers its blocks only from staged segments).
    const plan =
      workers === undefined ? undefined : await planBackfill({ chainId, from: fromBlock, to: last, head, segmentBlocks, confirmations });
    let staged = 0;
    const staging =
      plan &&
      workers !== undefined &&
      stageWithWorkers({
        segments: plan.segments,
        workers,
        rpcUrl,
        chainId,
        traceMethod: traceMethod as TraceMethod | undefined,
        ...(rpcBatchSize === undefined ? {} : { rpcBatchSize }),
        onBlock: () => {
          staged += 1;
          bar.update({ mode: `staged ${staged}/${last - first + 1} by ${workers} workers` });
        },
        log: (message) => console.error(`\n${message}`),
        signal: controller.signal,
      });
    // Ctrl-C (or SIGTERM) stops it after the batch in flight; a second one ends the process at once.
    const [result] = await Promise.all([
      ingest.ingestRange({ from: fromBlock, to: last, repair: values.repair, signal: controller.signal }),
      staging,
    ]);
    bar.stop();
    console.log(describeCapabilities(chainId, await ingest.capabilities()));
    if (values.follow && !controller.signal.aborted) {
      const followed = await ingest.follow({ intervalMs: pollInterval, signal: controller.signal, firstBlock: first });
      result.advanced += followed.advanced;
      result.reorgs += followed.reorgs;
      result.cursor = followed.cursor ?? result.cursor;
    }
    bar.stop();
    const cursor = result.cursor ? `cursor at block ${result.cursor.blockNumber}` : 'no block ingested';
    console.log(`chain ${chainId}: ${result.advanced} blocks ingested, ${result.repaired} re-written, ${result.reorgs} reorgs; ${cursor}`);
  } finally {
    bar.stop();
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
  }
}

/** What the node was found to serve (recorded in the chain's status item). */
function describeCapabilities(chainId: number, found: ChainCapabilities): string {
  const traces =
    found.traceMethod === null
      ? 'not yet known'
      : found.traceMethod === 'none'
        ? 'none (internal transactions are not indexed)'
        : found.traceMethod === 'callTracer'
          ? 'debug_traceBlockByNumber (callTracer)'
          : 'trace_block (parity)';
  const receipts =
    found.blockReceipts === null
      ? 'not yet known'
      : found.blockReceipts === 'eth_getBlockReceipts'
        ? 'eth_getBlockReceipts'
        : 'one eth_getTransactionReceipt per transaction';
  const multicall =
    found.multicall3 === null
      ? 'not yet looked for'
      : found.multicall3 === 'absent'
        ? 'absent'
        : `present (from block ${found.multicall3FromBlock} at least)`;
  return `chain ${chainId} node: traces ${traces}; receipts ${receipts}; Multicall3 ${multicall}`;
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(`ingest failed: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);
