/**
 * `npm run bench:lambda [-- --chain anvil|base] [--duration 240] [--timeout 75] [--schedule 25] [--safety-margin 10]
 * [--block-seconds 2] [--txs-per-block N] [--burst N] [--deposit-every 6] [--memory MB] [--table-writers N] [--table dynalite|stand-in] [--cpu-limit] [--kill-at S] [--out DIR]`:
 * the deployed ingest, run locally as Lambda runs it (issue 26, section 1: follow the head in AWS; issue 34: Base mode).
 *
 * - **Lambda**: the real handler module (functions/ingest/ingest-chain.ts) in local execution
 *   environments (lib/local-lambda.ts: a process each, kept warm, a new one when all are busy), each
 *   invocation with a context whose deadline is `--timeout` away and killed at it; invoked every
 *   `--schedule` seconds with the chain's event, overlapping invocations allowed, as the chain's
 *   EventBridge schedule does. The timeout and the schedule are shortened (AWS: 900 s and a minute;
 *   here 75 s and 25 s, with INGEST_SAFETY_MARGIN_MS and INGEST_HANDOVER_WAIT_MS scaled alike) so that
 *   the chain changes hands several times in a run. The block time is left to the ingest to observe.
 * - **Chain** (`--chain anvil`, the default): anvil, a block mined every `--block-seconds` (evm_mine on a
 *   beat, so a block's appearance at the node is known to the millisecond), `--txs-per-block` (10)
 *   native transfers in each.
 * - **Base mode** (`--chain base`): the bench's Base profile generator (dataset/base-profile.ts: DEX
 *   swaps, Zipf-concentrated tokens, OP deposits, Multicall3 at its canonical address) as the node,
 *   served over HTTP JSON-RPC with its head released on the beat (lib/released-chain.ts):
 *   `--txs-per-block` (200) transactions every 2 s, and one block of `--burst` (3,000) transactions at
 *   60 % of the schedule. No deposits (no orders on the generated chain). The ingest's environments get
 *   Lambda's CPU share of `--memory` (1,769 MB: one vCPU, what README tells the operator of a
 *   Base-sized chain to deploy) through a cgroup quota where the machine allows it (`--cpu-limit` does
 *   the same in anvil mode), and the table writer threads the stack gives that memory (INGEST_TABLE_WRITERS;
 *   `--table-writers N` for an A/B). Measured besides: the ingest's own CPU (and its main thread's), DynamoDB calls and node calls a
 *   transaction, the write units of the hottest partition scaled to 300 transactions a second (3x
 *   Base), the table process's CPU (dynalite inside the gateway process), and the burst's recovery:
 *   the blocks after it until one is shown within 2 blocks (budget: 10).
 * - **API and table**: the local API Gateway (scripts/lib/gateway.ts) in its own process
 *   (lib/gateway-process.ts), its embedded DynamoDB the table every function writes; **SSM**: a
 *   stand-in serving the RPC URL; **queue**: a stand-in for the SQS FIFO queue DepositEvents and its
 *   event source mapping (lib/local-sqs.ts: pollers long-polling, batches of up to the consumer's
 *   batchSize of shared/jobs.ts, one batch of a message group in flight, deleted only on success,
 *   failed records back after the visibility timeout), invoking the real deposit consumer
 *   (functions/orders/detect-deposits.ts) in a local execution environment of its own (a process,
 *   cold on the first batch, then kept warm), as Lambda invokes DetectDeposits.
 * - **Webhooks** (issue 37): the chain registered, a secret key created and webhooks on the chain's activity
 *   created through the webhooks domain (lib/lambda-webhooks.ts: anvil, every transfer by its senders; Base
 *   mode, USDC's Transfer events and the main router's transactions) for a receiver on 127.0.0.1; the ingest
 *   publishes to the FIFO WebhookEvents as deployed (WEBHOOK_EVENTS_QUEUE_URL), whose mapping invokes the real
 *   MatchWebhooks, which sends the deliveries to the standard WebhookDeliveries, whose mapping (5 pollers)
 *   invokes the real DeliverWebhooks, each in execution environments of its own; all three queues on one
 *   local SQS endpoint (lib/local-sqs.ts).
 * - **Chaos**: once, at `--kill-at` seconds into the schedule (default 30% of it) or as soon after as
 *   the holder is mid-follow, its environment is killed (SIGKILL), as a crash would end it; the lease
 *   stays until its ttl, the schedule's next invocations take over (lib/lambda-chaos.ts).
 * - **Deposits**: every `--deposit-every` seconds an AnySpend order (createOrder, native ETH on the
 *   anvil chain) and, at a random moment of the beat, its exact deposit sent to its deposit address.
 *
 * Measured:
 * - block-to-API lag: from a block's appearance at the node (evm_mine returned) to the first answer of
 *   GET /insights/v1/chains/{id}/status over HTTP from the local gateway (polled every 100 ms, as a user
 *   would) whose indexed head is at or past it; in seconds and in blocks (blocks mined meanwhile).
 *   Budget: p99 <= 2 blocks, over the blocks outside the chaos window (the window's blocks are reported
 *   apart, with the p99 over every block). Blocks mined before the first invocation had caught up are
 *   left out (the cold start of the whole service); a first invocation that does not catch up within a
 *   schedule period leaves out that period's blocks only.
 * - chaos recovery: how long the chain stayed unwritten, the lag spike, the blocks of the window; no
 *   block lost or repeated (the continuity checks below hold across the kill).
 * - deposit-to-detected: from eth_sendTransaction returning to the first read of the order (getOrder,
 *   polled every 100 ms) showing the deposit received. Budget: p99 <= 5 s, over the deposits whose block
 *   is outside the chaos window (those in it reported apart).
 * - webhook event-to-delivered: from an item's block released at the node to its first arrival at the
 *   receiver. Budget: p99 <= 5 s over the items of the measured blocks outside the chaos and burst windows;
 *   every written block's matching records delivered (counted against the chain), none outside its
 *   filter, every signature verified, nothing dead-lettered.
 * - handovers: each invocation's result (when it held the lease), the gaps between holders, overlaps, and the
 *   peak lag after each holder took the lease (whether it was its environment's first follow); every block's lag
 *   is in the JSON result (`lag.series`).
 * - no block lost or repeated: the table's blocks are 0..head, each the node's; the queue got each block
 *   exactly once, in order, each the child of the one before; the cursor never went back; each order one
 *   deposit.
 * - cost: billed Lambda time of the run, and the model of a deployed day (lib/lambda-cost.ts).
 *
 * Environment: BENCH_LAMBDA_CPU_PROF_DIR (a CPU profile of each ingest environment that ends idle) and
 * BENCH_LAMBDA_NODE_FLAGS (Node flags beyond the deployed ones): see extraNodeFlags.
 *
 * Writes bench/results/lambda-<time>.json and .md and lambda-latest.md. Not part of `npm test`.
 */
import { functionNodeOptions, tableWritersFor } from '../../lib/api-function';
import { readFileSync } from 'node:fs';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { createPublicClient, getAddress, http, keccak256, parseEther, slice, toBytes, toHex, type Address } from 'viem';
import { startAnvil, type Anvil } from '../lib/anvil';
import { ensureTable, localClient } from '../lib/local-table/ensure-table';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { consumers, DELIVERY_MAX_RECEIVES } from '../../shared/jobs';
import { startGatewayProcess, type GatewayProcess, type GatewayTable } from './lib/gateway-process';
import { AWS_LATENCY_MS } from './lib/stand-in/table';
import { type ChaosRecovery, chaosRecovery, pickHolder } from './lib/lambda-chaos';
import { type LambdaCost, lambdaCostPerChainPerDay, NODE_USD_PER_MILLION_CALLS, successorWaitSeconds } from './lib/lambda-cost';
import { type InvocationRecord, LocalLambda } from './lib/local-lambda';
import {
  benchWebhooks,
  LAMBDA_WEBHOOK_BUDGET_SECONDS,
  queueFigures,
  startWebhookReceiver,
  type TruthBlock,
  type WebhookFigures,
  type WebhookReceiver,
  webhookFigures,
} from './lib/lambda-webhooks';
import { LocalQueue, LocalSqs } from './lib/local-sqs';
import { type Percentiles, percentileOf, percentiles, round2 } from './lib/stages';
import { numberOption } from './lib/options';
import { serveReleasedChain, type ReleasedChainNode } from './lib/released-chain';
import { BaseChain } from './dataset/base-profile';
import { BASE_PROFILE_CHAIN, baseProfileSpec } from './dataset/spec';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const ANVIL_CHAIN_ID = 31337;
const RPC_PARAMETER = '/chain-data-api/rpc/31337';
export const LAMBDA_LAG_BUDGET_BLOCKS = 2;
export const LAMBDA_DEPOSIT_BUDGET_SECONDS = 5;
/** Base mode: blocks after the burst until the lag is back within LAMBDA_LAG_BUDGET_BLOCKS. */
export const LAMBDA_BURST_RECOVERY_BUDGET_BLOCKS = 10;
/** Base's average rate times three (issue 34's hot-partition target), transactions a second. */
const HOT_PARTITION_TARGET_TPS = 300;
/** Base's average rate (issue 34: 100-150 a second), transactions a day: the node's bill per chain is priced at it. */
const BASE_TRANSACTIONS_PER_DAY = 100 * 86_400;
const NATIVE = '0xEeeeeEeeeEeEeeEeEeEeeEEEeeeeEeeeeeeeEEeE';
const MAINNET_USDC = '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48';
/** The deployed settings the cost model is for (lib/: one function, arm64, 900 s, a schedule a minute; INGEST_* defaults). */
const DEPLOYED = {
  memoryMb: 512,
  architecture: 'arm64',
  scheduleSeconds: 60,
  timeoutSeconds: 900,
  safetyMarginSeconds: 60,
  handoverWaitSeconds: 75,
  leaseTtlSeconds: 10,
} as const;
const DEPOSIT_CONSUMER = consumers.find((consumer) => consumer.id === 'DetectDeposits')!;
const MATCH_CONSUMER = consumers.find((consumer) => consumer.id === 'MatchWebhooks')!;
const DELIVERY_CONSUMER = consumers.find((consumer) => consumer.id === 'DeliverWebhooks')!;
/** Lambda's pollers of a standard queue at first (it adds more as the queue fills). */
const STANDARD_QUEUE_POLLERS = 5;
const USAGE =
  'usage: npm run bench:lambda [-- --chain anvil|base] [--duration S] [--timeout S] [--schedule S] [--safety-margin S] [--block-seconds S] [--txs-per-block N] [--burst N] [--deposit-every S] [--memory MB] [--table-writers N] [--table dynalite|stand-in] [--cpu-limit] [--kill-at S] [--out DIR]';

type Call = (method: string, params?: unknown[]) => Promise<unknown>;

interface Options {
  chain: 'anvil' | 'base';
  /** Base mode: transactions of the one burst block (0: none). */
  burstTransactions: number;
  /** Each ingest environment limited to Lambda's CPU share of memoryMb (local-lambda.ts). */
  limitCpu: boolean;
  durationSeconds: number;
  timeoutSeconds: number;
  scheduleSeconds: number;
  safetyMarginSeconds: number;
  handoverWaitSeconds: number;
  blockSeconds: number;
  txsPerBlock: number;
  depositEverySeconds: number;
  memoryMb: number;
  /** Seconds into the schedule from which the holder is killed once (0: no chaos). */
  killAtSeconds: number;
  /** INGEST_TABLE_WRITERS of the ingest's environments (default: the stack's rule for the memory). */
  tableWriters: number;
  /**
   * The table: dynalite (the default), or the stand-in (lib/stand-in/table.ts: AWS's latency, its work a
   * fraction of dynalite's), which issue 34 allows only where dynalite itself is the bottleneck.
   */
  table: GatewayTable;
  /** The deposit queue's visibility timeout: the deployed 6 x the consumer's timeout, shortened as the ingest's timeout is. */
  visibilityTimeoutSeconds: number;
  out: string;
}

function parseOptions(argv: string[] = process.argv.slice(2)): Options | undefined {
  const { values } = parseArgs({
    args: argv,
    options: {
      duration: { type: 'string', default: '240' },
      timeout: { type: 'string', default: '75' },
      schedule: { type: 'string', default: '25' },
      'safety-margin': { type: 'string', default: '10' },
      'block-seconds': { type: 'string', default: '2' },
      chain: { type: 'string', default: 'anvil' },
      'txs-per-block': { type: 'string' },
      burst: { type: 'string' },
      'deposit-every': { type: 'string', default: '6' },
      memory: { type: 'string' },
      'cpu-limit': { type: 'boolean', default: false },
      'kill-at': { type: 'string' },
      'table-writers': { type: 'string' },
      table: { type: 'string', default: 'dynalite' },
      out: { type: 'string', default: path.join(ROOT, 'bench', 'results') },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    console.log(USAGE);
    return undefined;
  }
  const number = numberOption(USAGE);
  const timeoutSeconds = number('timeout', values.timeout, 10);
  const scheduleSeconds = number('schedule', values.schedule, 2);
  const safetyMarginSeconds = number('safety-margin', values['safety-margin'], 1);
  if (safetyMarginSeconds >= timeoutSeconds) throw new Error(`--safety-margin must be less than --timeout\n${USAGE}`);
  const durationSeconds = number('duration', values.duration, 20);
  const chain = values.chain;
  if (chain !== 'anvil' && chain !== 'base') throw new Error(`--chain must be anvil or base\n${USAGE}`);
  const base = chain === 'base';
  if (values.table !== 'dynalite' && values.table !== 'stand-in') throw new Error(`--table must be dynalite or stand-in\n${USAGE}`);
  return {
    chain,
    table: values.table,
    burstTransactions: base ? Math.round(number('burst', values.burst ?? '3000', 0)) : 0,
    limitCpu: base || values['cpu-limit'] === true,
    durationSeconds,
    killAtSeconds: values['kill-at'] === undefined ? Math.round(durationSeconds * 0.3) : number('kill-at', values['kill-at'], 0),
    visibilityTimeoutSeconds: Math.round(6 * DEPOSIT_CONSUMER.timeoutSeconds * (timeoutSeconds / DEPLOYED.timeoutSeconds) * 10) / 10,
    timeoutSeconds,
    scheduleSeconds,
    safetyMarginSeconds,
    // As deployed: one schedule period and some slack (75 s for a minute).
    handoverWaitSeconds: scheduleSeconds + Math.max(2, scheduleSeconds / 4),
    blockSeconds: number('block-seconds', values['block-seconds'], 0.5),
    txsPerBlock: Math.round(number('txs-per-block', values['txs-per-block'] ?? (base ? '200' : '10'), base ? 2 : 0)),
    depositEverySeconds: number('deposit-every', values['deposit-every'], 1),
    memoryMb: Math.round(number('memory', values.memory ?? (base ? '1769' : '512'), 128)),
    tableWriters: Math.round(
      number('table-writers', values['table-writers'] ?? String(tableWritersFor(Number(values.memory ?? (base ? 1769 : 512)))), 0),
    ),
    out: path.resolve(values.out),
  };
}

/** A stand-in for SSM GetParameter: every parameter is a SecureString holding `value`. */
async function startSsm(value: string): Promise<{ endpoint: string; requests: number; close(): Promise<void> }> {
  const state = { requests: 0 };
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      state.requests += 1;
      const body = JSON.parse(Buffer.concat(chunks).toString() || '{}') as { Name?: string };
      response.writeHead(200, { 'content-type': 'application/x-amz-json-1.1' });
      response.end(JSON.stringify({ Parameter: { Name: body.Name, Type: 'SecureString', Value: value, Version: 1 } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    get requests() {
      return state.requests;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

interface MinedBlock {
  number: number;
  minedAt: number;
  hash: string;
  /** The block's own timestamp, Unix seconds. */
  timestamp: number;
}

interface Deposit {
  orderId: string;
  address: Address;
  amount: bigint;
  sentAt: number;
  hash: string;
  detectedAt: number | null;
  blockNumber: number | null;
}

export interface LambdaFollowResult {
  date: string;
  machine: { cpus: number; cpuModel: string; node: string };
  settings: Options & {
    eventBlockTimeMs: 'observed by the ingest';
    leaseTtlMs: number;
    deployed: typeof DEPLOYED;
    extraNodeFlags?: string | null;
  };
  outcome: string;
  chain: {
    /** `anvil` (native transfers) or `base` (the Base profile generator over HTTP JSON-RPC). */
    profile: 'anvil' | 'base';
    transactionsPerBlock: number;
    blocks: number;
    firstMeasured: number | null;
    head: number;
    transactions: number;
    minedIntervalSeconds: { p50: number | null; max: number | null };
  };
  lag: {
    measuredBlocks: number;
    blocks: Percentiles;
    seconds: Percentiles;
    /** From the block's own timestamp (whole seconds) to the API showing it. */
    fromTimestampSeconds: Percentiles;
    notShown: number;
    /** The figures above leave out the chaos window's blocks; these take every measured block. */
    /** Every measured block shown: [number, mined at, shown at (ms since the epoch), lag in blocks] (where the lag's spikes fall). */
    series: [number, number, number, number][];
    withChaosWindow: {
      measuredBlocks: number;
      blocks: Percentiles;
      seconds: Percentiles;
    };
    /** How the API was read: GET /insights/v1/chains/{id}/status over HTTP from the local gateway. */
    api: { route: string; requests: number; notOk: number };
  };
  deposits: {
    sent: number;
    detected: number;
    seconds: Percentiles;
    /** From the deposit's block appearing at the node to the order showing it. */
    fromBlockSeconds: Percentiles;
    depositItemsPerOrder: { min: number | null; max: number | null };
    /** Deposits whose block fell in the chaos window: left out of `seconds`, reported here. */
    inChaosWindow: { count: number; seconds: Percentiles };
    /** The queue's event source mapping and the consumer's execution environment (lib/local-sqs.ts). */
    queue: {
      pollers: number;
      batchSize: number;
      visibilityTimeoutSeconds: number;
      receives: number;
      emptyReceives: number;
      batches: number;
      messagesPerBatch: { p50: number | null; max: number | null };
      /** From a batch's first message sent to its poll returning, ms. */
      sendToReceiveMs: Percentiles;
      /** The consumer's invocation (DetectDeposits in its own environment), ms. */
      invocationMs: Percentiles;
      consumerInvocations: number;
      consumerColdStarts: number;
      consumerInitMs: number | null;
      consumerBilledSeconds: number;
    };
  };
  /**
   * Base mode's burst: one block of `transactions` at `block`; `recoveryBlocks` the blocks after it
   * until one is shown within the lag budget (null: never in the run). Its window (the burst block to
   * the one before the recovered) is left out of `lag` as the chaos window is, and reported here.
   */
  burst: {
    transactions: number;
    block: number;
    recoveryBlocks: number | null;
    budgetBlocks: number;
    lagBlocks: Percentiles;
    windowBlocks: number[];
  } | null;
  /**
   * Webhooks (issue 37): the run's webhooks delivered by the real MatchWebhooks and DeliverWebhooks
   * through local queues to a receiver on 127.0.0.1; each item's delay from its block's appearance at the
   * node to its first delivery (budget: p99 <= 5 s), and what arrived against the chain's truth.
   */
  webhooks: WebhookFigures;
  /**
   * The ingest environments' peak resident memory (Lambda's Max Memory Used), MB, over the run: the
   * burst's block included in Base mode (a block's items are all in memory until written).
   */
  ingestPeakRssMb: number | null;
  /** The ingest's own process CPU (every invocation, user + system) over the transactions it wrote, ms. */
  ingestCpuMsPerTransaction: number | null;
  /** The main thread's part of it (the rest: the table writers, INGEST_TABLE_WRITERS, and V8's helper threads). */
  ingestMainThreadCpuMsPerTransaction: number | null;
  /** Table writer threads of each environment (INGEST_TABLE_WRITERS, the stack's rule for the memory). */
  tableWriters: number;
  /** CPU the harness's own recording of the table calls took in the environments, left out of the above (lib/lambda-measure.ts). */
  measuringCpuMsPerTransaction: number | null;
  /** The environments' main-thread garbage-collection pauses a transaction (ms), by kind (scavenges; mark-compacts; the rest). */
  gcPauseMsPerTransaction: { minor: number | null; major: number | null; other: number | null };
  /** DynamoDB calls of the ingest's table client over the transactions it wrote; and by command. */
  dynamodbCallsPerTransaction: number | null;
  dynamodbCallsByCommand: Record<string, number>;
  /** Calls the node answered (a batch's entries each) over the transactions written (Base mode only); and by method. */
  nodeCallsPerTransaction: number | null;
  nodeCallsByMethod: Record<string, number>;
  /** The node's bill per chain per day at Base's average rate and a named price per call (Base mode). */
  nodeBillPerChainPerDay: { transactionsPerDay: number; usdPerMillionCalls: number; calls: number; usd: number } | null;
  /** The partition key with the most write units, scaled to 300 transactions a second (3x Base); limit 1,000. */
  hottestPartitionWriteUnitsPerSecondAt3xBase: number | null;
  hottestPartitions: { key: string; writeUnitsPerTransaction: number; writeUnitsPerSecondAt3xBase: number }[];
  /** The table: dynalite (or the stand-in) in the gateway's process; its CPU over the run (whether the table, not the ingest, is the bottleneck). */
  table: { kind: string; cpuSeconds: number; cpuShareOfRun: number | null };
  /** How the ingest's environments were limited in CPU (Lambda's share of their memory size). */
  cpuLimit: { by: 'cgroup'; vcpus: number } | { by: 'none'; why: string };
  transactionsIngested: number;
  /** The holder killed mid-follow (null: no chaos in this run, or no holder found to kill). */
  chaos: (ChaosRecovery & { killedAfterSeconds: number; noBlockLostOrRepeated: boolean }) | null;
  invocations: {
    total: number;
    coldStarts: number;
    followed: number;
    skipped: number;
    tookOver: number;
    /** Killed by the chaos (not failures of the handler). */
    killed: number;
    errors: string[];
    timeouts: number;
    handovers: number;
    handoverGapMs: { p50: number | null; max: number | null };
    /** Each holder in turn: whether it was its environment's first follow, and the peak lag of the blocks mined in the 20 s after it took the lease (chaos and burst windows aside). */
    takeovers: {
      id: string;
      container: number;
      firstFollowOfEnvironment: boolean;
      heldFrom: number;
      blocksAfter: number;
      peakLagBlocks: number | null;
    }[];
    overlaps: number;
    mostActiveAtOnce: number;
    skippedSeconds: { p50: number | null; max: number | null };
    initMs: { p50: number | null; max: number | null };
    perInvocation: {
      id: string;
      /** The execution environment it ran in (local-lambda.ts: a new one is a cold start). */
      container: number;
      role: string | null;
      startedAt: number;
      seconds: number;
      heldSeconds: number | null;
      /** When it took the lease (ms since the epoch), if it did. */
      heldFrom: number | null;
      advanced: number | null;
      waitedMs: number | null;
      reason: string | null;
    }[];
  };
  continuity: {
    tableBlocks: { count: number; expected: number; missing: number[]; wrongHash: number[] };
    queue: {
      messages: number;
      deduplicated: number;
      blocksPublished: number;
      duplicates: number[];
      missing: number[];
      outOfOrder: number;
      brokenLinks: number;
      deadLetters: number;
      failedRecords: number;
    };
    cursorWentBack: number;
    cursorAtEnd: number | null;
    /**
     * Blocks mined past the cursor when the run ended (a follower slower than its chain): not lost, not
     * yet written. `tableBlocks.missing` and `queue.missing` list only blocks at or below the cursor.
     */
    behindAtEnd: number;
    /** Nothing lost, repeated, out of order or wrong (the blocks behind at the end are the lag's, not continuity's). */
    pass: boolean;
  };
  cost: {
    run: { wallSeconds: number; billedSeconds: number; gbSeconds: number; usd: number; lambdaSecondsPerSecond: number };
    /** The same model with the harness's own timing, against what the run billed (a check of the model). */
    modelAtHarnessTiming: LambdaCost;
    /** Measured Lambda-seconds per second over the model's at the harness timing. */
    measuredOverModel: number | null;
    deployed: LambdaCost;
  };
  budget: {
    p99LagBlocks: number;
    p99DepositSeconds: number | null;
    burstRecoveryBlocks: number | null;
    p99WebhookSeconds: number;
    pass: boolean;
  };
}

/** A process's CPU time so far (user + system), seconds, from /proc (0 where there is none). */
function processCpuSeconds(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    // utime and stime are fields 14 and 15 of the line (11 and 12 after the name), in clock ticks (100 a second).
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return 0;
  }
}

/**
 * Flags the ingest's environments get beyond the deployed ones: a CPU profile with
 * BENCH_LAMBDA_CPU_PROF_DIR (each environment that ends idle writes one there), and
 * BENCH_LAMBDA_NODE_FLAGS (an experiment). A result that ran with any says so (`settings.extraNodeFlags`),
 * and the bench's cost model does not take it.
 */
function extraNodeFlags(): string[] {
  return [
    ...(process.env.BENCH_LAMBDA_CPU_PROF_DIR ? [`--cpu-prof --cpu-prof-dir=${process.env.BENCH_LAMBDA_CPU_PROF_DIR}`] : []),
    ...(process.env.BENCH_LAMBDA_NODE_FLAGS ? [process.env.BENCH_LAMBDA_NODE_FLAGS] : []),
  ];
}

async function main(): Promise<void> {
  const options = parseOptions();
  if (!options) return;
  const tableName = `bench-lambda-${Date.now()}`;
  let gateway: GatewayProcess | undefined;
  let anvil: Anvil | undefined;
  let baseChain: BaseChain | undefined;
  let baseNode: ReleasedChainNode | undefined;
  let ssm: Awaited<ReturnType<typeof startSsm>> | undefined;
  let sqs: LocalSqs | undefined;
  let queue: LocalQueue | undefined;
  let webhookEvents: LocalQueue | undefined;
  let webhookDeliveries: LocalQueue | undefined;
  let lambda: LocalLambda | undefined;
  let depositLambda: LocalLambda | undefined;
  let matchLambda: LocalLambda | undefined;
  let deliverLambda: LocalLambda | undefined;
  let receiver: WebhookReceiver | undefined;
  const log = (line: string) => console.error(line);
  try {
    const common = {
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: process.env.AWS_ACCESS_KEY_ID ?? 'local',
      AWS_SECRET_ACCESS_KEY: process.env.AWS_SECRET_ACCESS_KEY ?? 'local',
      ORDER_CHAINS: '1,31337',
      POWERTOOLS_LOG_LEVEL: process.env.POWERTOOLS_LOG_LEVEL ?? 'ERROR',
      POWERTOOLS_METRICS_DISABLED: 'true',
    };
    gateway = await startGatewayProcess(tableName, common, { table: options.table });
    const table = { endpoint: gateway.dynamodbEndpoint };
    Object.assign(process.env, { ...common, DYNAMODB_ENDPOINT: table.endpoint, TABLE_NAME: tableName });
    const admin = localClient(table.endpoint);
    await ensureTable(admin, tableName);
    admin.destroy();
    const { readCursor } = await import('../../shared/ingest/manifest');
    const { createOrder, getOrder } = await import('../../shared/orders/orders');
    const { loadOrderConfig } = await import('../../shared/orders/config');
    const { createOrderBodySchema } = await import('../../shared/orders/schemas');
    const { queryAll, rangeQuery } = await import('../../shared/db/operations');
    const { blockKeys, orderKeys } = await import('../../shared/table/keys');
    const { decodeListenerMessage } = await import('../../shared/ingest/queue-messages');
    const v = await import('valibot');
    const orderConfig = loadOrderConfig();
    const orderSchema = createOrderBodySchema(orderConfig);

    // The chain: anvil, or (Base mode) the Base profile's blocks generated up front and released on the beat.
    const CHAIN_ID = options.chain === 'base' ? BASE_PROFILE_CHAIN : ANVIL_CHAIN_ID;
    let rpcUrl: string;
    let burstBlock: number | null = null;
    if (options.chain === 'base') {
      // Enough blocks for the warm-up, the schedule and the last holders' runs past it.
      const blocks = 5 + Math.ceil((options.durationSeconds + options.timeoutSeconds) / options.blockSeconds) + 10;
      if (options.burstTransactions > 0) burstBlock = 5 + Math.round((options.durationSeconds * 0.6) / options.blockSeconds);
      const t0 = performance.now();
      baseChain = new BaseChain(
        baseProfileSpec({
          blocks,
          transactionsPerBlock: options.txsPerBlock,
          ...(burstBlock !== null ? { burst: { block: burstBlock, transactions: options.burstTransactions } } : {}),
        }),
      );
      baseNode = await serveReleasedChain(baseChain);
      rpcUrl = baseNode.url;
      log(
        `Base profile: ${baseChain.counts.transactions} transactions in ${baseChain.head} blocks generated in ${((performance.now() - t0) / 1000).toFixed(1)} s${burstBlock !== null ? `; block ${burstBlock} holds ${options.burstTransactions}` : ''}`,
      );
    } else {
      anvil = await startAnvil({ chainId: CHAIN_ID });
      rpcUrl = anvil.rpcUrl;
    }
    const rpc = createPublicClient({ transport: http(rpcUrl, { batch: { batchSize: 1_000, wait: 0 }, timeout: 60_000 }) });
    const call: Call = (method, params = []) =>
      (rpc.request as (args: { method: string; params: unknown[] }) => Promise<unknown>)({ method, params });
    if (anvil) await call('evm_setAutomine', [false]);
    const accounts = anvil ? ((await call('eth_accounts')) as Address[]).map((account) => getAddress(account)) : [];
    const nonces = new Map<Address, number>();
    for (const account of accounts) nonces.set(account, Number(await call('eth_getTransactionCount', [account, 'pending'])));
    const send = (from: Address, to: Address, value: bigint): Promise<string> => {
      const nonce = nonces.get(from) ?? 0;
      nonces.set(from, nonce + 1);
      return call('eth_sendTransaction', [
        {
          from,
          to,
          value: toHex(value),
          gas: toHex(21_000),
          nonce: toHex(nonce),
          maxFeePerGas: toHex(50_000_000_000n),
          maxPriorityFeePerGas: toHex(1_000_000_000n),
        },
      ]) as Promise<string>;
    };
    const recipients = Array.from({ length: 50 }, (_, i) => getAddress(slice(keccak256(toBytes(`lambda bench recipient ${i}`)), 12)));

    ssm = await startSsm(rpcUrl);
    // DetectDeposits as Lambda runs it: its own execution environment, invoked by the queue's pollers.
    // A queue consumer's execution environments, as its row of shared/jobs.ts deploys it.
    const environmentOf = (consumer: (typeof consumers)[number], env: Record<string, string>) =>
      new LocalLambda({
        handler: consumer.handler,
        functionName: consumer.id,
        timeoutMs: consumer.timeoutSeconds * 1000,
        // (512: the stack's DEFAULT_JOB_MEMORY_SIZE, lib/service-stack.ts.)
        memoryMb: consumer.memorySize ?? 512,
        env,
      });
    depositLambda = environmentOf(DEPOSIT_CONSUMER, {
      ...common,
      DYNAMODB_ENDPOINT: table.endpoint,
      TABLE_NAME: tableName,
      POWERTOOLS_LOG_LEVEL: 'WARN',
    });
    const consumer = depositLambda;
    // One SQS endpoint for the three queues (the ingest publishes to two through one client).
    sqs = new LocalSqs();
    await sqs.start();
    const invoking =
      (environment: LocalLambda) =>
      async (sqsEvent: SQSEvent): Promise<SQSBatchResponse> => {
        const record = await environment.invoke(sqsEvent);
        if (record.outcome !== 'result') throw new Error(`${record.id} ${record.outcome}: ${record.error}`);
        return record.result as SQSBatchResponse;
      };
    queue = new LocalQueue({
      consumer: invoking(consumer),
      batchSize: DEPOSIT_CONSUMER.batchSize,
      maxReceiveCount: 5,
      visibilityTimeoutMs: options.visibilityTimeoutSeconds * 1000,
    });
    sqs.add('DepositEvents.fifo', queue);

    // Webhooks (issue 37): webhooks on the chain's activity, the receiver they POST to, and the two
    // consumers between (MatchWebhooks on the FIFO WebhookEvents, DeliverWebhooks on the standard
    // WebhookDeliveries), each in execution environments of its own as Lambda runs them.
    // (A webhook names indexed chains only: the chain's registry entry, as its first ingest writes it.)
    const { registerChain } = await import('../../shared/ingest/ingest');
    await registerChain(CHAIN_ID, 0);
    const { TOPIC } = await import('../../shared/chain/abis');
    const { createApiKey } = await import('../../shared/insights/api-keys');
    const { createWebhook } = await import('../../shared/insights/webhooks');
    const { loadWebhookSettings } = await import('../../shared/insights/webhook-config');
    const hooks = benchWebhooks({
      chainId: CHAIN_ID,
      anvilSenders: anvil ? accounts.slice(1) : null,
      base: baseChain
        ? {
            usdc: baseChain.tokens.find((token) => token.symbol === 'USDC')!.address,
            router: baseChain.router,
            transferTopic: TOPIC.transfer,
          }
        : null,
    });
    const secrets = new Map<string, string>();
    receiver = await startWebhookReceiver(secrets);
    const hookKey = (await createApiKey({ project: 'bench' })).key;
    const hookSettings = loadWebhookSettings({ ...process.env, WEBHOOK_ALLOW_LOOPBACK: '1' });
    const createdHooks: { id: string; hook: (typeof hooks)[number] }[] = [];
    for (const hook of hooks) {
      const webhook = await createWebhook(hookKey, { name: hook.name, webhook_url: receiver.url, filters: hook.filters }, hookSettings);
      secrets.set(webhook.id, webhook.webhook_secret);
      createdHooks.push({ id: webhook.id, hook });
    }
    log(`webhooks: ${hooks.map((hook) => hook.describe).join('; ')} -> ${receiver.url}`);
    const webhookEnv = {
      ...common,
      DYNAMODB_ENDPOINT: table.endpoint,
      TABLE_NAME: tableName,
      AWS_ENDPOINT_URL_SQS: sqs.endpoint,
      WEBHOOK_DELIVERIES_QUEUE_URL: `${sqs.endpoint}/000000000000/WebhookDeliveries`,
      // (The receiver is on 127.0.0.1, allowed against a local table only.)
      WEBHOOK_ALLOW_LOOPBACK: '1',
      POWERTOOLS_LOG_LEVEL: 'WARN',
    };
    matchLambda = environmentOf(MATCH_CONSUMER, webhookEnv);
    deliverLambda = environmentOf(DELIVERY_CONSUMER, webhookEnv);
    webhookEvents = sqs.add(
      'WebhookEvents.fifo',
      new LocalQueue({
        consumer: invoking(matchLambda),
        batchSize: MATCH_CONSUMER.batchSize,
        maxReceiveCount: 5,
        visibilityTimeoutMs: options.visibilityTimeoutSeconds * 1000,
      }),
    );
    webhookDeliveries = sqs.add(
      'WebhookDeliveries',
      new LocalQueue({
        fifo: false,
        consumer: invoking(deliverLambda),
        batchSize: DELIVERY_CONSUMER.batchSize,
        pollers: STANDARD_QUEUE_POLLERS,
        maxReceiveCount: DELIVERY_MAX_RECEIVES,
        visibilityTimeoutMs: 6 * DELIVERY_CONSUMER.timeoutSeconds * 1000,
      }),
    );
    lambda = new LocalLambda({
      handler: 'functions/ingest/ingest-chain.ts',
      functionName: 'IngestChain',
      timeoutMs: options.timeoutSeconds * 1000,
      memoryMb: options.memoryMb,
      limitCpu: options.limitCpu,
      env: {
        // Each invocation's CPU, DynamoDB calls and write heat (lib/lambda-measure.ts).
        BENCH_MEASURE: '1',
        // As the stack deploys IngestChain: a young generation sized to its memory.
        // With BENCH_LAMBDA_CPU_PROF_DIR: each environment that ends idle writes a CPU profile there;
        // BENCH_LAMBDA_NODE_FLAGS: flags added to the deployed ones (an experiment, said in the result).
        NODE_OPTIONS: [functionNodeOptions(options.memoryMb, { youngGeneration: true }), ...extraNodeFlags()].join(' '),
        // And its table writers: one less than the vCPUs of its memory (none at 1,769 MB), or --table-writers.
        INGEST_TABLE_WRITERS: String(options.tableWriters),
        DYNAMODB_ENDPOINT: table.endpoint,
        TABLE_NAME: tableName,
        AWS_ENDPOINT_URL_SSM: ssm.endpoint,
        AWS_ENDPOINT_URL_SQS: sqs.endpoint,
        DEPOSIT_EVENTS_QUEUE_URL: queue.queueUrl,
        WEBHOOK_EVENTS_QUEUE_URL: webhookEvents.queueUrl,
        INGEST_SAFETY_MARGIN_MS: String(options.safetyMarginSeconds * 1000),
        INGEST_HANDOVER_WAIT_MS: String(Math.round(options.handoverWaitSeconds * 1000)),
        INGEST_LEASE_TTL_MS: String(DEPLOYED.leaseTtlSeconds * 1000),
        POWERTOOLS_LOG_LEVEL: 'WARN',
      },
      onInvocation: (record) => {
        const result = record.result as { role?: string; advanced?: number; reason?: string } | undefined;
        log(
          `${record.id}: ${record.outcome === 'result' ? `${result?.role} (${result?.advanced} blocks; ${result?.reason})` : `${record.outcome}: ${record.error}`} after ${((record.endedAt - record.startedAt) / 1000).toFixed(1)} s`,
        );
      },
    });
    const event = { chainId: CHAIN_ID, rpcUrlParameter: RPC_PARAMETER };

    // The chain: a block on every beat, the next block's transfers sent right after.
    const mined: MinedBlock[] = [];
    const beatMs = options.blockSeconds * 1000;
    let stopMining = false;
    let transactions = 0;
    const sendTransfers = async () => {
      if (!anvil) return;
      const sends: Promise<string>[] = [];
      for (let i = 0; i < options.txsPerBlock; i += 1) {
        const from = accounts[1 + ((transactions + i) % (accounts.length - 1))]!;
        sends.push(send(from, recipients[(transactions + i) % recipients.length]!, parseEther('0.001') * BigInt(1 + (i % 7))));
      }
      transactions += sends.length;
      await Promise.all(sends);
    };
    const mining = (async () => {
      const t0 = Date.now() + beatMs;
      let sending = sendTransfers();
      for (let index = 0; !stopMining; index += 1) {
        await sending;
        const wait = t0 + index * beatMs - Date.now();
        if (wait > 0) await sleep(wait);
        if (stopMining) break;
        if (baseNode && baseChain) {
          const number = baseNode.head + 1;
          const block = baseChain.blocks[number];
          if (!block) throw new Error(`the Base profile's ${baseChain.head} blocks ran out (a longer run needs more)`);
          baseNode.release(number);
          mined.push({ number, minedAt: Date.now(), hash: block.hash, timestamp: block.timestamp });
          transactions += block.txs.length;
          continue;
        }
        await call('evm_mine');
        const minedAt = Date.now();
        const head = (await call('eth_getBlockByNumber', ['latest', false])) as { number: string; hash: string; timestamp: string };
        mined.push({ number: Number(head.number), minedAt, hash: head.hash.toLowerCase(), timestamp: Number(head.timestamp) });
        sending = sendTransfers();
      }
      await sending;
    })();

    // The API side: the chain's status over HTTP from the gateway, and the pending orders, every 100 ms.
    const shownAt = new Map<number, number>();
    const cursors: number[] = [];
    const deposits: Deposit[] = [];
    const statusUrl = `${gateway.urls.base}/insights/v1/chains/${CHAIN_ID}/status`;
    const api = { requests: 0, notOk: 0 };
    let polling = true;
    const poll = async () => {
      api.requests += 1;
      const response = await fetch(statusUrl);
      const body = (await response.json().catch(() => null)) as { data?: { indexed_head?: { block_number?: number } | null } } | null;
      const at = Date.now();
      if (!response.ok && shownAt.size > 0) api.notOk += 1;
      const head = response.ok ? body?.data?.indexed_head?.block_number : undefined;
      if (head !== undefined) {
        if (cursors.at(-1) !== head) cursors.push(head);
        for (let number = head; number >= 0 && !shownAt.has(number); number -= 1) shownAt.set(number, at);
      }
      await Promise.all(
        deposits
          .filter((deposit) => deposit.detectedAt === null)
          .map(async (deposit) => {
            const order = await getOrder(deposit.orderId);
            if (order.receivedDepositAt !== null && order.receivedDepositAt !== undefined) deposit.detectedAt = Date.now();
          }),
      );
    };
    const polls = (async () => {
      while (polling) {
        const started = Date.now();
        await poll().catch((error: unknown) => log(`API poll failed: ${(error as Error).message}`));
        await sleep(Math.max(0, 100 - (Date.now() - started)));
      }
    })();

    // Warm-up: a few blocks before the schedule starts, so the chain has a block interval to observe.
    while (mined.length < 5) await sleep(100);
    const tableCpuAtStart = processCpuSeconds(gateway.pid);
    log(
      `${anvil ? 'anvil' : 'Base profile node'} ${rpcUrl}: ${mined.length} blocks on a ${options.blockSeconds} s beat; schedule: an invocation every ${options.scheduleSeconds} s (timeout ${options.timeoutSeconds} s) for ${options.durationSeconds} s`,
    );
    const scheduleStart = Date.now();
    const scheduleEnd = scheduleStart + options.durationSeconds * 1000;
    const invocations: Promise<InvocationRecord>[] = [];
    const schedule = (async () => {
      for (let tick = 0; ; tick += 1) {
        const at = scheduleStart + tick * options.scheduleSeconds * 1000;
        if (at >= scheduleEnd) break;
        await sleep(Math.max(0, at - Date.now()));
        invocations.push(lambda!.invoke(event));
      }
    })();

    // Chaos: once, the holder's environment killed mid-follow (as a crash would end it).
    const holdMs = (options.timeoutSeconds - options.safetyMarginSeconds) * 1000;
    const ownWaitMs =
      successorWaitSeconds({
        timeoutSeconds: options.timeoutSeconds,
        safetyMarginSeconds: options.safetyMarginSeconds,
        scheduleSeconds: options.scheduleSeconds,
        maxWaitSeconds: options.handoverWaitSeconds,
      }) * 1000;
    let kill: { invocation: string; at: number } | undefined;
    const chaos = (async () => {
      if (options.killAtSeconds <= 0) return;
      await sleep(options.killAtSeconds * 1000);
      while (!kill && Date.now() < scheduleEnd) {
        const holder = pickHolder(lambda!.inFlight(), Date.now(), {
          holdMs,
          ownWaitMs,
          handoverWaitMs: options.handoverWaitSeconds * 1000,
        });
        if (holder && lambda!.kill(holder.id)) {
          kill = { invocation: holder.id, at: Date.now() };
          log(`chaos: killed ${holder.id} (SIGKILL) after ${((kill.at - holder.startedAt) / 1000).toFixed(1)} s of its run`);
        } else await sleep(200);
      }
    })();

    // Deposits: an order, then its exact amount at a random moment of a beat.
    const depositing = (async () => {
      if (!anvil) return; // (Base mode: no orders on the generated chain)
      await sleep(options.scheduleSeconds * 1000);
      let index = 0;
      while (Date.now() < scheduleEnd - 10_000) {
        index += 1;
        const amount = parseEther('0.01') + BigInt(index);
        const body = {
          type: 'swap',
          recipientAddress: recipients[index % recipients.length],
          srcChain: CHAIN_ID,
          dstChain: 1,
          srcTokenAddress: NATIVE,
          dstTokenAddress: MAINNET_USDC,
          srcAmount: amount.toString(),
          payload: { expectedDstAmount: '24900000' },
          metadata: {
            srcToken: { chainId: CHAIN_ID, address: NATIVE, symbol: 'ETH', name: 'Ether', decimals: 18 },
            dstToken: { chainId: 1, address: MAINNET_USDC, symbol: 'USDC', name: 'USD Coin', decimals: 6 },
          },
          clientReferenceId: `lambda-bench-${index}`,
        };
        const created = await createOrder(v.parse(orderSchema, body), { config: orderConfig, sourceIp: '127.0.0.1' });
        if (!created.created) throw new Error('an order was not created');
        await sleep(Math.random() * beatMs);
        const hash = await send(accounts[0]!, created.value.globalAddress as Address, amount);
        deposits.push({
          orderId: created.value.id,
          address: created.value.globalAddress as Address,
          amount,
          sentAt: Date.now(),
          hash,
          detectedAt: null,
          blockNumber: null,
        });
        await sleep(options.depositEverySeconds * 1000 * (0.5 + Math.random()));
      }
    })();

    await Promise.all([schedule, depositing, chaos]);
    log('schedule over: no new invocation; the chain stops once the last ones have handed over');
    stopMining = true;
    await mining;
    const lastBlock = mined.at(-1)!.number;
    await lambda.drain();
    await queue.drain();
    await depositLambda.drain();
    await webhookEvents.drain();
    await matchLambda.drain();
    await webhookDeliveries.drain(60_000);
    await deliverLambda.drain();
    // (Before the harness's own reads of the node and the table below.)
    const tableCpuSeconds = processCpuSeconds(gateway.pid) - tableCpuAtStart;
    const nodeCalls = baseNode ? new Map(baseNode.calls) : null;
    // The last reads.
    const drainUntil = Date.now() + 10_000;
    while (Date.now() < drainUntil && (!shownAt.has(lastBlock) || deposits.some((deposit) => deposit.detectedAt === null)))
      await sleep(200);
    polling = false;
    await polls;
    const endedAt = Date.now();

    // Deposits' blocks.
    for (const deposit of deposits) {
      const receipt = (await call('eth_getTransactionReceipt', [deposit.hash])) as { blockNumber: string } | null;
      deposit.blockNumber = receipt ? Number(receipt.blockNumber) : null;
    }

    // Continuity: the table's blocks, the queue's blocks, the cursor.
    const stored = (await queryAll<{ number: number; hash: string }>(rangeQuery(blockKeys.blocksRange(CHAIN_ID)))).items;
    const storedNumbers = new Map(stored.map((block) => [Number(block.number), String(block.hash).toLowerCase()]));
    const nodeHashes = new Map<number, string>();
    // (The blocks' transactions too, in anvil mode: the webhooks' truth. Base mode reads the generator's.)
    const truthBlocks = new Map<number, TruthBlock>();
    for (let number = 0; number <= lastBlock; number += 1) {
      const block = (await call('eth_getBlockByNumber', [toHex(number), anvil !== undefined])) as {
        hash: string;
        transactions: (string | { from: string; to: string | null })[];
      };
      nodeHashes.set(number, block.hash.toLowerCase());
      const generated = baseChain?.blocks[number];
      truthBlocks.set(
        number,
        generated
          ? { txs: generated.txs.map((tx) => ({ from: tx.from, to: tx.to, logs: tx.logs })) }
          : {
              txs: block.transactions
                .filter((tx): tx is { from: string; to: string | null } => typeof tx === 'object')
                .map((tx) => ({ from: tx.from, to: tx.to, logs: [] })),
            },
      );
    }
    const cursorAtEnd = (await readCursor(CHAIN_ID))?.blockNumber ?? null;
    const written = (number: number) => cursorAtEnd !== null && number <= cursorAtEnd;
    const missingInTable = [...nodeHashes.keys()].filter((number) => written(number) && !storedNumbers.has(number));
    const wrongHash = [...nodeHashes.entries()]
      .filter(([number, hash]) => storedNumbers.has(number) && storedNumbers.get(number) !== hash)
      .map(([number]) => number);
    // (A block whose event alone exceeds a message is sent in parts, one after the other: it is published once, by its first part.)
    const publishedBlocks = queue.messages
      .map((message) => decodeListenerMessage(message.body))
      .flatMap((message) =>
        message.kind === 'blocksIngested' && (message.part?.index ?? 0) === 0
          ? message.events.filter((event) => event.mode === 'advance').map((event) => event.block)
          : [],
      );
    const publishedCount = new Map<number, number>();
    for (const block of publishedBlocks) publishedCount.set(block.number, (publishedCount.get(block.number) ?? 0) + 1);
    const duplicates = [...publishedCount].filter(([, count]) => count > 1).map(([number]) => number);
    const missingInQueue = [...nodeHashes.keys()].filter((number) => written(number) && !publishedCount.has(number));
    const outOfOrder = publishedBlocks.filter((block, index) => index > 0 && block.number <= publishedBlocks[index - 1]!.number).length;
    const brokenLinks = publishedBlocks.filter((block, index) => index > 0 && block.parentHash !== publishedBlocks[index - 1]!.hash).length;
    const cursorWentBack = cursors.filter((number, index) => index > 0 && number < cursors[index - 1]!).length;
    const depositItems = await Promise.all(
      deposits.map(async (deposit) => (await queryAll(rangeQuery(orderKeys.depositsRange(deposit.orderId)))).items.length),
    );
    // The transactions of the blocks the ingest wrote (Base mode: the generator's; anvil: those sent).
    const transactionsIngested = baseChain
      ? baseChain.blocks.slice(0, (cursorAtEnd ?? -1) + 1).reduce((sum, block) => sum + block.txs.length, 0)
      : transactions;

    // Webhooks: what the receiver got against the matching records of every block the ingest wrote.
    const expectedPerBlock = new Map(
      createdHooks.map(({ id, hook }) => {
        const perBlock = new Map<number, number>();
        for (const [number, block] of truthBlocks) {
          const count = written(number) ? hook.countIn(block) : 0;
          if (count > 0) perBlock.set(number, count);
        }
        return [id, perBlock] as const;
      }),
    );
    const hookOf = new Map(createdHooks.map(({ id, hook }) => [id, hook]));
    const webhookInput = {
      webhooks: createdHooks.map(({ id, hook }) => ({ id, topic: hook.topic, filter: hook.describe })),
      requests: receiver.requests,
      expectedPerBlock,
      matches: (webhookId: string, item: Parameters<(typeof hooks)[number]['matches']>[0]) => hookOf.get(webhookId)?.matches(item) ?? false,
      minedAt: new Map(mined.map((block) => [block.number, block.minedAt])),
      shownAt,
      matching: queueFigures({
        messages: webhookEvents.messages.length,
        batches: webhookEvents.batches,
        failedRecords: webhookEvents.failedRecords,
        deadLetters: webhookEvents.deadLetters.length,
        deliveries: webhookEvents.deliveries,
        invocations: matchLambda.invocations,
        coldStarts: matchLambda.coldStarts,
      }),
      delivery: {
        ...queueFigures({
          messages: webhookDeliveries.messages.length,
          batches: webhookDeliveries.batches,
          failedRecords: webhookDeliveries.failedRecords,
          deadLetters: webhookDeliveries.deadLetters.length,
          deliveries: webhookDeliveries.deliveries,
          invocations: deliverLambda.invocations,
          coldStarts: deliverLambda.coldStarts,
        }),
        visibilityChanges: webhookDeliveries.visibilityChanges,
      },
    };

    const result = summarise({
      options,
      webhooks: webhookInput,
      webhookInvocations: [...matchLambda.invocations, ...deliverLambda.invocations],
      mined,
      shownAt,
      deposits,
      depositItems,
      records: lambda.invocations,
      coldStarts: lambda.coldStarts,
      kill,
      api,
      consumer: {
        records: depositLambda.invocations,
        coldStarts: depositLambda.coldStarts,
        batches: queue.batches,
        receives: queue.receives,
        emptyReceives: queue.emptyReceives,
        deliveries: queue.deliveries,
      },
      transactions,
      scheduleStart,
      endedAt,
      ingestUsage: {
        transactionsIngested,
        nodeCalls,
        tableCpuSeconds,
        cpuLimit: lambda.cpuLimit,
        burstBlock,
      },
      continuity: {
        tableBlocks: { count: storedNumbers.size, expected: lastBlock + 1, missing: missingInTable, wrongHash },
        queue: {
          messages: queue.messages.length,
          deduplicated: queue.deduplicated,
          blocksPublished: publishedBlocks.length,
          duplicates,
          missing: missingInQueue,
          outOfOrder,
          brokenLinks,
          deadLetters: queue.deadLetters.length,
          failedRecords: queue.failedRecords,
        },
        cursorWentBack,
        cursorAtEnd,
        behindAtEnd: lastBlock - (cursorAtEnd ?? -1),
        pass: false,
      },
    });
    await mkdir(options.out, { recursive: true });
    const stamp = result.date.replace(/\.\d+Z$/, 'Z').replace(/:/g, '-');
    const markdown = lambdaMarkdown(result);
    await writeAtomically(path.join(options.out, `lambda-${stamp}.json`), `${JSON.stringify(result, null, 2)}\n`);
    await writeAtomically(path.join(options.out, `lambda-${stamp}.md`), markdown);
    await writeAtomically(path.join(options.out, 'lambda-latest.md'), markdown);
    console.error(`\n${markdown}`);
    console.error(`written: ${path.relative(ROOT, path.join(options.out, `lambda-${stamp}.json`))}, .md and lambda-latest.md`);
  } finally {
    await lambda?.close();
    await depositLambda?.close();
    await matchLambda?.close();
    await deliverLambda?.close();
    await queue?.close();
    await webhookEvents?.close();
    await webhookDeliveries?.close();
    await sqs?.close();
    await receiver?.close();
    await ssm?.close();
    await anvil?.stop();
    await baseNode?.close();
    await gateway?.close();
  }
}

// ---------------------------------------------------------------------------------------------------
// Figures

interface FollowResultBody {
  role?: 'followed' | 'skipped';
  reason?: string;
  advanced?: number;
  waitedMs?: number;
  tookOver?: boolean;
  heldFrom?: number | null;
  heldUntil?: number | null;
}

function summarise(input: {
  options: Options;
  /** The webhooks' figures but for the windows (known once the chaos and the burst are). */
  webhooks: Omit<Parameters<typeof webhookFigures>[0], 'windows' | 'measured'>;
  /** MatchWebhooks' and DeliverWebhooks' invocations (their failures are the run's errors). */
  webhookInvocations: InvocationRecord[];
  mined: MinedBlock[];
  shownAt: Map<number, number>;
  deposits: Deposit[];
  depositItems: number[];
  records: InvocationRecord[];
  coldStarts: number;
  kill: { invocation: string; at: number } | undefined;
  api: { requests: number; notOk: number };
  consumer: {
    records: InvocationRecord[];
    coldStarts: number;
    batches: number;
    receives: number;
    emptyReceives: number;
    deliveries: { firstSentAt: number; receivedAt: number; answeredAt: number; size: number }[];
  };
  transactions: number;
  scheduleStart: number;
  endedAt: number;
  continuity: LambdaFollowResult['continuity'];
  ingestUsage: {
    transactionsIngested: number;
    nodeCalls: Map<string, number> | null;
    tableCpuSeconds: number;
    cpuLimit: LambdaFollowResult['cpuLimit'];
    burstBlock: number | null;
  };
}): LambdaFollowResult {
  const { options, mined, shownAt, deposits } = input;
  // Measured: the blocks mined once the first invocation had caught up (the API showed the head of then).
  // (A block never shown has not caught up, the last one mined included.)
  // (Within the first schedule period: a follower that first catches up later, at the run's end when the
  // chain stops, has been behind all along, and its whole run is measured.)
  const firstCaughtUp = mined.find((block) => {
    const shown = shownAt.get(block.number);
    return (
      block.minedAt >= input.scheduleStart &&
      block.minedAt < input.scheduleStart + options.scheduleSeconds * 1000 &&
      shown !== undefined &&
      shown <= (mined.find((next) => next.number === block.number + 1)?.minedAt ?? Number.POSITIVE_INFINITY)
    );
  });
  // (A run that never caught up, as a follower too slow for its chain: every block mined once the first invocation had run a schedule period.)
  const measured = firstCaughtUp
    ? mined.filter((block) => block.number > firstCaughtUp.number)
    : mined.filter((block) => block.minedAt >= input.scheduleStart + options.scheduleSeconds * 1000);
  const chaos = input.kill
    ? chaosRecovery({
        invocation: input.kill.invocation,
        killedAt: input.kill.at,
        mined,
        shownAt,
        budgetBlocks: LAMBDA_LAG_BUDGET_BLOCKS,
      })
    : null;
  // The burst's window: from the burst block to the first block after it shown within the lag budget.
  const lagOf = (block: MinedBlock): number | null => {
    const at = shownAt.get(block.number);
    return at === undefined ? null : mined.filter((other) => other.minedAt > block.minedAt && other.minedAt <= at).length;
  };
  const burstBlock = input.ingestUsage.burstBlock;
  const recovered =
    burstBlock === null
      ? undefined
      : mined.find((block) => block.number > burstBlock && (lagOf(block) ?? Infinity) <= LAMBDA_LAG_BUDGET_BLOCKS);
  const burstWindow =
    burstBlock === null
      ? []
      : mined
          .filter((block) => block.number >= burstBlock && (recovered === undefined || block.number < recovered.number))
          .map((b) => b.number);
  const inWindow = new Set([...(chaos?.windowBlocks ?? []), ...burstWindow]);
  const lagSeconds: number[] = [];
  const lagBlocks: number[] = [];
  const fromTimestamp: number[] = [];
  const allLagSeconds: number[] = [];
  const allLagBlocks: number[] = [];
  /** Every measured block shown: [number, mined at, shown at (ms since the epoch), lag in blocks]. */
  const series: [number, number, number, number][] = [];
  let notShown = 0;
  for (const block of measured) {
    const at = shownAt.get(block.number);
    if (at === undefined) {
      notShown += 1;
      continue;
    }
    const seconds = (at - block.minedAt) / 1000;
    const blocks = mined.filter((other) => other.minedAt > block.minedAt && other.minedAt <= at).length;
    allLagSeconds.push(seconds);
    allLagBlocks.push(blocks);
    series.push([block.number, block.minedAt, at, blocks]);
    if (inWindow.has(block.number)) continue;
    lagSeconds.push(seconds);
    lagBlocks.push(blocks);
    fromTimestamp.push(at / 1000 - block.timestamp);
  }
  const webhooks = webhookFigures({ ...input.webhooks, measured: new Set(measured.map((block) => block.number)), windows: inWindow });
  const detected = deposits.filter((deposit) => deposit.detectedAt !== null);
  const depositDelay = (deposit: Deposit) => (deposit.detectedAt! - deposit.sentAt) / 1000;
  const depositInWindow = (deposit: Deposit) => deposit.blockNumber !== null && inWindow.has(deposit.blockNumber);
  const depositSeconds = detected.filter((deposit) => !depositInWindow(deposit)).map(depositDelay);
  const windowDeposits = deposits.filter(depositInWindow);
  const windowDepositSeconds = windowDeposits.filter((deposit) => deposit.detectedAt !== null).map(depositDelay);
  const consumerRecords = input.consumer.records;
  const consumerBilledSeconds = consumerRecords.reduce(
    (sum, record) => sum + (record.endedAt - record.startedAt + (record.initMs ?? 0)) / 1000,
    0,
  );
  const deliveries = input.consumer.deliveries;
  const fromBlock = detected
    .map((deposit) => {
      const block = mined.find((candidate) => candidate.number === deposit.blockNumber);
      return block ? (deposit.detectedAt! - block.minedAt) / 1000 : null;
    })
    .filter((value): value is number => value !== null);

  const records = [...input.records].sort((a, b) => a.startedAt - b.startedAt);
  const bodies = records.map((record) => (record.outcome === 'result' ? (record.result as FollowResultBody) : undefined));
  const followed = records.filter((_, index) => bodies[index]?.role === 'followed');
  const holders = followed
    .map((record) => record.result as FollowResultBody)
    .filter((body) => body.heldFrom != null && body.heldUntil != null)
    .sort((a, b) => a.heldFrom! - b.heldFrom!);
  const gaps = holders.slice(1).map((body, index) => body.heldFrom! - holders[index]!.heldUntil!);
  // Each holder's start and the lag of the blocks mined in the 20 s after it took the lease: an environment's
  // first follow runs the ingest's code cold (V8 compiles it as it runs), one that followed before does not.
  const followedBefore = new Set<number>();
  const takeovers = followed
    .filter((record) => (record.result as FollowResultBody).heldFrom != null)
    .sort((a, b) => (a.result as FollowResultBody).heldFrom! - (b.result as FollowResultBody).heldFrom!)
    .map((record) => {
      const heldFrom = (record.result as FollowResultBody).heldFrom!;
      const firstFollowOfEnvironment = !followedBefore.has(record.container);
      followedBefore.add(record.container);
      const after = series.filter(([number, minedAt]) => minedAt >= heldFrom && minedAt < heldFrom + 20_000 && !inWindow.has(number));
      return {
        id: record.id,
        container: record.container,
        firstFollowOfEnvironment,
        heldFrom,
        blocksAfter: after.length,
        peakLagBlocks: after.length > 0 ? Math.max(...after.map(([, , , blocks]) => blocks)) : null,
      };
    });
  const active = records.filter((_, index) => bodies[index]?.role === 'followed' || (bodies[index]?.waitedMs ?? 0) > 0);
  const mostActive = Math.max(
    0,
    ...active.map((record) => active.filter((other) => other.startedAt <= record.startedAt && other.endedAt > record.startedAt).length),
  );
  const skippedRecords = records.filter((_, index) => bodies[index]?.role === 'skipped' && (bodies[index]?.waitedMs ?? 0) === 0);
  const skippedSeconds = skippedRecords.map((record) => (record.endedAt - record.startedAt) / 1000);
  const initMs = records.map((record) => record.initMs).filter((value): value is number => value !== null);

  const wallSeconds = (input.endedAt - input.scheduleStart) / 1000;
  const harnessWait = successorWaitSeconds({
    timeoutSeconds: options.timeoutSeconds,
    safetyMarginSeconds: options.safetyMarginSeconds,
    scheduleSeconds: options.scheduleSeconds,
    maxWaitSeconds: options.handoverWaitSeconds,
  });
  const deployedWait = successorWaitSeconds({
    timeoutSeconds: DEPLOYED.timeoutSeconds,
    safetyMarginSeconds: DEPLOYED.safetyMarginSeconds,
    scheduleSeconds: DEPLOYED.scheduleSeconds,
    maxWaitSeconds: DEPLOYED.handoverWaitSeconds,
  });
  const billedSeconds = records.reduce((sum, record) => sum + (record.endedAt - record.startedAt + (record.initMs ?? 0)) / 1000, 0);
  const gbSeconds = billedSeconds * (options.memoryMb / 1024);
  const skippedP50 = percentileOf(skippedSeconds, 50) ?? 0.1;
  const modelAtHarnessTiming = lambdaCostPerChainPerDay({
    memoryMb: options.memoryMb,
    architecture: DEPLOYED.architecture,
    scheduleSeconds: options.scheduleSeconds,
    timeoutSeconds: options.timeoutSeconds,
    safetyMarginSeconds: options.safetyMarginSeconds,
    handoverWaitSeconds: harnessWait,
    skippedInvocationSeconds: skippedP50,
    leaseWritesPerSecond: 3 / DEPLOYED.leaseTtlSeconds,
  });
  const deployed = lambdaCostPerChainPerDay({
    memoryMb: DEPLOYED.memoryMb,
    architecture: DEPLOYED.architecture,
    scheduleSeconds: DEPLOYED.scheduleSeconds,
    timeoutSeconds: DEPLOYED.timeoutSeconds,
    safetyMarginSeconds: DEPLOYED.safetyMarginSeconds,
    handoverWaitSeconds: deployedWait,
    skippedInvocationSeconds: skippedP50,
    leaseWritesPerSecond: 3 / DEPLOYED.leaseTtlSeconds,
  });

  const continuity = input.continuity;
  continuity.pass =
    continuity.tableBlocks.missing.length === 0 &&
    continuity.tableBlocks.wrongHash.length === 0 &&
    continuity.queue.duplicates.length === 0 &&
    continuity.queue.missing.length === 0 &&
    continuity.queue.outOfOrder === 0 &&
    continuity.queue.brokenLinks === 0 &&
    continuity.cursorWentBack === 0 &&
    input.depositItems.every((count) => count === 1);
  const lagP99 = percentileOf(lagBlocks, 99);
  const depositP99 = percentileOf(depositSeconds, 99);
  const base = options.chain === 'base';
  // The ingest's own measures (lib/lambda-measure.ts, reported by each invocation's environment).
  const usage = input.ingestUsage;
  const perTransaction = (value: number): number | null =>
    usage.transactionsIngested > 0 ? Math.round((value / usage.transactionsIngested) * 1000) / 1000 : null;
  const cpuMs = input.records.reduce((sum, record) => sum + (record.usage?.cpuMs ?? 0), 0);
  const measuringCpuMs = input.records.reduce((sum, record) => sum + (record.usage?.measuringCpuMs ?? 0), 0);
  const mainThreadCpuMs = input.records.reduce((sum, record) => sum + (record.usage?.mainThreadCpuMs ?? 0), 0);
  const gcMs = { minor: 0, major: 0, other: 0 };
  for (const record of input.records)
    for (const kind of ['minor', 'major', 'other'] as const) gcMs[kind] += record.usage?.gcMs?.[kind] ?? 0;
  const peakRss = Math.max(0, ...input.records.map((record) => record.usage?.maxRssMb ?? 0));
  const callsByCommand = new Map<string, number>();
  const heat = new Map<string, number>();
  for (const record of input.records) {
    for (const [command, count] of Object.entries(record.usage?.calls ?? {}))
      callsByCommand.set(command, (callsByCommand.get(command) ?? 0) + count);
    for (const [key, units] of record.usage?.heat ?? []) heat.set(key, (heat.get(key) ?? 0) + units);
  }
  const totalCalls = [...callsByCommand.values()].reduce((sum, count) => sum + count, 0);
  const hottest = [...heat]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 5)
    .map(([key, units]) => {
      const perTx = units / Math.max(1, usage.transactionsIngested);
      return {
        key,
        writeUnitsPerTransaction: Math.round(perTx * 10_000) / 10_000,
        writeUnitsPerSecondAt3xBase: Math.round(perTx * HOT_PARTITION_TARGET_TPS),
      };
    });
  const nodeCallTotal = usage.nodeCalls ? [...usage.nodeCalls.values()].reduce((sum, count) => sum + count, 0) : null;
  const byTransaction = (entries: Iterable<[string, number]>): Record<string, number> =>
    Object.fromEntries([...entries].sort((a, b) => b[1] - a[1]).map(([name, count]) => [name, perTransaction(count) ?? 0]));
  const burstLags = burstWindow
    .map((number) => mined.find((block) => block.number === number)!)
    .map(lagOf)
    .filter((value): value is number => value !== null);
  const recoveryBlocks = recovered && burstBlock !== null ? recovered.number - burstBlock : null;
  const errors = [...records, ...consumerRecords, ...input.webhookInvocations]
    .filter((record) => record.outcome === 'error')
    .map((record) => `${record.id}: ${record.error}`);
  const killed = records.filter((record) => record.outcome === 'killed').length;
  const timeouts = records.filter((record) => record.outcome === 'timeout').length;
  const intervals = mined.slice(1).map((block, index) => (block.minedAt - mined[index]!.minedAt) / 1000);
  const outcome =
    errors.length > 0 || timeouts > 0
      ? `${errors.length} invocations failed, ${timeouts} timed out`
      : continuity.pass
        ? `${killed > 0 ? `Every invocation but the ${killed} killed ended by itself` : 'Every invocation ended by itself'}; every block written and published once${continuity.behindAtEnd > 0 ? `, ${continuity.behindAtEnd} blocks still behind at the end` : ''}`
        : 'Continuity broken (see continuity)';
  return {
    date: new Date().toISOString(),
    machine: { cpus: os.cpus().length, cpuModel: os.cpus()[0]?.model ?? '?', node: process.version },
    settings: {
      ...options,
      eventBlockTimeMs: 'observed by the ingest',
      leaseTtlMs: DEPLOYED.leaseTtlSeconds * 1000,
      deployed: DEPLOYED,
      extraNodeFlags: process.env.BENCH_LAMBDA_NODE_FLAGS ?? null,
    },
    outcome,
    chain: {
      profile: options.chain,
      transactionsPerBlock: options.txsPerBlock,
      blocks: mined.length,
      firstMeasured: measured[0]?.number ?? null,
      head: mined.at(-1)?.number ?? 0,
      transactions: input.transactions,
      minedIntervalSeconds: { p50: round2(percentileOf(intervals, 50)), max: round2(percentileOf(intervals, 100)) },
    },
    lag: {
      measuredBlocks: measured.length,
      blocks: percentiles(lagBlocks),
      seconds: percentiles(lagSeconds),
      fromTimestampSeconds: percentiles(fromTimestamp),
      notShown,
      withChaosWindow: { measuredBlocks: allLagBlocks.length, blocks: percentiles(allLagBlocks), seconds: percentiles(allLagSeconds) },
      series,
      api: { route: 'GET /insights/v1/chains/{chainId}/status (local gateway, HTTP)', ...input.api },
    },
    deposits: {
      sent: deposits.length,
      detected: detected.length,
      seconds: percentiles(depositSeconds),
      fromBlockSeconds: percentiles(fromBlock),
      depositItemsPerOrder: {
        min: input.depositItems.length === 0 ? null : Math.min(...input.depositItems),
        max: input.depositItems.length === 0 ? null : Math.max(...input.depositItems),
      },
      inChaosWindow: { count: windowDeposits.length, seconds: percentiles(windowDepositSeconds) },
      queue: {
        pollers: 2,
        batchSize: DEPOSIT_CONSUMER.batchSize,
        visibilityTimeoutSeconds: options.visibilityTimeoutSeconds,
        receives: input.consumer.receives,
        emptyReceives: input.consumer.emptyReceives,
        batches: input.consumer.batches,
        messagesPerBatch: {
          p50: percentileOf(
            deliveries.map((delivery) => delivery.size),
            50,
          ),
          max: percentileOf(
            deliveries.map((delivery) => delivery.size),
            100,
          ),
        },
        sendToReceiveMs: percentiles(deliveries.map((delivery) => delivery.receivedAt - delivery.firstSentAt)),
        invocationMs: percentiles(deliveries.map((delivery) => delivery.answeredAt - delivery.receivedAt)),
        consumerInvocations: consumerRecords.length,
        consumerColdStarts: input.consumer.coldStarts,
        consumerInitMs: consumerRecords.find((record) => record.initMs !== null)?.initMs ?? null,
        consumerBilledSeconds: round2(consumerBilledSeconds) ?? 0,
      },
    },
    burst:
      burstBlock === null
        ? null
        : {
            transactions: options.burstTransactions,
            block: burstBlock,
            recoveryBlocks,
            budgetBlocks: LAMBDA_BURST_RECOVERY_BUDGET_BLOCKS,
            lagBlocks: percentiles(burstLags),
            windowBlocks: burstWindow,
          },
    webhooks,
    ingestPeakRssMb: peakRss > 0 ? peakRss : null,
    ingestCpuMsPerTransaction: perTransaction(cpuMs),
    ingestMainThreadCpuMsPerTransaction: perTransaction(mainThreadCpuMs),
    tableWriters: options.tableWriters,
    measuringCpuMsPerTransaction: perTransaction(measuringCpuMs),
    gcPauseMsPerTransaction: {
      minor: perTransaction(gcMs.minor),
      major: perTransaction(gcMs.major),
      other: perTransaction(gcMs.other),
    },
    dynamodbCallsPerTransaction: perTransaction(totalCalls),
    dynamodbCallsByCommand: byTransaction(callsByCommand),
    nodeCallsPerTransaction: nodeCallTotal === null ? null : perTransaction(nodeCallTotal),
    nodeCallsByMethod: byTransaction(usage.nodeCalls ?? []),
    nodeBillPerChainPerDay:
      nodeCallTotal === null || usage.transactionsIngested === 0
        ? null
        : {
            transactionsPerDay: BASE_TRANSACTIONS_PER_DAY,
            usdPerMillionCalls: NODE_USD_PER_MILLION_CALLS,
            calls: Math.round((nodeCallTotal / usage.transactionsIngested) * BASE_TRANSACTIONS_PER_DAY),
            usd:
              Math.round(
                (((nodeCallTotal / usage.transactionsIngested) * BASE_TRANSACTIONS_PER_DAY * NODE_USD_PER_MILLION_CALLS) / 1e6) * 100,
              ) / 100,
          },
    hottestPartitionWriteUnitsPerSecondAt3xBase: hottest[0]?.writeUnitsPerSecondAt3xBase ?? null,
    hottestPartitions: hottest,
    table: {
      kind:
        options.table === 'stand-in'
          ? `the stand-in table (scripts/bench/lib/stand-in/table.ts: AWS's latency, ${AWS_LATENCY_MS.read} ms a read, ${AWS_LATENCY_MS.write} a write, ${AWS_LATENCY_MS.batch} a batch, ${AWS_LATENCY_MS.transaction} a transaction), embedded in the local gateway process, in place of dynalite`
          : 'dynalite, embedded in the local gateway process',
      cpuSeconds: round2(usage.tableCpuSeconds) ?? 0,
      cpuShareOfRun: wallSeconds > 0 ? round2(usage.tableCpuSeconds / wallSeconds) : null,
    },
    cpuLimit: usage.cpuLimit,
    transactionsIngested: usage.transactionsIngested,
    chaos: chaos
      ? {
          ...chaos,
          killedAfterSeconds:
            round2((chaos.killedAt - (records.find((record) => record.id === chaos.invocation)?.startedAt ?? chaos.killedAt)) / 1000) ?? 0,
          noBlockLostOrRepeated: continuity.pass,
          unwrittenSeconds: round2(chaos.unwrittenSeconds),
          firstAdvanceAfterSeconds: round2(chaos.firstAdvanceAfterSeconds),
          recoverySeconds: round2(chaos.recoverySeconds),
        }
      : null,
    invocations: {
      total: records.length,
      coldStarts: input.coldStarts,
      followed: followed.length,
      skipped: records.filter((_, index) => bodies[index]?.role === 'skipped').length,
      tookOver: bodies.filter((body) => body?.tookOver).length,
      killed,
      errors,
      timeouts,
      handovers: Math.max(0, holders.length - 1),
      handoverGapMs: { p50: percentileOf(gaps, 50), max: percentileOf(gaps, 100) },
      takeovers,
      overlaps: gaps.filter((gap) => gap < 0).length,
      mostActiveAtOnce: mostActive,
      skippedSeconds: { p50: round2(percentileOf(skippedSeconds, 50)), max: round2(percentileOf(skippedSeconds, 100)) },
      initMs: { p50: percentileOf(initMs, 50), max: percentileOf(initMs, 100) },
      perInvocation: records.map((record, index) => ({
        id: record.id,
        container: record.container,
        role: bodies[index]?.role ?? record.outcome,
        startedAt: record.startedAt,
        seconds: round2((record.endedAt - record.startedAt) / 1000) ?? 0,
        heldSeconds:
          bodies[index]?.heldFrom != null && bodies[index]?.heldUntil != null
            ? round2((bodies[index]!.heldUntil! - bodies[index]!.heldFrom!) / 1000)
            : null,
        heldFrom: bodies[index]?.heldFrom ?? null,
        advanced: bodies[index]?.advanced ?? null,
        waitedMs: bodies[index]?.waitedMs ?? null,
        reason: bodies[index]?.reason ?? record.error ?? null,
      })),
    },
    continuity,
    cost: {
      run: {
        wallSeconds: round2(wallSeconds) ?? 0,
        billedSeconds: round2(billedSeconds) ?? 0,
        gbSeconds: round2(gbSeconds) ?? 0,
        usd: Math.round(gbSeconds * deployed.prices.gbSecondArm * 1e6) / 1e6,
        lambdaSecondsPerSecond: round2(billedSeconds / wallSeconds) ?? 0,
      },
      modelAtHarnessTiming,
      measuredOverModel:
        modelAtHarnessTiming.perDay.averageConcurrency > 0
          ? Math.round((billedSeconds / wallSeconds / modelAtHarnessTiming.perDay.averageConcurrency) * 1000) / 1000
          : null,
      deployed,
    },
    budget: {
      p99LagBlocks: LAMBDA_LAG_BUDGET_BLOCKS,
      p99DepositSeconds: base ? null : LAMBDA_DEPOSIT_BUDGET_SECONDS,
      burstRecoveryBlocks: burstBlock === null ? null : LAMBDA_BURST_RECOVERY_BUDGET_BLOCKS,
      p99WebhookSeconds: LAMBDA_WEBHOOK_BUDGET_SECONDS,
      pass:
        webhooks.pass &&
        lagP99 !== null &&
        lagP99 <= LAMBDA_LAG_BUDGET_BLOCKS &&
        notShown === 0 &&
        (base || (depositP99 !== null && depositP99 <= LAMBDA_DEPOSIT_BUDGET_SECONDS)) &&
        detected.length === deposits.length &&
        (burstBlock === null || (recoveryBlocks !== null && recoveryBlocks <= LAMBDA_BURST_RECOVERY_BUDGET_BLOCKS)) &&
        (chaos === null || chaos.recoveredAt !== null) &&
        continuity.pass &&
        continuity.behindAtEnd === 0 &&
        errors.length === 0 &&
        timeouts === 0,
    },
  };
}

export function lambdaMarkdown(r: LambdaFollowResult): string {
  const s = r.settings;
  const i = r.invocations;
  const q = r.continuity.queue;
  const d = r.cost.deployed;
  const m = r.cost.modelAtHarnessTiming;
  const c = r.chaos;
  const dq = r.deposits.queue;
  return `# Lambda follow benchmark, ${r.date}

${r.budget.pass ? 'PASS' : 'FAIL'}: block-to-API lag p99 **${r.lag.blocks.p99} blocks** (budget <= ${r.budget.p99LagBlocks}; outside the chaos window${r.burst ? " and the burst's" : ''}), ${r.lag.seconds.p99} s; ${r.budget.p99DepositSeconds === null ? 'no deposits (Base mode)' : `deposit-to-detected p99 **${r.deposits.seconds.p99} s** (budget <= ${r.budget.p99DepositSeconds}; outside the chaos window)`}; ${r.burst ? `burst recovery **${r.burst.recoveryBlocks ?? 'never'}** blocks (budget <= ${r.burst.budgetBlocks}); ` : ''}webhook event-to-delivered p99 **${r.webhooks.seconds.p99} s** (budget <= ${r.budget.p99WebhookSeconds}; ${r.webhooks.delivered} of ${r.webhooks.expected} items, ${r.webhooks.wrongCountBlocks.length === 0 ? 'every block right' : `**${r.webhooks.wrongCountBlocks.length} blocks wrong**`}); continuity ${r.continuity.pass ? 'kept' : '**broken**'}${c ? ` across ${c.invocation} killed mid-follow` : ''}${r.continuity.behindAtEnd > 0 ? `; **${r.continuity.behindAtEnd} blocks still behind** at the end` : ''}. ${r.outcome}.

The real ingest handler (functions/ingest/ingest-chain.ts) in local Lambda environments, invoked every ${s.scheduleSeconds} s with the chain's event (block time left to the ingest to observe) for ${s.durationSeconds} s, each invocation with ${s.timeoutSeconds} s (safety margin ${s.safetyMarginSeconds} s, handover wait ${s.handoverWaitSeconds} s, lease ttl ${s.leaseTtlMs / 1000} s; deployed: 900 s, a minute, 60 s, 75 s). ${r.chain.profile === 'base' ? 'The Base profile node released' : 'Anvil mined'} a block every ${s.blockSeconds} s (${r.chain.minedIntervalSeconds.p50} s apart, max ${r.chain.minedIntervalSeconds.max}) with ${s.txsPerBlock} ${r.chain.profile === 'base' ? 'transactions' : 'transfers'}: ${r.chain.blocks} blocks, ${r.chain.transactions} transactions. The API read as a user reads it: ${r.lag.api.route}, every 100 ms (${r.lag.api.requests} requests, ${r.lag.api.notOk} not 200 once the chain was indexed); the gateway and its embedded table in a process of their own. Deposit queue: a local SQS FIFO stand-in whose event source mapping (${dq.pollers} pollers long-polling, batches of up to ${dq.batchSize}, one batch of a group in flight, deleted on success, failed records back after ${dq.visibilityTimeoutSeconds} s) invokes the real DetectDeposits handler in an execution environment of its own. Machine: ${r.machine.cpus} CPUs (${r.machine.cpuModel}), Node ${r.machine.node}.

| figure | p50 | p99 | max |
|---|---|---|---|
| block-to-API lag, blocks (mined while it waited; ${r.lag.measuredBlocks} blocks from ${r.chain.firstMeasured ?? '-'}) | ${r.lag.blocks.p50} | ${r.lag.blocks.p99} | ${r.lag.blocks.max} |
| block-to-API lag, seconds (evm_mine returned -> status read shows it) | ${r.lag.seconds.p50} | ${r.lag.seconds.p99} | ${r.lag.seconds.max} |
| from the block's timestamp (whole seconds), seconds | ${r.lag.fromTimestampSeconds.p50} | ${r.lag.fromTimestampSeconds.p99} | ${r.lag.fromTimestampSeconds.max} |
| deposit-to-detected, seconds (${r.deposits.detected} of ${r.deposits.sent} deposits; sent -> order shows it) | ${r.deposits.seconds.p50} | ${r.deposits.seconds.p99} | ${r.deposits.seconds.max} |
| deposit block mined -> detected, seconds | ${r.deposits.fromBlockSeconds.p50} | ${r.deposits.fromBlockSeconds.p99} | ${r.deposits.fromBlockSeconds.max} |
| block-to-API lag, blocks, every measured block (${r.lag.withChaosWindow.measuredBlocks}, chaos window included) | ${r.lag.withChaosWindow.blocks.p50} | ${r.lag.withChaosWindow.blocks.p99} | ${r.lag.withChaosWindow.blocks.max} |
| block-to-API lag, seconds, chaos window included | ${r.lag.withChaosWindow.seconds.p50} | ${r.lag.withChaosWindow.seconds.p99} | ${r.lag.withChaosWindow.seconds.max} |
| deposit-to-detected, seconds, the ${r.deposits.inChaosWindow.count} deposits in the chaos window | ${r.deposits.inChaosWindow.seconds.p50} | ${r.deposits.inChaosWindow.seconds.p99} | ${r.deposits.inChaosWindow.seconds.max} |
| deposit queue: message sent -> its poll returned, ms | ${dq.sendToReceiveMs.p50} | ${dq.sendToReceiveMs.p99} | ${dq.sendToReceiveMs.max} |
| deposit queue: DetectDeposits invocation, ms | ${dq.invocationMs.p50} | ${dq.invocationMs.p99} | ${dq.invocationMs.max} |

${ingestMarkdown(r)}

${webhooksMarkdown(r)}

${r.lag.notShown > 0 ? `**${r.lag.notShown} blocks were never shown by the API.**\n\n` : ''}${
  c
    ? `**Chaos**: ${c.invocation} killed (SIGKILL of its environment) ${c.killedAfterSeconds} s into its run, the API at block ${c.headAtKill ?? '-'}. The chain stayed unwritten **${c.unwrittenSeconds ?? 'to the end'} s** (the API's head did not move; ${c.firstAdvanceAfterSeconds ?? '-'} s from the kill to its next advance: the lease's ttl, then the next tick's invocation taking over); API current again (a block mined after the kill shown within ${r.budget.p99LagBlocks} blocks) ${c.recoverySeconds ?? 'never'} s after the kill. Lag spike: **${c.lagSpike.blocks ?? '-'} blocks**, ${c.lagSpike.seconds ?? '-'} s over the window's ${c.windowBlocks.length} blocks (${c.windowBlocks[0] ?? '-'}..${c.windowBlocks.at(-1) ?? '-'}), left out of the lag budget's p99 and shown in the rows "chaos window included". Continuity across the kill: ${c.noBlockLostOrRepeated ? 'no block lost or repeated' : '**broken**'}.`
    : '**Chaos**: none in this run (`--kill-at 0`, or no holder found to kill).'
}

**Deposit queue**: ${dq.receives} long polls (${dq.emptyReceives} came back empty after 20 s), ${dq.batches} batches (p50 ${dq.messagesPerBatch.p50}, max ${dq.messagesPerBatch.max} messages); DetectDeposits: ${dq.consumerInvocations} invocations, ${dq.consumerColdStarts} cold start${dq.consumerColdStarts === 1 ? '' : 's'} (init ${dq.consumerInitMs ?? '-'} ms), ${dq.consumerBilledSeconds} billed seconds.

**Invocations**: ${i.total} (${i.coldStarts} cold starts, init p50 ${i.initMs.p50} ms), ${i.followed} followed the chain, ${i.skipped} found it taken and returned (p50 ${i.skippedSeconds.p50} s), ${i.tookOver} waited for a handover and took over; ${i.killed} killed by the chaos; ${i.timeouts} timed out; ${i.errors.length} failed${i.errors.length > 0 ? ` (${i.errors.slice(0, 3).join('; ')})` : ''}. **Handovers: ${i.handovers}**, gap between holders p50 ${i.handoverGapMs.p50} ms, max ${i.handoverGapMs.max} ms; peak lag of the blocks mined in the 20 s after each holder took the lease (chaos and burst windows aside): ${i.takeovers.map((t) => `${t.id} ${t.peakLagBlocks ?? '-'} blocks (environment ${t.container}${t.firstFollowOfEnvironment ? ', its first follow' : ''})`).join(', ')}; ${i.overlaps} overlaps; at most ${i.mostActiveAtOnce} invocations following or waiting at once.

**Nothing lost or repeated**: table blocks ${r.continuity.tableBlocks.count} of ${r.continuity.tableBlocks.expected} (missing ${r.continuity.tableBlocks.missing.length}, wrong hash ${r.continuity.tableBlocks.wrongHash.length}); queue: ${q.messages} messages (${q.deduplicated} dropped as duplicates), ${q.blocksPublished} blocks published, ${q.duplicates.length} published twice, ${q.missing.length} missing, ${q.outOfOrder} out of order, ${q.brokenLinks} not the child of the one before; ${q.failedRecords} consumer records failed, ${q.deadLetters} dead letters; the cursor went back ${r.continuity.cursorWentBack} times and ended at ${r.continuity.cursorAtEnd} (head ${r.chain.head}); deposit items per order ${r.deposits.depositItemsPerOrder.min}..${r.deposits.depositItemsPerOrder.max}.

**Cost**: this run billed **${r.cost.run.lambdaSecondsPerSecond} Lambda-seconds per second** (${r.cost.run.billedSeconds} over ${r.cost.run.wallSeconds} s, the ingest function; DetectDeposits ${dq.consumerBilledSeconds} more). The model at this run's timing predicts ${m.perDay.averageConcurrency} (measured / model ${r.cost.measuredOverModel}): a holder runs ${m.inputs.timeoutSeconds - m.inputs.safetyMarginSeconds} s from its tick, its successor starts on the last tick within the ${s.handoverWaitSeconds} s handover wait and waits ${m.inputs.handoverWaitSeconds} s (the handovers fall ${(m.inputs.timeoutSeconds - m.inputs.safetyMarginSeconds) % m.inputs.scheduleSeconds} s after a tick), so a handover every ${m.inputs.timeoutSeconds - m.inputs.safetyMarginSeconds - m.inputs.handoverWaitSeconds} s. What the model leaves out: the run's edges (the first holder waits for no one, the last ones run on after the schedule's end until their own handover), the cold starts' init and a killed holder's run cut short. At the deployed timing the same rule gives a wait of one period (${d.inputs.handoverWaitSeconds} s: 840 s is a whole number of minutes), hence the figure below, which a day's steady state (no edges) follows. Deployed (${d.inputs.memoryMb} MB ${d.inputs.architecture}, a tick a minute, 900 s, margin 60 s, the successor waiting ${d.inputs.handoverWaitSeconds} s): ${d.perDay.invocations} invocations a day, ${d.perDay.holders} of them holders (a handover every ${Math.round(86_400 / d.perDay.holders)} s), ${d.perDay.billedSeconds} billed seconds (${d.perDay.averageConcurrency} invocations on average) = ${d.perDay.gbSeconds} GB-s: **$${d.perDay.computeUsd} compute + $${d.perDay.requestsUsd} requests + $${d.perDay.leaseWritesUsd} lease writes = $${d.perDay.totalUsd} per chain per day** (x86_64: $${d.otherArchitectureUsd}). Prices: $${d.prices.gbSecondArm} per GB-s arm64, $${d.prices.gbSecondX86} x86_64, $${(d.prices.request * 1e6).toFixed(2)} per million requests, $${d.prices.writeUnit * 1e6} per million write units.

| invocation | role | started (s) | ran (s) | held (s) | blocks | waited (ms) | why it ended |
|---|---|---|---|---|---|---|---|
${i.perInvocation
  .map(
    (entry) =>
      `| ${entry.id} | ${entry.role} | ${((entry.startedAt - (i.perInvocation[0]?.startedAt ?? entry.startedAt)) / 1000).toFixed(1)} | ${entry.seconds} | ${entry.heldSeconds ?? '-'} | ${entry.advanced ?? '-'} | ${entry.waitedMs ?? '-'} | ${(entry.reason ?? '').replace(/\|/g, '/').slice(0, 140)} |`,
  )
  .join('\n')}
`;
}

/** The webhooks delivered through the queues and consumers, against the chain. */
function webhooksMarkdown(r: LambdaFollowResult): string {
  const w = r.webhooks;
  const queueLine = (name: string, consumer: string, f: WebhookFigures['matching']) =>
    `${name}: ${f.messages} messages in ${f.batches} batches (sent -> polled p50 ${f.sendToReceiveMs.p50} ms, p99 ${f.sendToReceiveMs.p99} ms), ${f.failedRecords} records failed, ${f.deadLetters} dead letters; ${consumer}: ${f.invocations} invocations, ${f.coldStarts} cold starts, ${f.billedSeconds} billed seconds`;
  return `**Webhooks** (${w.pass ? 'pass' : '**fail**'}): ${w.webhooks.map((hook) => `${hook.filter} (${hook.topic})`).join('; ')}, created through the webhooks domain with a secret key, POSTed by the real DeliverWebhooks to a receiver on 127.0.0.1. **Event on chain (its block released at the node) to delivered: p50 ${w.seconds.p50} s, p99 ${w.seconds.p99} s, max ${w.seconds.max} s** over ${w.measuredItems} items, of which the webhook path after the API showed the block (the rest is the ingest's lag): p50 ${w.afterShownSeconds.p50} s, p99 ${w.afterShownSeconds.p99} s (budget: p99 <= ${r.budget.p99WebhookSeconds} s; the ${w.inWindows.items} items of the chaos and burst windows apart: p50 ${w.inWindows.seconds.p50} s, p99 ${w.inWindows.seconds.p99} s, max ${w.inWindows.seconds.max} s; the ${w.beforeCaughtUp} of blocks mined before the ingest first caught up left out, as the lag leaves them out). Slowest blocks: ${w.slowest.map((entry) => `${entry.block} (${entry.items} items, ${entry.seconds} s)`).join(', ')}. Against the chain: ${w.delivered} distinct items delivered of ${w.expected} matching records in the blocks written, ${w.wrongCountBlocks.length} blocks with a wrong count${w.wrongCountBlocks.length > 0 ? ` (${w.wrongCountBlocks.join(', ')})` : ''}, ${w.unexpected} items outside their filter, ${w.repeated} delivered again (at least once), ${w.reverted} reverted; ${w.requests} requests (items a request p50 ${w.itemsPerRequest.p50}, max ${w.itemsPerRequest.max}), ${w.badSignatures} with a signature that did not verify. ${queueLine('WebhookEvents (FIFO)', 'MatchWebhooks', w.matching)}. ${queueLine('WebhookDeliveries (standard)', 'DeliverWebhooks', w.delivery)}, ${w.delivery.visibilityChanges} retries delayed.`;
}

/** The ingest's own measures, and Base mode's chain and burst. */
function ingestMarkdown(r: LambdaFollowResult): string {
  const b = r.burst;
  const lines = [
    r.chain.profile === 'base'
      ? `**Base mode**: the Base profile generator as the node (HTTP JSON-RPC, its head released on the beat, Multicall3 present), ${r.chain.transactionsPerBlock} transactions a block${b ? `, block ${b.block} a burst of ${b.transactions}` : ''}; no deposits. ${b ? `**Burst recovery: ${b.recoveryBlocks ?? 'never'} blocks** (budget <= ${b.budgetBlocks}) after the burst until a block was shown within ${r.budget.p99LagBlocks} blocks; lag over its window (${b.windowBlocks.length} blocks, left out of the p99 above): p50 ${b.lagBlocks.p50}, max ${b.lagBlocks.max} blocks.` : ''}`
      : '',
    `**The ingest's own measures** (${r.transactionsIngested} transactions written; ${r.cpuLimit.by === 'cgroup' ? `each environment limited to ${r.cpuLimit.vcpus.toFixed(2)} vCPU, Lambda's share of ${r.settings.memoryMb} MB, by a cgroup quota` : `CPU not limited: ${r.cpuLimit.why}`}): process CPU **${r.ingestCpuMsPerTransaction ?? '-'} ms a transaction**, ${r.ingestMainThreadCpuMsPerTransaction ?? '-'} of it on the main thread (${r.tableWriters} table writer threads) (the harness's recording of the table calls, ${r.measuringCpuMsPerTransaction ?? '-'} ms a transaction, left out; garbage-collection pauses of the main thread ${r.gcPauseMsPerTransaction.minor ?? '-'} ms a transaction in scavenges, ${r.gcPauseMsPerTransaction.major ?? '-'} in mark-compacts, ${r.gcPauseMsPerTransaction.other ?? '-'} else); peak memory of an environment **${r.ingestPeakRssMb ?? '-'} MB** (of ${r.settings.memoryMb} MB); **${r.dynamodbCallsPerTransaction ?? '-'} DynamoDB calls a transaction** (${Object.entries(
      r.dynamodbCallsByCommand,
    )
      .slice(0, 6)
      .map(([command, count]) => `${command} ${count}`)
      .join(', ')}); ${
      r.nodeCallsPerTransaction === null
        ? 'node calls not counted (anvil)'
        : `**${r.nodeCallsPerTransaction} node calls a transaction** (${Object.entries(r.nodeCallsByMethod)
            .slice(0, 6)
            .map(([method, count]) => `${method} ${count}`)
            .join(', ')})${
            r.nodeBillPerChainPerDay
              ? `: at Base's ${r.nodeBillPerChainPerDay.transactionsPerDay.toLocaleString('en')} transactions a day, ${r.nodeBillPerChainPerDay.calls.toLocaleString('en')} calls, **$${r.nodeBillPerChainPerDay.usd} a day** at $${r.nodeBillPerChainPerDay.usdPerMillionCalls} per million calls`
              : ''
          }`
    }; hottest partition at 300 tx/s (3x Base): **${r.hottestPartitionWriteUnitsPerSecondAt3xBase ?? '-'} write units a second** (limit 1,000; ${r.hottestPartitions
      .slice(0, 3)
      .map((entry) => `${entry.key.slice(0, 60)} ${entry.writeUnitsPerSecondAt3xBase}`)
      .join(
        ', ',
      )}). The table (${r.table.kind}) used ${r.table.cpuSeconds} s of CPU, ${r.table.cpuShareOfRun ?? '-'} of a core over the run.`,
  ];
  return lines.filter((line) => line !== '').join('\n\n');
}

async function writeAtomically(file: string, text: string): Promise<void> {
  await writeFile(`${file}.tmp`, text);
  await rename(`${file}.tmp`, file);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().then(
    () => process.exit(0),
    (error: unknown) => {
      console.error(`lambda bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
      process.exit(1);
    },
  );
}
