/**
 * Contract reads at a block, many at once. On a chain with Multicall3 deployed (checked once per
 * reader) they go in one `aggregate3` call; otherwise each is its own eth_call and the client's batch
 * JSON-RPC transport sends them together. A call that reverts or returns nothing decodable is an
 * answer (`failure`), not a fault; a transport fault makes the whole round throw, so that the caller
 * retries it.
 */
import { BaseError, ContractFunctionRevertedError, ContractFunctionZeroDataError, type Abi, type Address } from 'viem';
import { MULTICALL3_ADDRESS } from './abis';
import type { ChainClient } from './client';

export interface ContractRead {
  address: Address;
  abi: Abi;
  functionName: string;
  args?: readonly unknown[];
}

export type ReadResult = { status: 'success'; result: unknown } | { status: 'failure'; error: string };

export class ContractReader {
  /** Lowest block known to have Multicall3; undefined until checked, null when absent. */
  private multicallFrom: bigint | null | undefined;

  constructor(private readonly client: ChainClient) {}

  async readAll(calls: readonly ContractRead[], blockNumber: bigint): Promise<ReadResult[]> {
    if (calls.length === 0) return [];
    if (await this.hasMulticall(blockNumber)) {
      const results = await this.client.multicall({
        contracts: calls as ContractRead[],
        allowFailure: true,
        blockNumber,
        multicallAddress: MULTICALL3_ADDRESS,
      });
      return results.map((entry) =>
        entry.status === 'success' ? { status: 'success', result: entry.result } : { status: 'failure', error: entry.error.message },
      );
    }
    return Promise.all(
      calls.map((call) =>
        this.client.readContract({ ...call, blockNumber } as Parameters<ChainClient['readContract']>[0]).then(
          (result): ReadResult => ({ status: 'success', result }),
          (error: unknown): ReadResult => {
            if (isContractAnswer(error)) return { status: 'failure', error: (error as BaseError).shortMessage };
            throw error;
          },
        ),
      ),
    );
  }

  /** Multicall3 as found: the block it was first looked for and found at, null when absent, undefined until looked for. */
  multicall3From(): bigint | null | undefined {
    return this.multicallFrom;
  }

  private async hasMulticall(blockNumber: bigint): Promise<boolean> {
    if (this.multicallFrom === undefined) {
      const code = await this.client.getCode({ address: MULTICALL3_ADDRESS, blockNumber });
      this.multicallFrom = code && code !== '0x' ? blockNumber : null;
    }
    return this.multicallFrom !== null && blockNumber >= this.multicallFrom;
  }
}

/** The call was answered: it reverted, the address has no code, or the answer does not decode. */
export function isContractAnswer(error: unknown): boolean {
  if (!(error instanceof BaseError)) return false;
  return Boolean(
    error.walk(
      (cause) =>
        cause instanceof ContractFunctionRevertedError ||
        cause instanceof ContractFunctionZeroDataError ||
        (cause instanceof BaseError && /^(AbiDecoding|PositionOutOfBounds|InvalidBytesBoolean|SliceOffsetOutOfBounds)/.test(cause.name)),
    ),
  );
}
