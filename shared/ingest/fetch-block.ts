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
 * Blocks and receipts are read as the node's raw JSON (rpc-block.ts), exact at any size and with
 * the header and receipt fields a chain may omit left null, not through viem's formatters.
 */
import { BaseError, RpcRequestError, type Hex } from 'viem';
import type { ChainClient } from '../chain/client';
import { decodeRevertReason } from '../chain/decode';
import { errorMessage, isMethodUnsupportedError, withBackoff, type RetryPolicy } from '../chain/retry';
import { parseBlock, parseReceipt, type ChainBlock, type ChainReceipt, type ChainTransaction } from '../chain/rpc-block';
import { flattenCallTracerFrame, groupParityTraces, type CallTracerFrame, type ParityTrace, type TransactionTrace } from '../chain/trace';

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

export class BlockSource {
  private blockReceipts: boolean | undefined;
  private traceMethod: TraceMethod | undefined;
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
  ) {
    this.traceMethod = traceMethod;
  }

  /** The block, receipts, traces and revert reasons of `blockNumber`, all consistent with one block hash. */
  fetch(blockNumber: bigint): Promise<BlockBundle> {
    return withBackoff(
      `block ${blockNumber}`,
      this.policy,
      () => this.fetchOnce(blockNumber),
      (error, attempt) => this.log.warn('retrying block fetch', { blockNumber: Number(blockNumber), attempt, error: errorMessage(error) }),
    );
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

  /** A JSON-RPC request whose answer is read raw (rpc-block.ts parses it). */
  private rawRequest(method: string, params: unknown[]): Promise<unknown> {
    return this.client.request({ method: method as 'eth_chainId', params: params as unknown as undefined }) as Promise<unknown>;
  }

  private async fetchOnce(blockNumber: bigint): Promise<BlockBundle> {
    const block = parseBlock(await this.rawRequest('eth_getBlockByNumber', [toTag(blockNumber), true]));
    checkBlock(block, blockNumber);
    const [receipts, traces] = await Promise.all([this.fetchReceipts(block), this.fetchTraces(block)]);
    checkReceipts(block, receipts);
    if (traces) checkTraces(block, traces);
    const revertReasons = await this.revertReasons(block, receipts, traces);
    return { block, receipts, traces, revertReasons };
  }

  private async fetchReceipts(block: ChainBlock): Promise<ChainReceipt[]> {
    if (block.transactions.length === 0) return [];
    if (this.blockReceipts !== false) {
      try {
        const receipts = await this.rawRequest('eth_getBlockReceipts', [toTag(block.number)]);
        if (!Array.isArray(receipts)) throw new InconsistentAnswerError(`eth_getBlockReceipts(${block.number}): not a list`);
        this.blockReceipts = true;
        return receipts.map(parseReceipt);
      } catch (error) {
        if (!isMethodUnsupportedError(error)) throw error;
        this.blockReceipts = false;
        this.log.warn('eth_getBlockReceipts is not served: reading receipts one transaction at a time');
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
      timedOut = error instanceof BaseError && error.name === 'TimeoutError';
      throw error;
    } finally {
      const ms = Date.now() - started;
      if (!this.slowTraces && (timedOut || ms > SLOW_TRACE_MS)) {
        this.slowTraces = true;
        this.log.warn('block traces are slow on this node: reading them one block at a time', {
          blockNumber: Number(block.number),
          ms,
          timedOut,
        });
      }
    }
  }

  private async readTraces(block: ChainBlock): Promise<TransactionTrace[] | null> {
    const blockTag = toTag(block.number);
    if (this.traceMethod === undefined || this.traceMethod === 'callTracer') {
      try {
        const result = (await this.client.request({
          method: 'debug_traceBlockByNumber' as 'eth_chainId',
          params: [blockTag, { tracer: 'callTracer' }] as unknown as undefined,
        })) as unknown as { txHash?: Hex; result?: CallTracerFrame; error?: string }[];
        if (!Array.isArray(result)) throw new InconsistentAnswerError('debug_traceBlockByNumber: not an array');
        this.traceMethod = 'callTracer';
        return result.map((entry) => {
          if (!entry?.result) throw new InconsistentAnswerError(`debug_traceBlockByNumber: no trace (${entry?.error ?? 'empty entry'})`);
          return flattenCallTracerFrame(entry.result, (entry.txHash?.toLowerCase() as Hex | undefined) ?? null);
        });
      } catch (error) {
        if (!isMethodUnsupportedError(error)) throw error;
        this.traceMethod = 'parity';
      }
    }
    if (this.traceMethod === 'parity') {
      try {
        const result = (await this.client.request({
          method: 'trace_block' as 'eth_chainId',
          params: [blockTag] as unknown as undefined,
        })) as unknown as ParityTrace[];
        if (!Array.isArray(result)) throw new InconsistentAnswerError('trace_block: not an array');
        return groupParityTraces(result, block.transactions.length);
      } catch (error) {
        if (!isMethodUnsupportedError(error)) throw error;
        // Blocks already in flight meet the same refusal: the first to find out says so, once.
        if ((this.traceMethod as TraceMethod) !== 'none') {
          this.traceMethod = 'none';
          this.log.warn('the node serves neither debug_traceBlockByNumber nor trace_block: internal transactions are not indexed');
        }
      }
    }
    return null;
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
