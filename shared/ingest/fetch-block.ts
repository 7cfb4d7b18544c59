/**
 * Reading one block from a node, with viem: the block with its transactions, the receipts
 * (eth_getBlockReceipts, else one eth_getTransactionReceipt per transaction), the call traces
 * (debug_traceBlockByNumber with the callTracer, else parity's trace_block, else none: logged once)
 * and the revert data of failed transactions (from the trace, else by replaying the call with
 * eth_call at the parent block).
 *
 * Every answer is checked against the block before it is used: a receipt or a trace of another block
 * (a node behind a load balancer answering from a different head, a reorg between two calls) is a
 * fault like a timeout, and the whole block is fetched again with exponential backoff.
 *
 * A fallback is not for good: every RETRY_PREFERRED_EVERY_BLOCKS blocks or RETRY_PREFERRED_EVERY_MS
 * (whichever first) the preferred method is tried again, so a wrong conclusion heals. And a block
 * whose traces keep failing while the block and its receipts are read (an answer over the size limit,
 * a tracer timeout, a transaction the tracer fails on) is returned without traces after
 * TRACE_ATTEMPTS_PER_BLOCK attempts, logged: one block must not stop the chain's ingest.
 *
 * Blocks and receipts are read as the node's raw JSON (rpc-block.ts), exact at any size and with
 * the header and receipt fields a chain may omit left null, not through viem's formatters.
 */
import { BaseError, HttpRequestError, RpcRequestError, TimeoutError, type Hex } from 'viem';
import { DEFAULT_RPC_TIMEOUT_MS, MAX_RPC_TIMEOUT_MS, requestWithin, type ChainClient } from '../chain/client';
import { decodeRevertReason } from '../chain/decode';
import { errorMessage, isMethodUnsupportedError, withBackoff, type RetryPolicy } from '../chain/retry';
import { isRateLimitStatus } from '../chain/rpc-errors';
import { parseBlock, parseReceipt, type ChainBlock, type ChainReceipt, type ChainTransaction } from '../chain/rpc-block';
import { flattenCallTracerFrame, groupParityTraces, type CallTracerFrame, type ParityTrace, type TransactionTrace } from '../chain/trace';
import { IncompleteBatchError, ResponseTooLargeError } from '../chain/transport';

export type FullBlock = ChainBlock;

export interface BlockBundle {
  block: ChainBlock;
  /** One per transaction, in block order. */
  receipts: ChainReceipt[];
  /** One per transaction, in block order; null when the node serves no traces. */
  traces: TransactionTrace[] | null;
  /** Revert reason of each failed transaction, by hash. */
  revertReasons: Map<string, string | null>;
}

export type TraceMethod = 'callTracer' | 'parity' | 'none';

export interface BlockSourceLog {
  warn(message: string, details?: Record<string, unknown>): void;
}

/** A malformed or inconsistent answer: retried like a transport fault. */
export class InconsistentAnswerError extends Error {
  override name = 'InconsistentAnswerError';
}

/**
 * A block trace slower than this (or one that timed out) shows a node that traces slowly, and
 * perhaps one block at a time (anvil takes ~5 s for a block of 150 transactions): from then on the
 * source asks for one trace at a time, so that prefetched blocks' traces do not queue at the node
 * past the client's timeout.
 */
export const SLOW_TRACE_MS = 2_000;

/**
 * After a fallback (callTracer -> trace_block -> none, eth_getBlockReceipts -> one receipt per
 * transaction), the preferred method is tried again after this many blocks or this long, whichever
 * comes first: a refusal concluded from an outage or a misread answer heals, and a node that gains
 * the method is used. A node that truly refuses it costs one refused call per period.
 */
export const RETRY_PREFERRED_EVERY_BLOCKS = 1_000;
export const RETRY_PREFERRED_EVERY_MS = 10 * 60_000;

/**
 * Attempts at a block's traces, while the block and its receipts are read, before the block is
 * returned without them (`traces: null`: its transactions get `tracesAvailable: false`, revert
 * reasons come from the replay). Counted per block across its fetch attempts (failures that say
 * nothing about the block, such as rate limits, resets or malformed answers, are not counted); an
 * entry is dropped once its block is returned, and at most MAX_TRACE_FAILURE_ENTRIES are kept.
 */
export const TRACE_ATTEMPTS_PER_BLOCK = 3;
const MAX_TRACE_FAILURE_ENTRIES = 256;

/**
 * Time a node may take per transaction of a block, beyond the client's timeout, for the block's
 * receipts and traces: a node's answer for a large block takes time in proportion to it (anvil's
 * eth_getBlockReceipts for 9,000 ERC-20 transfers: 65 s; a fixed 10 s timed out on every attempt and
 * stopped the chain). 10 ms gives a 3,000-transaction block 40 s and a 10,000-transaction one 110 s.
 */
export const RPC_MS_PER_TRANSACTION = 10;

/**
 * The timeout of a request about a block of `transactions` after `timeouts` timed-out attempts at it:
 * the client's timeout plus RPC_MS_PER_TRANSACTION a transaction, doubled after each attempt that
 * timed out (so a fixed timeout never repeats forever), at most MAX_RPC_TIMEOUT_MS.
 */
export function blockRequestTimeoutMs(baseMs: number, transactions: number, timeouts: number): number {
  return Math.min(MAX_RPC_TIMEOUT_MS, (baseMs + RPC_MS_PER_TRANSACTION * transactions) * 2 ** Math.min(timeouts, 16));
}

/** Whether `error` is (or wraps) a request that timed out. */
export function isTimeout(error: unknown): boolean {
  return error instanceof BaseError && error.walk((cause) => cause instanceof TimeoutError) !== null;
}

export interface BlockSourceOptions {
  /** Overrides RETRY_PREFERRED_EVERY_BLOCKS / RETRY_PREFERRED_EVERY_MS (tests). */
  retryPreferredEvery?: { blocks: number; ms: number };
}

/** When the source fell back from a method, and whether the preferred one is due to be tried again. */
class FallbackClock {
  private since: number | undefined;
  private blocks = 0;

  constructor(private readonly every: { blocks: number; ms: number }) {}

  /** A fallback was taken (the clock starts, unless it runs already). */
  fellBack(now = Date.now()): void {
    if (this.since !== undefined) return;
    this.since = now;
    this.blocks = 0;
  }

  /** The preferred method is served: no fallback any more. */
  recovered(): void {
    this.since = undefined;
    this.blocks = 0;
  }

  /** Counts one block read while fallen back. */
  tick(): void {
    if (this.since !== undefined) this.blocks += 1;
  }

  /** Whether the preferred method is due to be tried again; if so the clock restarts (one try per period). */
  due(now = Date.now()): boolean {
    if (this.since === undefined) return false;
    if (this.blocks < this.every.blocks && now - this.since < this.every.ms) return false;
    this.since = now;
    this.blocks = 0;
    return true;
  }
}

export class BlockSource {
  private blockReceipts: boolean | undefined;
  private traceMethod: TraceMethod | undefined;
  /** The operator chose the trace method: it is never found out, nor tried again. */
  private readonly traceMethodChosen: boolean;
  private readonly traceClock: FallbackClock;
  private readonly receiptsClock: FallbackClock;
  /** Failed attempts at a block's traces, by block number (for the block of that hash). */
  private readonly traceFailures = new Map<bigint, { hash: string; failures: number }>();
  /** Attempts at a block that timed out, by block number (their requests' timeouts grow: blockRequestTimeoutMs). */
  private readonly timeouts = new Map<bigint, number>();
  /** Set once a trace was slow: traces are then read one at a time, in `traceLane`. */
  private slowTraces = false;
  private traceLane: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly client: ChainClient,
    private readonly policy: RetryPolicy,
    private readonly log: BlockSourceLog,
    /**
     * How traces are read; default: found out (callTracer, else parity's trace_block, else none). A
     * node whose callTracer is slow on big blocks (anvil: ~5 s for 150 transactions) is better read
     * with `parity`.
     */
    traceMethod?: TraceMethod,
    options: BlockSourceOptions = {},
  ) {
    this.traceMethod = traceMethod;
    this.traceMethodChosen = traceMethod !== undefined;
    const every = options.retryPreferredEvery ?? { blocks: RETRY_PREFERRED_EVERY_BLOCKS, ms: RETRY_PREFERRED_EVERY_MS };
    this.traceClock = new FallbackClock(every);
    this.receiptsClock = new FallbackClock(every);
  }

  /** The block, receipts, traces and revert reasons of `blockNumber`, all consistent with one block hash. */
  async fetch(blockNumber: bigint): Promise<BlockBundle> {
    try {
      return await withBackoff(
        `block ${blockNumber}`,
        this.policy,
        () => this.fetchOnce(blockNumber),
        (error, attempt) => {
          if (isTimeout(error)) {
            const count = (this.timeouts.get(blockNumber) ?? 0) + 1;
            this.timeouts.delete(blockNumber);
            this.timeouts.set(blockNumber, count);
            while (this.timeouts.size > MAX_TRACE_FAILURE_ENTRIES) this.timeouts.delete(this.timeouts.keys().next().value!);
          }
          this.log.warn('retrying block fetch', {
            blockNumber: Number(blockNumber),
            attempt,
            error: errorMessage(error),
            ...(isTimeout(error) ? { nextTimeoutMs: this.timeoutFor(blockNumber, 0) } : {}),
          });
        },
      );
    } finally {
      this.timeouts.delete(blockNumber);
    }
  }

  /** The timeout of a request about block `blockNumber` of `transactions` (blockRequestTimeoutMs). */
  private timeoutFor(blockNumber: bigint, transactions: number): number {
    return blockRequestTimeoutMs(this.client.timeoutMs ?? DEFAULT_RPC_TIMEOUT_MS, transactions, this.timeouts.get(blockNumber) ?? 0);
  }

  /** Hash of the block at `blockNumber` on the node's canonical chain, or null past its head. */
  blockHashAt(blockNumber: bigint): Promise<string | null> {
    return withBackoff(`block hash ${blockNumber}`, this.policy, async () => {
      const block = await this.rawRequest('eth_getBlockByNumber', [toTag(blockNumber), false]);
      if (block === null || block === undefined) return null;
      const hash = (block as { hash?: unknown }).hash;
      if (typeof hash !== 'string' || !/^0x[0-9a-fA-F]{64}$/.test(hash)) {
        throw new InconsistentAnswerError(`eth_getBlockByNumber(${blockNumber}): hash is ${String(hash)}`);
      }
      return hash.toLowerCase();
    });
  }

  headBlockNumber(): Promise<bigint> {
    return withBackoff('head block number', this.policy, () => this.client.getBlockNumber({ cacheTime: 0 }));
  }

  /** What the node was found to serve so far (undefined: not yet found out): recorded in the chain's status. */
  capabilities(): { traceMethod: TraceMethod | undefined; blockReceipts: boolean | undefined } {
    return { traceMethod: this.traceMethod, blockReceipts: this.blockReceipts };
  }

  /**
   * A JSON-RPC request whose answer is read raw (rpc-block.ts parses it); with `timeoutMs`, that
   * timeout instead of the client's.
   */
  private rawRequest(method: string, params: unknown[], timeoutMs?: number): Promise<unknown> {
    if (timeoutMs !== undefined) return requestWithin(this.client, { method, params }, timeoutMs);
    return this.client.request({ method: method as 'eth_chainId', params: params as unknown as undefined }) as Promise<unknown>;
  }

  private async fetchOnce(blockNumber: bigint): Promise<BlockBundle> {
    const block = parseBlock(await this.rawRequest('eth_getBlockByNumber', [toTag(blockNumber), true], this.timeoutFor(blockNumber, 0)));
    checkBlock(block, blockNumber);
    this.traceClock.tick();
    this.receiptsClock.tick();
    const hash = String(block.hash).toLowerCase();
    const failed = this.traceFailures.get(blockNumber);
    const givenUp = failed !== undefined && failed.hash === hash && failed.failures >= TRACE_ATTEMPTS_PER_BLOCK;
    const [receipts, traced] = await Promise.all([
      this.fetchReceipts(block),
      givenUp
        ? { traces: null }
        : this.fetchTraces(block).then(
            (traces) => {
              if (traces) checkTraces(block, traces);
              return { traces };
            },
            (error: unknown) => ({ error }),
          ),
    ]);
    checkReceipts(block, receipts);
    let traces: TransactionTrace[] | null;
    if ('error' in traced) {
      traces = this.traceFailed(block, hash, traced.error);
    } else {
      traces = traced.traces;
    }
    const revertReasons = await this.revertReasons(block, receipts, traces);
    this.traceFailures.delete(blockNumber);
    return { block, receipts, traces, revertReasons };
  }

  /**
   * The block and its receipts were read but its traces failed: rethrown (the block is fetched again)
   * until they failed TRACE_ATTEMPTS_PER_BLOCK times, then none (logged). Request-wide faults that say
   * nothing about the block (rate limits, resets, malformed JSON) are rethrown uncounted.
   */
  private traceFailed(block: ChainBlock, hash: string, error: unknown): null {
    if (isRequestFault(error)) throw error;
    const previous = this.traceFailures.get(block.number);
    const failures = (previous?.hash === hash ? previous.failures : 0) + 1;
    this.traceFailures.delete(block.number);
    this.traceFailures.set(block.number, { hash, failures });
    while (this.traceFailures.size > MAX_TRACE_FAILURE_ENTRIES) this.traceFailures.delete(this.traceFailures.keys().next().value!);
    if (failures < TRACE_ATTEMPTS_PER_BLOCK) throw error;
    this.log.warn(
      `block ${block.number}: its traces failed ${failures} times; stored without traces (internal transactions not indexed; re-read them with --repair)`,
      { blockNumber: Number(block.number), attempts: failures, error: errorMessage(error) },
    );
    return null;
  }

  private async fetchReceipts(block: ChainBlock): Promise<ChainReceipt[]> {
    if (block.transactions.length === 0) return [];
    const retry = this.blockReceipts === false && this.receiptsClock.due();
    if (this.blockReceipts !== false || retry) {
      try {
        const receipts = await this.rawRequest(
          'eth_getBlockReceipts',
          [toTag(block.number)],
          this.timeoutFor(block.number, block.transactions.length),
        );
        if (!Array.isArray(receipts)) throw new InconsistentAnswerError(`eth_getBlockReceipts(${block.number}): not a list`);
        if (this.blockReceipts === false) this.log.warn('eth_getBlockReceipts is served again: reading receipts by block');
        this.blockReceipts = true;
        this.receiptsClock.recovered();
        return receipts.map(parseReceipt);
      } catch (error) {
        if (!isMethodUnsupportedError(error)) {
          // A retry of the preferred method that failed otherwise: the fallback answers this block.
          if (!retry) throw error;
        } else if (this.blockReceipts !== false) {
          this.blockReceipts = false;
          this.log.warn('eth_getBlockReceipts is not served: reading receipts one transaction at a time', {
            retryAfterBlocks: RETRY_PREFERRED_EVERY_BLOCKS,
          });
        }
        this.receiptsClock.fellBack();
      }
    }
    return Promise.all(
      block.transactions.map(async (tx) => {
        const receipt = await this.rawRequest('eth_getTransactionReceipt', [tx.hash]);
        if (receipt === null) throw new InconsistentAnswerError(`block ${block.number}: no receipt yet for ${tx.hash}`);
        return parseReceipt(receipt);
      }),
    );
  }

  private async fetchTraces(block: ChainBlock): Promise<TransactionTrace[] | null> {
    if (block.transactions.length === 0) return this.traceMethod === 'none' ? null : [];
    if (!this.slowTraces) return this.timedTraces(block);
    const turn = this.traceLane.then(() => this.timedTraces(block));
    this.traceLane = turn.catch(() => undefined);
    return turn;
  }

  private async timedTraces(block: ChainBlock): Promise<TransactionTrace[] | null> {
    const started = Date.now();
    let timedOut = false;
    try {
      return await this.readTraces(block);
    } catch (error) {
      timedOut = isTimeout(error);
      throw error;
    } finally {
      this.noteTraceTime(block, Date.now() - started, timedOut);
    }
  }

  /** A block's traces took `ms` (or timed out): once one is slow, they are read one block at a time. */
  private noteTraceTime(block: ChainBlock, ms: number, timedOut: boolean): void {
    if (this.slowTraces || !(timedOut || ms > SLOW_TRACE_MS)) return;
    this.slowTraces = true;
    this.log.warn('block traces are slow on this node: reading them one block at a time', {
      blockNumber: Number(block.number),
      ms,
      timedOut,
    });
  }

  private async readTraces(block: ChainBlock): Promise<TransactionTrace[] | null> {
    const blockTag = toTag(block.number);
    // Fallen back (not chosen by the operator): now and then the preferred method is tried again.
    const retry = !this.traceMethodChosen && this.traceClock.due();
    const concluded = this.traceMethod;
    let method = retry ? 'callTracer' : concluded;
    const timeoutMs = this.timeoutFor(block.number, block.transactions.length);
    if (method === undefined || method === 'callTracer') {
      try {
        const result = (await this.rawRequest('debug_traceBlockByNumber', [blockTag, { tracer: 'callTracer' }], timeoutMs)) as {
          txHash?: Hex;
          result?: CallTracerFrame;
          error?: string;
        }[];
        if (!Array.isArray(result)) throw new InconsistentAnswerError('debug_traceBlockByNumber: not an array');
        if (retry && this.traceMethod !== 'callTracer') {
          this.log.warn('debug_traceBlockByNumber is served again: traces by the callTracer', { blockNumber: Number(block.number) });
        }
        this.traceMethod = 'callTracer';
        this.traceClock.recovered();
        return result.map((entry) => {
          if (!entry?.result) throw new InconsistentAnswerError(`debug_traceBlockByNumber: no trace (${entry?.error ?? 'empty entry'})`);
          return flattenCallTracerFrame(entry.result, (entry.txHash?.toLowerCase() as Hex | undefined) ?? null);
        });
      } catch (error) {
        const refused = isMethodUnsupportedError(error);
        // The block's callTracer answer took longer than its timeout (anvil's callTracer takes time in
        // the square of a block's transactions: minutes for 2,000): parity's trace_block, where the node
        // serves it, reads this block (the same calls); the method stays callTracer for the others.
        if (!refused && !retry && isTimeout(error) && !this.traceMethodChosen) {
          // (A node that queues its traces times out too: from now on they are read one at a time.)
          this.noteTraceTime(block, timeoutMs, true);
          const parity = await this.parityTraces(block, timeoutMs).catch(() => undefined);
          if (parity) {
            this.log.warn('block traces timed out with the callTracer: this block read with trace_block', {
              blockNumber: Number(block.number),
              transactions: block.transactions.length,
              timeoutMs,
            });
            return parity;
          }
        }
        // A retry that failed otherwise: the method found before answers this block.
        if (!refused && !retry) throw error;
        method = refused ? 'parity' : concluded;
        if (refused) {
          if (this.traceMethod === undefined || this.traceMethod === 'callTracer') this.traceMethod = 'parity';
          this.traceClock.fellBack();
        }
      }
    }
    if (method === 'parity') {
      try {
        const traces = await this.parityTraces(block, timeoutMs);
        if (this.traceMethod === 'none') {
          this.log.warn('trace_block is served again: traces by trace_block', { blockNumber: Number(block.number) });
          this.traceMethod = 'parity';
        }
        return traces;
      } catch (error) {
        if (!isMethodUnsupportedError(error)) {
          if (!(retry && concluded === 'none')) throw error;
        } else if ((this.traceMethod as TraceMethod) !== 'none') {
          // Blocks already in flight meet the same refusal: the first to find out says so, once.
          this.traceMethod = 'none';
          this.log.warn('the node serves neither debug_traceBlockByNumber nor trace_block: internal transactions are not indexed', {
            retryAfterBlocks: RETRY_PREFERRED_EVERY_BLOCKS,
          });
        }
        this.traceClock.fellBack();
      }
    }
    return null;
  }

  /** The block's traces by parity's trace_block. */
  private async parityTraces(block: ChainBlock, timeoutMs: number): Promise<TransactionTrace[]> {
    const result = (await this.rawRequest('trace_block', [toTag(block.number)], timeoutMs)) as ParityTrace[];
    if (!Array.isArray(result)) throw new InconsistentAnswerError('trace_block: not an array');
    return groupParityTraces(result, block.transactions.length);
  }

  /**
   * Revert reasons of the failed transactions: decoded from the top-level call's output when the
   * trace has it; none when the trace says the call failed without reverting (out of gas, invalid
   * opcode ...: no revert data exists); otherwise by replaying the transaction as an eth_call on the
   * parent block's state (exact for the first failing transaction of a block, best effort after it).
   */
  private async revertReasons(block: ChainBlock, receipts: ChainReceipt[], traces: TransactionTrace[] | null) {
    const reasons = new Map<string, string | null>();
    await Promise.all(
      block.transactions.map(async (tx, position) => {
        const receipt = receipts[position];
        if (receipt === undefined) throw new Error(`block ${block.number}: no receipt for transaction ${position}`);
        if (transactionStatus(receipt, traces?.[position] ?? null) !== 0) return;
        const top = traces?.[position]?.calls[0];
        if (top?.output && top.output !== '0x') {
          reasons.set(tx.hash.toLowerCase(), decodeRevertReason(top.output));
          return;
        }
        if (top?.error && !/revert/i.test(top.error)) {
          reasons.set(tx.hash.toLowerCase(), null);
          return;
        }
        reasons.set(tx.hash.toLowerCase(), decodeRevertReason(await this.replay(tx, block.number - 1n)));
      }),
    );
    return reasons;
  }

  private async replay(tx: ChainTransaction, parentNumber: bigint): Promise<Hex | null> {
    try {
      await this.client.call({
        account: tx.from,
        to: tx.to ?? undefined,
        data: tx.input,
        value: tx.value,
        gas: tx.gas,
        blockNumber: parentNumber < 0n ? 0n : parentNumber,
      });
      return null; // succeeds on the parent state: no reason to report
    } catch (error) {
      const data = revertDataOf(error);
      if (data !== undefined) return data;
      if (error instanceof BaseError && /revert/i.test(error.message)) return null;
      // The node ran the call and it failed without revert data (geth "out of gas", anvil "EVM error
      // OutOfGas", "invalid opcode" ...): an answer, not a transport fault to retry.
      if (isExecutionFailure(error)) return null;
      throw error;
    }
  }
}

/**
 * A failure of a whole HTTP request that says nothing about the block in it: a rate limit (429, 503,
 * -32005), an outage (any other HTTP 5xx: a gateway's 502, a 500 "not available right now"), a reset,
 * malformed JSON. An answer over the size limit, an incomplete batch, a timeout or a JSON-RPC error
 * of the call itself (under a 2xx or 4xx) do say something about it. (A block's traces are a request of
 * their own: an outage meets them alone, and must not count against the block.)
 */
function isRequestFault(error: unknown): boolean {
  if (!(error instanceof BaseError)) return false;
  let fault = false;
  const outage = (status: number | undefined) => status !== undefined && (isRateLimitStatus(status) || status >= 500);
  error.walk((cause) => {
    if (cause instanceof RpcRequestError) {
      fault = outage(cause.status) || cause.code === 429 || cause.code === -32005;
      return true;
    }
    if (cause instanceof HttpRequestError) {
      const inner = cause.cause;
      fault =
        cause.status !== undefined
          ? outage(cause.status)
          : !(inner instanceof ResponseTooLargeError || inner instanceof IncompleteBatchError);
      return true;
    }
    return false;
  });
  return fault;
}

/** A JSON-RPC error answer that reports the EVM failing to run the call. */
function isExecutionFailure(error: unknown): boolean {
  if (!(error instanceof BaseError)) return false;
  const answered = error.walk((cause) => cause instanceof RpcRequestError) as RpcRequestError | null;
  if (!answered) return false;
  return /out of gas|invalid opcode|invalid jump|stack (underflow|overflow)|evm error|execution (reverted|error|halted)|static state change|write protection/i.test(
    `${answered.shortMessage} ${answered.details}`,
  );
}

/** The revert data an eth_call error carries, if any. */
function revertDataOf(error: unknown): Hex | undefined {
  if (!(error instanceof BaseError)) return undefined;
  const withData = error.walk((cause) => {
    const data = (cause as { data?: unknown }).data;
    return typeof data === 'string' ? data.startsWith('0x') : typeof (data as { data?: unknown })?.data === 'string';
  }) as { data?: unknown } | null;
  if (!withData) return undefined;
  const data = withData.data as Hex | { data: Hex };
  return typeof data === 'string' ? data : data.data;
}

const toTag = (blockNumber: bigint): Hex => `0x${blockNumber.toString(16)}`;

/**
 * A transaction's status: the receipt's (Byzantium on); before Byzantium, where a receipt carries a
 * state root instead, the top-level call's trace tells (an error is a failure), as Blockscout's
 * indexer does; null when neither says.
 */
export function transactionStatus(receipt: ChainReceipt, trace: TransactionTrace | null): 0 | 1 | null {
  if (receipt.status !== null) return receipt.status;
  const top = trace?.calls[0];
  if (!top) return null;
  return top.error === null ? 1 : 0;
}

function checkBlock(block: ChainBlock | null, blockNumber: bigint): asserts block is ChainBlock {
  if (!block || block.number !== blockNumber) {
    throw new InconsistentAnswerError(`eth_getBlockByNumber(${blockNumber}) answered block ${block?.number ?? 'null'}`);
  }
}

function checkReceipts(block: ChainBlock, receipts: ChainReceipt[]): void {
  if (!Array.isArray(receipts) || receipts.length !== block.transactions.length) {
    throw new InconsistentAnswerError(`block ${block.number}: ${receipts?.length} receipts for ${block.transactions.length} transactions`);
  }
  const blockHash = block.hash;
  receipts.forEach((receipt, position) => {
    // Same length, checked above.
    const tx = block.transactions[position]!;
    if (
      receipt.blockHash !== blockHash ||
      receipt.blockNumber !== block.number ||
      receipt.transactionHash !== tx.hash ||
      receipt.transactionIndex !== position
    ) {
      throw new InconsistentAnswerError(
        `block ${block.number}: receipt ${position} belongs to block ${receipt?.blockHash} / tx ${receipt?.transactionHash}`,
      );
    }
    for (const log of receipt.logs) {
      if (log.blockHash && log.blockHash !== blockHash) {
        throw new InconsistentAnswerError(`block ${block.number}: a log of receipt ${position} belongs to block ${log.blockHash}`);
      }
    }
  });
}

function checkTraces(block: ChainBlock, traces: TransactionTrace[]): void {
  if (traces.length !== block.transactions.length) {
    throw new InconsistentAnswerError(`block ${block.number}: ${traces.length} traces for ${block.transactions.length} transactions`);
  }
  traces.forEach((trace, position) => {
    // Same length, checked above.
    const hash = block.transactions[position]!.hash;
    if (trace.calls.length === 0) throw new InconsistentAnswerError(`block ${block.number}: empty trace for ${hash}`);
    if (trace.transactionHash && trace.transactionHash.toLowerCase() !== hash) {
      throw new InconsistentAnswerError(`block ${block.number}: trace ${position} is of ${trace.transactionHash}`);
    }
  });
}
