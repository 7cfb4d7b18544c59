/**
 * Chain reads recorded once and answered again: what lets a backfill worker do a segment's slow
 * chain work (blocks, receipts, traces, getCode, token probes, balances at the segment's end) in
 * parallel with other workers, and the ingest number the segment later, in block order, from the
 * table alone (backfill.ts).
 *
 * Two layers, because they are keyed differently:
 *  - JSON-RPC requests (a viem custom transport in front of the real client): keyed by method and
 *    params, which name the block, so an answer is the chain's at that block whatever asks for it;
 *  - contract reads (ContractReader.readAll) and code checks (ContractReader.hasCode): keyed per call
 *    (contract, ABI, function, arguments, block) or per address and block, not per Multicall3 or
 *    code-sizes batch, since the ingest groups them differently when the table already knows some
 *    addresses. (A code check is kept among the reads as a success whose data is 0x01 or 0x.)
 * A replay answers what was recorded and asks the real client for anything else (a read the worker
 * did not make is still answered, only slower). Failed requests are not recorded: they fail again
 * live, as they did for the worker (a node without eth_getBlockReceipts, say).
 */
import { createHash } from 'node:crypto';
import { createPublicClient, custom, type Abi, type EIP1193RequestFn } from 'viem';
import type { ChainClient } from '../chain/client';
import { ContractReader, type ContractRead, type ReadResult } from '../chain/read';

/** What a recording holds: answers by request key. */
export interface ChainRecording {
  requests: Map<string, unknown>;
  reads: Map<string, ReadResult>;
}

export const emptyRecording = (): ChainRecording => ({ requests: new Map(), reads: new Map() });

const requestKey = (method: string, params: unknown): string => JSON.stringify([method, params ?? []], jsonBigint);

const abiIds = new WeakMap<Abi, string>();
function abiId(abi: Abi): string {
  let id = abiIds.get(abi);
  if (id === undefined) {
    id = createHash('sha256').update(JSON.stringify(abi)).digest('base64url').slice(0, 12);
    abiIds.set(abi, id);
  }
  return id;
}

const readKey = (call: ContractRead, blockNumber: bigint): string =>
  JSON.stringify([call.address.toLowerCase(), abiId(call.abi), call.functionName, call.args ?? [], blockNumber], jsonBigint);

const codeKey = (address: string, blockNumber: bigint): string => JSON.stringify(['code', address.toLowerCase(), blockNumber], jsonBigint);
const codeRead = (hasCode: boolean): ReadResult => ({ status: 'success', data: hasCode ? '0x01' : '0x' });

/** A chain client whose requests go through `answer` (record or replay), with `real`'s chain. */
function clientThrough(real: ChainClient, answer: (method: string, params: unknown) => Promise<unknown>): ChainClient {
  const request = (async ({ method, params }: { method: string; params?: unknown }) => answer(method, params)) as EIP1193RequestFn;
  return createPublicClient({ chain: real.chain, transport: custom({ request }, { retryCount: 0 }) }) as ChainClient;
}

/** Records every successful answer of `real` (requests) and of `reader` (contract reads). */
export function recordingChain(real: ChainClient, recording: ChainRecording = emptyRecording()) {
  const client = clientThrough(real, async (method, params) => {
    const result = await real.request({ method, params } as never);
    recording.requests.set(requestKey(method, params), result);
    return result;
  });
  class RecordingReader extends ContractReader {
    override async readAll(calls: readonly ContractRead[], blockNumber: bigint): Promise<ReadResult[]> {
      const results = await super.readAll(calls, blockNumber);
      for (const [index, call] of calls.entries()) recording.reads.set(readKey(call, blockNumber), results[index]!);
      return results;
    }

    override async hasCode(addresses: readonly string[], blockNumber: bigint): Promise<boolean[]> {
      const answers = await super.hasCode(addresses, blockNumber);
      for (const [index, address] of addresses.entries()) recording.reads.set(codeKey(address, blockNumber), codeRead(answers[index]!));
      return answers;
    }
  }
  return { client, reader: new RecordingReader(real) as ContractReader, recording };
}

/** Answers from `recording` first, then from `real`; counts the answers each gave. */
export function replayingChain(real: ChainClient, recording: ChainRecording) {
  const counts = { replayed: 0, live: 0 };
  const client = clientThrough(real, async (method, params) => {
    const key = requestKey(method, params);
    if (recording.requests.has(key)) {
      counts.replayed += 1;
      return recording.requests.get(key);
    }
    counts.live += 1;
    return real.request({ method, params } as never);
  });
  /** The recorded answers of `questions`, the others asked live (in one call), in order; counted. */
  async function replayed<Q, A>(
    questions: readonly Q[],
    recorded: (question: Q) => A | undefined,
    live: (missing: Q[]) => Promise<A[]>,
  ): Promise<A[]> {
    const answers = questions.map(recorded);
    const missing = questions.filter((_, index) => answers[index] === undefined);
    counts.replayed += questions.length - missing.length;
    if (missing.length > 0) {
      counts.live += missing.length;
      const fetched = await live(missing);
      let next = 0;
      for (const [index, answer] of answers.entries()) if (answer === undefined) answers[index] = fetched[next++];
    }
    return answers as A[];
  }
  class ReplayingReader extends ContractReader {
    override readAll(calls: readonly ContractRead[], blockNumber: bigint): Promise<ReadResult[]> {
      return replayed(
        calls,
        (call) => recording.reads.get(readKey(call, blockNumber)),
        (missing) => super.readAll(missing, blockNumber),
      );
    }

    override hasCode(addresses: readonly string[], blockNumber: bigint): Promise<boolean[]> {
      return replayed(
        addresses,
        (address) => {
          const recorded = recording.reads.get(codeKey(address, blockNumber));
          return recorded?.status === 'success' ? recorded.data !== '0x' : undefined;
        },
        (missing) => super.hasCode(missing, blockNumber),
      );
    }
  }
  return { client, reader: new ReplayingReader(real) as ContractReader, counts };
}

// ---------------------------------------------------------------------------------------------------
// JSON with bigints (answers hold them; a recording is stored as JSON)

export function jsonBigint(_key: string, value: unknown): unknown {
  return typeof value === 'bigint' ? { $bigint: value.toString() } : value;
}

export function jsonBigintRevive(_key: string, value: unknown): unknown {
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const names = Object.keys(value);
    if (names.length === 1 && names[0] === '$bigint') return BigInt((value as { $bigint: string }).$bigint);
  }
  return value;
}
