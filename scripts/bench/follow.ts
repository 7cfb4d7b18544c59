/**
 * `npm run bench:follow [-- --follow-seconds 300] [--block-seconds 2] [--txs-per-block 150]
 * [--poll-interval MS] [--node-traces callTracer|parity] [--out DIR]`: can the ingest keep up with a
 * busy chain? (issue 15, section 2)
 *
 * 1. A fresh anvil (automine off from the setup on: anvil 1.7.1 was seen to stall under bursts of
 *    thousands of transactions sent while it was being followed, so blocks are mined explicitly),
 *    the demo contracts (scripts/lib/demo-activity.ts), a setup block that gives nine accounts DEMO
 *    and ten NFTs each.
 * 2. The real ingest CLI, `scripts/ingest.ts --follow` (the code path of `npm run ingest -- --follow`),
 *    in a process of its own, against a fresh table in the embedded DynamoDB's own process; the
 *    probe (lib/follow-hook.ts) observes it from inside without changing it. The load starts once it
 *    has caught up with the setup.
 * 3. Load: for every block, --txs-per-block transactions sent as one JSON-RPC batch (30 % native
 *    transfers, 33 % ERC-20 transfers, 10 % NFT mints, 10 % NFT transfers, 8 % ERC-1155 mints,
 *    8 % splitter calls paying two addresses in internal calls, one factory creation; recipients
 *    from a pool of 1,000 addresses), then `evm_mine` on a fixed 2 s beat, for --follow-seconds.
 *    With --node-traces parity the CLI reads anvil through a proxy that answers
 *    debug_traceBlockByNumber "method not found", so the ingest reads trace_block (its fallback for
 *    nodes without a JS tracer): anvil 1.7.1's callTracer takes time quadratic in a block's
 *    transactions (about 5 s for 150), more than the block time.
 * 4. Lag of every mined block: from when evm_mine returned to when the ingest's cursor update that
 *    covers it returned (seen at the table's edge), in seconds and in blocks (blocks mined in
 *    between). Budget: p99 <= 1 block. The profile splits each block's lag by stage (lib/stages.ts).
 *
 * Writes bench/results/follow-<time>.json and .md and follow-latest.md. Not part of `npm test`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:http';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import {
  createPublicClient,
  encodeFunctionData,
  getAddress,
  http,
  keccak256,
  parseEther,
  slice,
  toBytes,
  toHex,
  type Address,
  type Hex,
} from 'viem';
import { startAnvil, type Anvil } from '../lib/anvil';
import { loadContracts } from '../lib/contracts';
import { deployDemoContracts } from '../lib/demo-activity';
import { ensureTable, localClient } from '../lib/local-table/ensure-table';
import { startTableProcess, type TableProcess } from '../lib/table-process';
import { prng } from './dataset/chain';
import type { ProbeLog } from './lib/ingest-probe';
import { now } from './lib/ingest-probe';
import { blockLags, percentileOf, STAGE_LABELS, stageTimes, type MinedBlock, type StageOrGap } from './lib/stages';
import { numberOption } from './lib/options';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const CHAIN_ID = 31337;
const LAG_BUDGET_BLOCKS = 1;
const USAGE =
  'usage: npm run bench:follow [-- --follow-seconds S] [--block-seconds S] [--txs-per-block N] [--poll-interval MS] [--node-traces callTracer|parity] [--out DIR]';
/** How long the ingest may take to finish the load's blocks once the load has stopped. */
const DRAIN_SECONDS = 120;

type Call = (method: string, params?: unknown[]) => Promise<unknown>;

// ---------------------------------------------------------------------------------------------------
// The load

const MIX = { native: 0.3, erc20: 0.33, nftMint: 0.1, nftTransfer: 0.1, erc1155Mint: 0.08, split: 0.08 } as const;

class LoadGenerator {
  private readonly nonces = new Map<Address, number>();
  private readonly next = prng(20_261_215);
  private readonly pool: Address[];
  /** NFTs held by an account with a key, minted or moved in a block already mined: id -> owner. */
  private readonly nftOwners = new Map<bigint, Address>();
  private pendingOwners: [bigint, Address][] = [];
  private nftId = 5_000_000n;
  private creations = 0n;
  readonly sent: Record<keyof typeof MIX | 'creation', number> = {
    native: 0,
    erc20: 0,
    nftMint: 0,
    nftTransfer: 0,
    erc1155Mint: 0,
    split: 0,
    creation: 0,
  };

  constructor(
    private readonly call: Call,
    private readonly artifacts: Awaited<ReturnType<typeof loadContracts>>,
    private readonly contracts: { token: Address; nft: Address; multi: Address; splitter: Address; factory: Address },
    private readonly deployer: Address,
    private readonly holders: Address[],
  ) {
    this.pool = [
      ...holders,
      ...Array.from({ length: 1_000 }, (_, i) => getAddress(slice(keccak256(toBytes(`follow bench recipient ${i}`)), 12))),
    ];
  }

  async init(): Promise<void> {
    for (const account of [this.deployer, ...this.holders])
      this.nonces.set(account, Number(await this.call('eth_getTransactionCount', [account, 'pending'])));
  }

  private pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)] as T;
  }

  private send(from: Address, to: Address, gas: number, value: bigint, data?: Hex): Promise<unknown> {
    const nonce = this.nonces.get(from) ?? 0;
    this.nonces.set(from, nonce + 1);
    const fees = { maxFeePerGas: toHex(50_000_000_000n), maxPriorityFeePerGas: toHex(1_000_000_000n) };
    return this.call('eth_sendTransaction', [{ from, to, gas: toHex(gas), value: toHex(value), nonce: toHex(nonce), data, ...fees }]);
  }

  private encode(contract: keyof typeof this.artifacts, functionName: string, args: unknown[]): Hex {
    return encodeFunctionData({ abi: this.artifacts[contract].abi, functionName, args } as Parameters<typeof encodeFunctionData>[0]);
  }

  /** The setup: DEMO and ten NFTs for each holder, in the transaction pool (mined by the caller). */
  setup(): Promise<unknown[]> {
    const requests: Promise<unknown>[] = [];
    for (const holder of this.holders) {
      requests.push(
        this.send(this.deployer, this.contracts.token, 120_000, 0n, this.encode('DemoToken', 'mint', [holder, parseEther('1000000')])),
      );
      for (let i = 0; i < 10; i += 1) requests.push(this.mintNft(holder));
    }
    return Promise.all(requests);
  }

  private mintNft(to: Address): Promise<unknown> {
    this.nftId += 1n;
    if (this.holders.includes(to)) this.pendingOwners.push([this.nftId, to]);
    return this.send(this.deployer, this.contracts.nft, 250_000, 0n, this.encode('DemoNFT', 'mint', [to, this.nftId]));
  }

  /** One block's transactions, sent as one JSON-RPC batch; resolves when the node has them all. */
  block(count: number): Promise<unknown[]> {
    const requests: Promise<unknown>[] = [];
    const movable = [...this.nftOwners.keys()];
    const moved = new Set<bigint>();
    // One contract creation per block (a new contract: code and token probes for the ingest).
    this.creations += 1n;
    requests.push(
      this.send(this.deployer, this.contracts.factory, 400_000, 0n, this.encode('DemoFactory', 'createChild', [this.creations])),
    );
    this.sent.creation += 1;
    for (let i = 1; i < count; i += 1) {
      const kind = this.next();
      let bound = 0;
      const is = (share: number) => {
        bound += share;
        return kind < bound;
      };
      if (is(MIX.native)) {
        requests.push(
          this.send(
            this.pick(this.holders),
            this.pick(this.pool),
            21_000,
            parseEther('0.0001') * BigInt(1 + Math.floor(this.next() * 100)),
          ),
        );
        this.sent.native += 1;
      } else if (is(MIX.erc20)) {
        const amount = parseEther('0.01') * BigInt(1 + Math.floor(this.next() * 1000));
        requests.push(
          this.send(
            this.pick(this.holders),
            this.contracts.token,
            90_000,
            0n,
            this.encode('DemoToken', 'transfer', [this.pick(this.pool), amount]),
          ),
        );
        this.sent.erc20 += 1;
      } else if (is(MIX.nftMint)) {
        requests.push(this.mintNft(this.next() < 0.5 ? this.pick(this.holders) : this.pick(this.pool)));
        this.sent.nftMint += 1;
      } else if (is(MIX.nftTransfer) && movable.length > moved.size) {
        let id = this.pick(movable);
        while (moved.has(id)) id = this.pick(movable);
        moved.add(id);
        const owner = this.nftOwners.get(id)!;
        const to = this.next() < 0.5 ? this.pick(this.holders.filter((holder) => holder !== owner)) : this.pick(this.pool);
        this.nftOwners.delete(id);
        if (this.holders.includes(to)) this.pendingOwners.push([id, to]);
        requests.push(this.send(owner, this.contracts.nft, 150_000, 0n, this.encode('DemoNFT', 'transferFrom', [owner, to, id])));
        this.sent.nftTransfer += 1;
      } else if (is(MIX.erc1155Mint)) {
        const args = [this.pick(this.pool), BigInt(1 + Math.floor(this.next() * 20)), BigInt(1 + Math.floor(this.next() * 5))];
        requests.push(this.send(this.deployer, this.contracts.multi, 150_000, 0n, this.encode('DemoMulti', 'mint', args)));
        this.sent.erc1155Mint += 1;
      } else {
        const unit = parseEther('0.0001') * BigInt(1 + Math.floor(this.next() * 10));
        const data = this.encode('DemoSplitter', 'split', [
          [this.pick(this.pool), this.pick(this.pool)],
          [unit, 2n * unit],
        ]);
        requests.push(this.send(this.pick(this.holders), this.contracts.splitter, 150_000, 3n * unit, data));
        this.sent.split += 1;
      }
    }
    return Promise.all(requests);
  }

  /** After a mine: the NFTs minted to or moved to holders in that block can move from the next one on. */
  mined(): void {
    for (const [id, owner] of this.pendingOwners) this.nftOwners.set(id, owner);
    this.pendingOwners = [];
  }
}

// ---------------------------------------------------------------------------------------------------

interface Options {
  followSeconds: number;
  blockSeconds: number;
  txsPerBlock: number;
  pollIntervalMs?: number;
  nodeTraces: 'callTracer' | 'parity';
  out: string;
}

function parseOptions(): Options | undefined {
  const { values } = parseArgs({
    options: {
      'follow-seconds': { type: 'string', default: '300' },
      'block-seconds': { type: 'string', default: '2' },
      'txs-per-block': { type: 'string', default: '150' },
      'poll-interval': { type: 'string' },
      'node-traces': { type: 'string', default: 'callTracer' },
      out: { type: 'string', default: path.join(ROOT, 'bench', 'results') },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    console.log(USAGE);
    return undefined;
  }
  const number = numberOption(USAGE);
  return {
    followSeconds: number('follow-seconds', values['follow-seconds'], 4),
    blockSeconds: number('block-seconds', values['block-seconds'], 0.2),
    txsPerBlock: Math.round(number('txs-per-block', values['txs-per-block'], 1)),
    pollIntervalMs: values['poll-interval'] === undefined ? undefined : Math.round(number('poll-interval', values['poll-interval'], 1)),
    nodeTraces: nodeTraces(values['node-traces']),
    out: path.resolve(values.out),
  };
}

function nodeTraces(value: string | undefined): Options['nodeTraces'] {
  if (value === 'callTracer' || value === 'parity') return value;
  throw new Error(`--node-traces must be callTracer or parity\n${USAGE}`);
}

async function main(): Promise<void> {
  const options = parseOptions();
  if (!options) return;
  const tableName = `bench-follow-${Date.now()}`;
  const probeFile = path.join(os.tmpdir(), `bench-follow-probe-${process.pid}.json`);
  let table: TableProcess | undefined;
  let anvil: Anvil | undefined;
  let child: ChildProcess | undefined;
  let childOutput = '';
  let proxy: { url: string; close(): Promise<void> } | undefined;
  try {
    table = await startTableProcess();
    process.env.DYNAMODB_ENDPOINT = table.endpoint;
    process.env.TABLE_NAME = tableName;
    process.env.POWERTOOLS_LOG_LEVEL ??= 'ERROR';
    const admin = localClient(table.endpoint);
    await ensureTable(admin, tableName);
    admin.destroy();
    const { readCursor } = await import('../../shared/ingest/manifest');

    anvil = await startAnvil({ chainId: CHAIN_ID });
    const rpc = createPublicClient({ transport: http(anvil.rpcUrl, { batch: { batchSize: 1_000, wait: 0 }, timeout: 60_000 }) });
    const call: Call = (method, params = []) =>
      (rpc.request as (args: { method: string; params: unknown[] }) => Promise<unknown>)({ method, params });
    console.error(`anvil ${anvil.rpcUrl}; deploying the demo contracts…`);
    const deployment = await deployDemoContracts(anvil.rpcUrl);
    const artifacts = await loadContracts();
    const accounts = ((await call('eth_accounts')) as Address[]).map((account) => getAddress(account));
    const deployer = accounts[0]!;
    const load = new LoadGenerator(call, artifacts, deployment.contracts, deployer, accounts.slice(1));
    await call('evm_setAutomine', [false]);
    await load.init();
    await load.setup();
    await call('evm_mine');
    load.mined();
    const setupHead = Number(await call('eth_blockNumber'));

    // The ingest CLI, as an operator runs it, with the probe preloaded; with --node-traces parity it
    // reads anvil through a proxy that answers debug_traceBlockByNumber "method not found", so the
    // ingest takes its trace_block path (a node without a JS tracer, as Erigon or Nethermind serve).
    proxy = options.nodeTraces === 'parity' ? await startParityProxy(anvil.rpcUrl) : undefined;
    const args = [
      '--import',
      'tsx',
      '--import',
      './scripts/bench/lib/follow-hook.ts',
      'scripts/ingest.ts',
      '--rpc-url',
      proxy?.url ?? anvil.rpcUrl,
      '--follow',
      ...(options.pollIntervalMs === undefined ? [] : ['--poll-interval', String(options.pollIntervalMs)]),
    ];
    const ingest = spawn(process.execPath, args, {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, BENCH_PROBE_FILE: probeFile, NODE_NO_WARNINGS: '1' },
    });
    child = ingest;
    const keep = (chunk: Buffer) => {
      childOutput = (childOutput + chunk.toString()).slice(-20_000);
    };
    ingest.stdout?.on('data', keep);
    ingest.stderr?.on('data', keep);
    const exited = new Promise<number | null>((resolve) => ingest.once('exit', (code) => resolve(code)));
    /** Whether the cursor reached `block` before the timeout; throws when `required` and it did not. */
    const waitForCursor = async (block: number, timeoutMs: number, required: boolean): Promise<boolean> => {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const cursor = await readCursor(CHAIN_ID);
        if (cursor && cursor.blockNumber >= block) return true;
        const problem =
          ingest.exitCode !== null
            ? `the ingest exited (${ingest.exitCode}): ${childOutput.slice(-2000)}`
            : Date.now() > deadline
              ? `the ingest did not reach block ${block} within ${timeoutMs / 1000} s`
              : undefined;
        if (problem && required) throw new Error(problem);
        if (problem) {
          console.error(problem);
          return false;
        }
        await sleep(100);
      }
    };
    await waitForCursor(setupHead, 180_000, true);
    console.error(
      `ingest caught up with the setup (block ${setupHead}); load: ${options.txsPerBlock} transactions every ${options.blockSeconds} s for ${options.followSeconds} s`,
    );

    // The load: transactions for block k are sent right after block k-1 is mined; block k is mined on the beat.
    const blocks = Math.max(1, Math.floor(options.followSeconds / options.blockSeconds));
    const mined: MinedBlock[] = [];
    const sendMs: number[] = [];
    const mineMs: number[] = [];
    let late = 0;
    const sendBlock = async () => {
      const started = now();
      await load.block(options.txsPerBlock);
      sendMs.push(now() - started);
    };
    const t0 = now() + options.blockSeconds * 1000;
    let sending = sendBlock();
    for (let index = 0; index < blocks; index += 1) {
      const beat = t0 + index * options.blockSeconds * 1000;
      await sending;
      const wait = beat - now();
      if (wait > 0) await sleep(wait);
      else late += 1;
      const started = now();
      await call('evm_mine');
      const minedAt = now();
      mineMs.push(minedAt - started);
      mined.push({ number: setupHead + index + 1, minedAt });
      load.mined();
      if ((index + 1) % 15 === 0) console.error(`load: block ${index + 1}/${blocks} mined`);
      if (index + 1 < blocks) sending = sendBlock();
    }
    const lastBlock = setupHead + blocks;
    const head = Number(await call('eth_blockNumber'));
    if (head !== lastBlock) throw new Error(`the chain's head is ${head}, expected ${lastBlock}`);
    const drained = await waitForCursor(lastBlock, DRAIN_SECONDS * 1000, false);
    const drainedAt = now();
    const ingestExit = ingest.exitCode;
    if (ingestExit === null) ingest.kill('SIGTERM');
    const timer = setTimeout(() => ingest.kill('SIGKILL'), 30_000);
    const code = await exited;
    clearTimeout(timer);
    const probeText = await readFile(probeFile, 'utf8').catch(() => undefined);
    if (probeText === undefined) throw new Error(`the ingest left no probe file (exit ${code}): ${childOutput.slice(-2000)}`);
    const probe = JSON.parse(probeText) as ProbeLog;
    const ingestOutcome = drained
      ? 'followed to the last load block'
      : ingestExit !== null
        ? `the ingest stopped by itself (exit ${ingestExit}) before the last load block: ${lastLine(childOutput)}`
        : `the ingest had not reached the last load block ${DRAIN_SECONDS} s after the load stopped`;
    if (drained && code !== 0) throw new Error(`the ingest exited with ${code}: ${childOutput.slice(-2000)}`);

    // Every sent transaction is in a load block.
    const counts = (await Promise.all(mined.map((block) => call('eth_getBlockTransactionCountByNumber', [toHex(block.number)])))) as Hex[];
    const included = counts.reduce((sum, count) => sum + Number(count), 0);
    const sentTotal = Object.values(load.sent).reduce((sum, n) => sum + n, 0);
    if (included !== sentTotal) throw new Error(`the load blocks hold ${included} transactions, ${sentTotal} were sent`);

    const report = summarise({
      options,
      mined,
      probe,
      setupHead,
      lastBlock,
      sendMs,
      mineMs,
      late,
      included,
      sent: load.sent,
      drainedAt,
      ingestOutcome,
    });
    const stamp = new Date(report.date)
      .toISOString()
      .replace(/\.\d+Z$/, 'Z')
      .replace(/:/g, '-');
    await mkdir(options.out, { recursive: true });
    const markdown = followMarkdown(report);
    await writeAtomically(path.join(options.out, `follow-${stamp}.json`), `${JSON.stringify(report, null, 2)}\n`);
    await writeAtomically(path.join(options.out, `follow-${stamp}.md`), markdown);
    await writeAtomically(path.join(options.out, 'follow-latest.md'), markdown);
    console.error(`\n${markdown}`);
    console.error(`written: ${path.relative(ROOT, path.join(options.out, `follow-${stamp}.json`))}, .md and follow-latest.md`);
  } finally {
    if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await proxy?.close();
    await anvil?.stop();
    await table?.close();
    await rm(probeFile, { force: true });
  }
}

// ---------------------------------------------------------------------------------------------------
// Figures

export interface FollowResult {
  date: string;
  machine: { cpus: number; cpuModel: string; node: string };
  settings: {
    followSeconds: number;
    blockSeconds: number;
    txsPerBlock: number;
    pollIntervalMs: number | 'CLI default (1000)';
    /** callTracer: anvil as it is; parity: debug_traceBlockByNumber refused by a proxy, the ingest reads trace_block. */
    nodeTraces: 'callTracer' | 'parity';
    mix: Record<string, number>;
  };
  ingestOutcome: string;
  chain: {
    setupHead: number;
    loadBlocks: { from: number; to: number; count: number };
    transactions: number;
    sent: Record<string, number>;
    sendMs: { p50: number | null; max: number | null };
    mineMs: { p50: number | null; max: number | null };
    minedIntervalSeconds: { p50: number | null; max: number | null };
    lateBeats: number;
  };
  lag: {
    blocks: { p50: number | null; p99: number | null; max: number | null };
    seconds: { p50: number | null; p99: number | null; max: number | null };
    notDone: number;
    perBlock: { number: number; seconds: number | null; blocks: number | null }[];
  };
  budget: { p99LagBlocks: number; pass: boolean };
  ingest: {
    batches: number;
    blocksPerBatch: { mean: number | null; max: number | null };
    batchSeconds: { p50: number | null; p99: number | null; max: number | null };
    /** The ingest's JSON-RPC requests that carried a block fetch (block, receipts or traces), over the load window. */
    fetchRequestSeconds: { p50: number | null; p99: number | null; max: number | null; count: number };
    /** The last load block the cursor reached, and the rate the ingest kept over the load (load blocks done / seconds from the first mined to the last cursor move). */
    reachedBlock: number | null;
    blocksPerSecond: number | null;
    transactionsPerSecondOffered: number;
  };
  profile: {
    method: string;
    labels: Record<StageOrGap, string>;
    /** Mean ms per block of its lag, by stage. */
    meanLagMsByStage: Record<StageOrGap, number>;
    /** The same over the blocks whose lag is at or above the p90. */
    slowestTenthLagMsByStage: Record<StageOrGap, number>;
    /** Over the whole load window: exclusive ms by stage. */
    windowMsByStage: Record<StageOrGap, number>;
    windowSeconds: number;
    batchesUnobserved: boolean;
  };
}

const r2 = (value: number | null): number | null => (value === null ? null : Math.round(value * 100) / 100);

function summarise(input: {
  options: Options;
  mined: MinedBlock[];
  probe: ProbeLog;
  setupHead: number;
  lastBlock: number;
  sendMs: number[];
  mineMs: number[];
  late: number;
  included: number;
  sent: Record<string, number>;
  drainedAt: number;
  ingestOutcome: string;
}): FollowResult {
  const { options, mined, probe } = input;
  const beatMs = options.blockSeconds * 1000;
  const lags = blockLags(mined, probe.cursorMoves, beatMs);
  const notDone = lags.filter((lag) => lag.doneAt === null).length;
  // A block never seen done counts with the lag it had when the bench stopped (a lower bound).
  const seconds = lags.map((lag) => lag.seconds ?? (input.drainedAt - lag.minedAt) / 1000);
  const lastMined = mined.at(-1)?.minedAt ?? 0;
  const lagBlocks = lags.map(
    (lag) =>
      lag.blocks ??
      mined.filter((block) => block.minedAt > lag.minedAt).length + Math.floor(Math.max(0, input.drainedAt - lastMined) / beatMs),
  );
  const intervals = mined.slice(1).map((block, index) => (block.minedAt - mined[index]!.minedAt) / 1000);
  const zero = () => Object.fromEntries(Object.keys(STAGE_LABELS).map((stage) => [stage, 0])) as Record<StageOrGap, number>;
  const mean = (rows: Record<StageOrGap, number>[]) => {
    const total = zero();
    for (const row of rows) for (const [stage, ms] of Object.entries(row)) total[stage as StageOrGap] += ms / rows.length;
    for (const stage of Object.keys(total)) total[stage as StageOrGap] = Math.round(total[stage as StageOrGap]);
    return total;
  };
  const perBlock = lags
    .filter((lag) => lag.doneAt !== null)
    .map((lag) => ({ lag, stages: stageTimes(probe.intervals, probe.batches, lag.minedAt, lag.doneAt!) }));
  const p90 = percentileOf(seconds, 90) ?? 0;
  const windowFrom = mined[0]?.minedAt ?? 0;
  const windowTo = input.drainedAt;
  const loadBatches = probe.batches.filter((batch) => batch.blocks.some((number) => number > input.setupHead));
  const batchSeconds = loadBatches.map((batch) => (batch.end - batch.start) / 1000);
  const p99Blocks = percentileOf(lagBlocks, 99);
  const fetchSeconds = probe.intervals
    .filter((interval) => interval.stage === 'fetch' && interval.start >= windowFrom && interval.start <= windowTo)
    .map((interval) => (interval.end - interval.start) / 1000);
  const loadMoves = probe.cursorMoves.filter((move) => move.blockNumber > input.setupHead);
  const reached = loadMoves.length === 0 ? null : Math.max(...loadMoves.map((move) => move.blockNumber));
  const lastMove = loadMoves.length === 0 ? null : Math.max(...loadMoves.map((move) => move.at));
  const rate = reached === null || lastMove === null ? null : (reached - input.setupHead) / ((lastMove - windowFrom) / 1000);
  return {
    date: new Date().toISOString(),
    machine: { cpus: os.cpus().length, cpuModel: os.cpus()[0]?.model ?? '?', node: process.version },
    settings: {
      followSeconds: options.followSeconds,
      blockSeconds: options.blockSeconds,
      txsPerBlock: options.txsPerBlock,
      pollIntervalMs: options.pollIntervalMs ?? 'CLI default (1000)',
      nodeTraces: options.nodeTraces,
      mix: { ...MIX, creation: 1 / options.txsPerBlock },
    },
    ingestOutcome: input.ingestOutcome,
    chain: {
      setupHead: input.setupHead,
      loadBlocks: { from: input.setupHead + 1, to: input.lastBlock, count: mined.length },
      transactions: input.included,
      sent: input.sent,
      sendMs: { p50: r2(percentileOf(input.sendMs, 50)), max: r2(percentileOf(input.sendMs, 100)) },
      mineMs: { p50: r2(percentileOf(input.mineMs, 50)), max: r2(percentileOf(input.mineMs, 100)) },
      minedIntervalSeconds: { p50: r2(percentileOf(intervals, 50)), max: r2(percentileOf(intervals, 100)) },
      lateBeats: input.late,
    },
    lag: {
      blocks: { p50: percentileOf(lagBlocks, 50), p99: p99Blocks, max: percentileOf(lagBlocks, 100) },
      seconds: { p50: r2(percentileOf(seconds, 50)), p99: r2(percentileOf(seconds, 99)), max: r2(percentileOf(seconds, 100)) },
      notDone,
      perBlock: lags.map((lag, index) => ({ number: lag.number, seconds: r2(seconds[index] ?? null), blocks: lagBlocks[index] ?? null })),
    },
    budget: { p99LagBlocks: LAG_BUDGET_BLOCKS, pass: notDone === 0 && p99Blocks !== null && p99Blocks <= LAG_BUDGET_BLOCKS },
    ingest: {
      batches: loadBatches.length,
      blocksPerBatch: {
        mean: r2(loadBatches.length === 0 ? null : loadBatches.reduce((sum, batch) => sum + batch.blocks.length, 0) / loadBatches.length),
        max: loadBatches.length === 0 ? null : Math.max(...loadBatches.map((batch) => batch.blocks.length)),
      },
      batchSeconds: {
        p50: r2(percentileOf(batchSeconds, 50)),
        p99: r2(percentileOf(batchSeconds, 99)),
        max: r2(percentileOf(batchSeconds, 100)),
      },
      reachedBlock: reached,
      blocksPerSecond: r2(rate),
      transactionsPerSecondOffered: r2(options.txsPerBlock / options.blockSeconds) ?? 0,
      fetchRequestSeconds: {
        p50: r2(percentileOf(fetchSeconds, 50)),
        p99: r2(percentileOf(fetchSeconds, 99)),
        max: r2(percentileOf(fetchSeconds, 100)),
        count: fetchSeconds.length,
      },
    },
    profile: {
      method:
        "each block's lag (mined -> cursor moved past it) split by stage: inside a batch each instant goes to the writer's request in flight (cursor > state writes > item writes > manifests > positions > listeners > table reads > chain reads > head checks), else derive (CPU); between batches to the same, else fetchWait (only the prefetcher's fetch in flight), else idle (the poll sleep)",
      labels: STAGE_LABELS,
      meanLagMsByStage: mean(perBlock.map((entry) => entry.stages)),
      slowestTenthLagMsByStage: mean(perBlock.filter((entry) => (entry.lag.seconds ?? 0) >= p90).map((entry) => entry.stages)),
      windowMsByStage: mean([stageTimes(probe.intervals, probe.batches, windowFrom, windowTo)]),
      windowSeconds: r2((windowTo - windowFrom) / 1000) ?? 0,
      batchesUnobserved: probe.batchesUnobserved,
    },
  };
}

export function followMarkdown(r: FollowResult): string {
  const rows = (Object.keys(STAGE_LABELS) as StageOrGap[])
    .filter((stage) => r.profile.windowMsByStage[stage] > 0 || r.profile.meanLagMsByStage[stage] > 0)
    .sort((a, b) => r.profile.meanLagMsByStage[b] - r.profile.meanLagMsByStage[a])
    .map(
      (stage) =>
        `| ${stage}: ${STAGE_LABELS[stage]} | ${r.profile.meanLagMsByStage[stage]} | ${r.profile.slowestTenthLagMsByStage[stage]} | ${r.profile.windowMsByStage[stage]} |`,
    );
  return `# Follow benchmark, ${r.date}

${r.budget.pass ? 'PASS' : 'FAIL'}: lag p99 **${r.lag.blocks.p99} blocks** (budget <= ${r.budget.p99LagBlocks}), ${r.lag.seconds.p99} s.

Load: ${r.settings.txsPerBlock} transactions a block, a block every ${r.settings.blockSeconds} s for ${r.settings.followSeconds} s: blocks ${r.chain.loadBlocks.from}..${r.chain.loadBlocks.to} (${r.chain.loadBlocks.count}), ${r.chain.transactions} transactions (${Object.entries(
    r.chain.sent,
  )
    .map(([kind, n]) => `${kind} ${n}`)
    .join(
      ', ',
    )}). Sending a block's transactions took p50 ${r.chain.sendMs.p50} ms (max ${r.chain.sendMs.max}); evm_mine p50 ${r.chain.mineMs.p50} ms (max ${r.chain.mineMs.max}); blocks ${r.chain.minedIntervalSeconds.p50} s apart (max ${r.chain.minedIntervalSeconds.max}), ${r.chain.lateBeats} beats late. Ingest: \`npm run ingest -- --follow\` (poll interval ${r.settings.pollIntervalMs}) in its own process, table in its own process; node traces: ${r.settings.nodeTraces === 'parity' ? 'trace_block (debug_traceBlockByNumber refused by a proxy)' : 'debug_traceBlockByNumber with the callTracer (anvil as it is)'}. Outcome: ${r.ingestOutcome}. Machine: ${r.machine.cpus} CPUs (${r.machine.cpuModel}), Node ${r.machine.node}.

| lag | p50 | p99 | max |
|---|---|---|---|
| blocks (mined while the ingest had it in hand; after the load, beats of the block time) | ${r.lag.blocks.p50} | ${r.lag.blocks.p99} | ${r.lag.blocks.max} |
| seconds (evm_mine returned -> cursor moved past it) | ${r.lag.seconds.p50} | ${r.lag.seconds.p99} | ${r.lag.seconds.max} |

${r.lag.notDone > 0 ? `**${r.lag.notDone} blocks were never seen done.**\n\n` : ''}The ingest reached block ${r.ingest.reachedBlock ?? '-'} of ${r.chain.loadBlocks.to}, at ${r.ingest.blocksPerSecond ?? '-'} blocks/s over the load (${r.settings.txsPerBlock / r.settings.blockSeconds} transactions/s offered = ${(1 / r.settings.blockSeconds).toFixed(2)} blocks/s). Batches over the load: ${r.ingest.batches} (mean ${r.ingest.blocksPerBatch.mean} blocks, max ${r.ingest.blocksPerBatch.max}); a batch's writeBatch took p50 ${r.ingest.batchSeconds.p50} s, p99 ${r.ingest.batchSeconds.p99} s, max ${r.ingest.batchSeconds.max} s. The ingest's block-fetch requests (block, receipts or traces; ${r.ingest.fetchRequestSeconds.count}) took p50 ${r.ingest.fetchRequestSeconds.p50} s, p99 ${r.ingest.fetchRequestSeconds.p99} s, max ${r.ingest.fetchRequestSeconds.max} s.

## Where a block's lag goes
${r.profile.method}.${r.profile.batchesUnobserved ? ' **The ingest had no writeBatch to observe: batches unknown.**' : ''}

| stage | mean ms of a block's lag | mean ms, slowest tenth | ms over the whole load window (${r.profile.windowSeconds} s) |
|---|---|---|---|
${rows.join('\n')}
`;
}

function lastLine(output: string): string {
  const lines = output
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter(Boolean);
  return (lines.at(-1) ?? '').slice(0, 300);
}

/** A JSON-RPC proxy to `target` that answers every debug_traceBlockByNumber with "method not found". */
async function startParityProxy(target: string): Promise<{ url: string; close(): Promise<void> }> {
  const refused = (call: { id?: unknown }) => ({
    jsonrpc: '2.0',
    id: call.id ?? null,
    error: { code: -32601, message: 'Method not found' },
  });
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', async () => {
      try {
        const body = JSON.parse(Buffer.concat(chunks).toString()) as
          | { id?: unknown; method?: string }
          | { id?: unknown; method?: string }[];
        const calls = Array.isArray(body) ? body : [body];
        const forwarded = calls.filter((call) => call.method !== 'debug_traceBlockByNumber');
        const answers = new Map<unknown, unknown>();
        if (forwarded.length > 0) {
          const upstream = await fetch(target, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify(forwarded),
          });
          for (const answer of (await upstream.json()) as { id?: unknown }[]) answers.set(answer.id, answer);
        }
        const out = calls.map((call) => (call.method === 'debug_traceBlockByNumber' ? refused(call) : answers.get(call.id)));
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(JSON.stringify(Array.isArray(body) ? out : out[0]));
      } catch (error) {
        response.writeHead(502);
        response.end(String(error));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function writeAtomically(file: string, text: string): Promise<void> {
  await writeFile(`${file}.tmp`, text);
  await rename(`${file}.tmp`, file);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().then(
    () => process.exit(0),
    (error: unknown) => {
      console.error(`follow bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
      process.exit(1);
    },
  );
}
