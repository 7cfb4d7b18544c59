/**
 * Contract reads at a block, many at once, answered as RAW return data (decoded by the field rules of
 * token-metadata.ts, so that one answer gives one stored value whichever way it was read). On a chain
 * with Multicall3 at the block they go in one `aggregate3` call, encoded and decoded here with
 * allowFailure per call; otherwise each is its own eth_call and the client's batch JSON-RPC transport
 * sends them together. A call that reverts (or fails in the EVM: out of gas, invalid opcode) is an
 * answer (`failure`); a call that returns, whatever it returns (nothing, garbage), is `success` with
 * its data. An entry that failed inside aggregate3 is not taken as the answer: aggregate3 gives each
 * call 63/64 of the gas left (EIP-150), so a contract that burns it makes the calls after it fail for
 * want of gas. Every failed entry is read again with its own eth_call (the re-reads of a round
 * travel together in one batch request) and that answer is taken: the extra cost is one eth_call per
 * failed entry only (reverting contracts, non-tokens probed at their creation). A transport fault
 * (HTTP error, reset, timeout, a JSON-RPC error that is not the EVM's, an aggregate3 that failed as a
 * whole, a re-read that failed at the transport) makes the whole round throw, so that the caller
 * retries it: it is never recorded as a contract's answer. An aggregate3 that the EVM itself refused
 * (out of gas over many large answers, or starved whole by a gas burner) or that answers something
 * undecodable is read again call by call.
 */
import {
  BaseError,
  decodeFunctionResult,
  encodeFunctionData,
  ExecutionRevertedError,
  RpcRequestError,
  type Abi,
  type Address,
  type Hex,
} from 'viem';
import { MULTICALL3_ADDRESS, multicall3Abi } from './abis';
import type { ChainClient } from './client';
import { CODE_SIZES_PER_CALL, codeSizesCall, decodeCodeSizes } from './code-sizes';

export interface ContractRead {
  address: Address;
  abi: Abi;
  functionName: string;
  args?: readonly unknown[];
}

/** `success`: the call returned `data` ('0x' when nothing); `failure`: it reverted or failed in the EVM. */
export type ReadResult = { status: 'success'; data: Hex } | { status: 'failure'; error: string };

/** A chain with no Multicall3 at a block is checked again this many blocks later (it may be deployed since). */
const MULTICALL_RECHECK_BLOCKS = 10_000n;
/** After this many refusals in a row of the code-sizes call, a reader asks eth_getCode only. */
const CODE_SIZES_MAX_REFUSALS = 3;

export class ContractReader {
  /** Lowest block seen to have Multicall3 (it stays once deployed); undefined until seen. */
  private multicallSeenFrom: bigint | undefined;
  /** Highest block seen without Multicall3; undefined until seen. */
  private multicallAbsentAt: bigint | undefined;
  /** Code-sizes calls refused in a row (code-sizes.ts); at CODE_SIZES_MAX_REFUSALS the reader stops asking. */
  private codeSizesRefusals = 0;

  constructor(private readonly client: ChainClient) {}

  /**
   * Whether each address holds code at the block: one eth_call a thousand addresses with the
   * code-sizes program as a state override (code-sizes.ts), else one eth_getCode each (concurrent: one
   * JSON-RPC batch through the transport). A node that refuses the override, or answers as if it
   * ignored it, is asked with eth_getCode for that round; after three such rounds in a row, for
   * good. A transport fault (HTTP error, reset, timeout, the provider's rate limit) is thrown, for
   * the caller to retry the round.
   */
  async hasCode(addresses: readonly string[], blockNumber: bigint): Promise<boolean[]> {
    if (addresses.length === 0) return [];
    if (this.codeSizesRefusals < CODE_SIZES_MAX_REFUSALS) {
      const sizes = await this.codeSizes(addresses, blockNumber);
      if (sizes) {
        this.codeSizesRefusals = 0;
        return sizes.map((size) => size > 0n);
      }
      this.codeSizesRefusals += 1;
    }
    const codes = await Promise.all(addresses.map((address) => this.client.getCode({ address: address as Address, blockNumber })));
    return codes.map((code) => code !== undefined && code !== '0x');
  }

  /** The code sizes by the override call, in chunks; undefined when the node refused it or ignored the override. */
  private async codeSizes(addresses: readonly string[], blockNumber: bigint): Promise<bigint[] | undefined> {
    const sizes: bigint[] = [];
    for (let start = 0; start < addresses.length; start += CODE_SIZES_PER_CALL) {
      const chunk = addresses.slice(start, start + CODE_SIZES_PER_CALL);
      let answer: unknown;
      try {
        answer = await this.client.request({ method: 'eth_call', params: codeSizesCall(chunk, blockNumber) } as never);
      } catch (error) {
        if (isRefusal(error)) return undefined;
        throw error;
      }
      const decoded = decodeCodeSizes(answer, chunk.length);
      if (!decoded) return undefined;
      sizes.push(...decoded);
    }
    return sizes;
  }

  /**
   * What this reader knows of Multicall3 on the chain (for the chain's recorded capabilities): the
   * lowest block at which it was found (`from`: it exists there and at every later block; it may have
   * been deployed earlier, since only the blocks read are checked) and the highest block at which it
   * was absent. Both undefined before the first read.
   */
  multicall3(): { from: bigint | undefined; absentAt: bigint | undefined } {
    return { from: this.multicallSeenFrom, absentAt: this.multicallAbsentAt };
  }

  /** The lowest block Multicall3 was found at; null when only seen absent; undefined before the first read. */
  multicall3From(): bigint | null | undefined {
    if (this.multicallSeenFrom !== undefined) return this.multicallSeenFrom;
    return this.multicallAbsentAt === undefined ? undefined : null;
  }

  async readAll(calls: readonly ContractRead[], blockNumber: bigint): Promise<ReadResult[]> {
    if (calls.length === 0) return [];
    const encoded = calls.map((call) => encodeFunctionData({ abi: call.abi, functionName: call.functionName, args: call.args } as never));
    if (await this.hasMulticall(blockNumber)) {
      const viaMulticall = await this.aggregate3(calls, encoded, blockNumber);
      if (viaMulticall) return viaMulticall;
    }
    return Promise.all(calls.map((call, position) => this.callOne(call.address, encoded[position]!, blockNumber)));
  }

  /** The round in one aggregate3; undefined when the EVM refused it or its answer does not decode. */
  private async aggregate3(calls: readonly ContractRead[], encoded: Hex[], blockNumber: bigint): Promise<ReadResult[] | undefined> {
    const data = encodeFunctionData({
      abi: multicall3Abi,
      functionName: 'aggregate3',
      args: [calls.map((call, position) => ({ target: call.address, allowFailure: true, callData: encoded[position]! }))],
    });
    let answer: Hex;
    try {
      answer = (await this.client.call({ to: MULTICALL3_ADDRESS, data, blockNumber })).data ?? '0x';
    } catch (error) {
      if (isExecutionAnswer(error)) return undefined;
      throw error;
    }
    let decoded: readonly { success: boolean; returnData: Hex }[];
    try {
      const results = decodeFunctionResult({ abi: multicall3Abi, functionName: 'aggregate3', data: answer }) as readonly {
        success: boolean;
        returnData: Hex;
      }[];
      if (results.length !== calls.length) return undefined;
      decoded = results;
    } catch {
      return undefined;
    }
    // A failed entry may be no answer of its contract: aggregate3 gives each call 63/64 of the gas
    // left (EIP-150), so a contract that burns it (a name() that loops) starves the calls after it.
    // Each failed entry is read again on its own (one eth_call each, together in one batch request)
    // and that answer is taken; the successful entries are kept as they are.
    return Promise.all(
      decoded.map((result, position): ReadResult | Promise<ReadResult> =>
        result.success
          ? { status: 'success', data: result.returnData }
          : this.callOne(calls[position]!.address, encoded[position]!, blockNumber),
      ),
    );
  }

  private async callOne(to: Address, data: Hex, blockNumber: bigint): Promise<ReadResult> {
    try {
      const answer = await this.client.call({ to, data, blockNumber });
      return { status: 'success', data: answer.data ?? '0x' };
    } catch (error) {
      if (isExecutionAnswer(error)) return { status: 'failure', error: (error as BaseError).shortMessage };
      throw error;
    }
  }

  /** Whether Multicall3 is deployed at the block (found out once, then known for later blocks). */
  multicallAt(blockNumber: bigint): Promise<boolean> {
    return this.hasMulticall(blockNumber);
  }

  private async hasMulticall(blockNumber: bigint): Promise<boolean> {
    const seen = this.multicallSeenFrom;
    const absent = this.multicallAbsentAt;
    // Once deployed it stays; absent at a later block, it was absent at this one.
    if (seen !== undefined && blockNumber >= seen) return true;
    if (absent !== undefined && blockNumber <= absent) return false;
    // Absent a little earlier: not worth a getCode per round.
    if (seen === undefined && absent !== undefined && blockNumber <= absent + MULTICALL_RECHECK_BLOCKS) return false;
    const code = await this.client.getCode({ address: MULTICALL3_ADDRESS, blockNumber });
    if (code && code !== '0x') {
      this.multicallSeenFrom = seen === undefined || blockNumber < seen ? blockNumber : seen;
      return true;
    }
    this.multicallAbsentAt = absent === undefined || blockNumber > absent ? blockNumber : absent;
    return false;
  }
}

/**
 * The node answered a request with a JSON-RPC error of its own (the method or a parameter refused, the
 * EVM failing the call), not a transport fault nor its rate limit (-32005, or 429 in the error): a
 * different request may be answered.
 */
function isRefusal(error: unknown): boolean {
  if (!(error instanceof BaseError)) return false;
  const answered = error.walk((cause) => cause instanceof RpcRequestError) as RpcRequestError | null;
  if (!answered) return false;
  return (
    answered.code !== -32005 &&
    answered.code !== 429 &&
    !/rate.?limit|too many requests|timed? ?out/i.test(`${answered.shortMessage} ${answered.details}`)
  );
}

/**
 * The node ran the call and the EVM failed it: a revert (JSON-RPC code 3, or viem's reading of the
 * message), out of gas, an invalid opcode ... : the contract's answer, not a fault of the transport.
 */
export function isExecutionAnswer(error: unknown): boolean {
  if (!(error instanceof BaseError)) return false;
  if (error.walk((cause) => cause instanceof ExecutionRevertedError)) return true;
  const answered = error.walk((cause) => cause instanceof RpcRequestError) as RpcRequestError | null;
  if (!answered) return false;
  if (answered.code === 3) return true;
  return /revert|out of gas|gas required exceeds|invalid opcode|invalid jump|stack (underflow|overflow)|evm error|execution (error|halted)|static state change|write protection/i.test(
    `${answered.shortMessage} ${answered.details}`,
  );
}
