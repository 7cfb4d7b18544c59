/**
 * I11a GET /v1/contracts/abi/{contractAddress} and I11b POST /v1/decode/{contractAddress}: what this
 * service knows of a contract's ABI, and decoding with it (docs/decisions/insights.md, "Contract ABI
 * and decoding"). Insight answers these from verified source code, which this service does not have;
 * it answers from what the ingest and the operator recorded:
 *  - the standard ABI of the token type the ingest gave the contract (AddressRecord.tokenType, X7:
 *    standard-abis.ts);
 *  - the event ABIs of the event registry (built in, or added with `npm run abi`: event-abis.ts) for
 *    the events the contract emitted, as its newest ABI_LOG_SAMPLE logs (N4) show them: the registry is
 *    filed by topic 0, not by contract, so the contract's own logs say which of its entries are the
 *    contract's (an entry whose indexed inputs do not match what the contract emitted is left out).
 * Reads, whatever the number of chains: round 1, one BatchGetItem of the address items of every
 * requested chain and, in parallel, one Query per chain (Limit ABI_LOG_SAMPLE, topics only); round 2,
 * one BatchGetItem of the registry items of the topic 0s seen without a built-in ABI (none when all are
 * built in). The answer is the first requested chain (chain_ids order) that has an ABI; none: 404.
 * Ids of endpoints and access patterns: see docs/access-patterns.md.
 */
import type { AbiEvent, AbiFunction, AbiParameter, Hex } from 'viem';
import { toEventSelector, toFunctionSelector } from 'viem';
import { decodeCallArgs, decodeLogArgs } from '../chain/abi-decode';
import { batchGetItems, queryPage, rangeQuery } from '../db/operations';
import { NotFoundError } from '../errors';
import { MAX_BUCKET_ENTRIES } from '../table/buckets';
import { expandLog } from '../table/compact';
import { addressKeys, keyId, logKeys } from '../table/keys';
import type { AddressRecord } from '../table/records';
import { selectChains } from './chains';
import type { AbiItemJson, DecodeBody, DecodeResponse } from './contract-schemas';
import { toJson, type JsonValue } from './decode';
import { eventAbisOf, registryKeysOf } from './event-abis';
import { parseAddressOrName, resolveAddresses } from './names';
import { standardAbi, uniqueItems } from './standard-abis';

/** How many of a contract's newest logs tell which registry events are its own. */
export const ABI_LOG_SAMPLE = 200;

type AbiItem = AbiFunction | AbiEvent;

interface Request {
  contractAddress: string;
  query: { chain_id?: number[]; chain?: number[] };
  host: string | undefined;
}

/** I11a: the contract's ABI, as a JSON ABI. */
export async function getContractAbi(request: Request): Promise<AbiItemJson[]> {
  const { items } = await knownAbi(request);
  return items.map(jsonAbiItem);
}

/** I11b: the given transactions' calldata and logs, decoded with the ABI of I11a. */
export async function decodeWithContractAbi(request: Request & { body: DecodeBody }): Promise<DecodeResponse> {
  const { items } = await knownAbi(request);
  const functions = new Map<string, AbiFunction>();
  const events = new Map<string, AbiEvent[]>();
  for (const item of items) {
    if (item.type === 'function') functions.set(toFunctionSelector(item), item);
    else if (!item.anonymous) {
      const topic0 = toEventSelector(item);
      events.set(topic0, [...(events.get(topic0) ?? []), item]);
    }
  }
  const transactions = (request.body.transactions ?? []).map(({ data }) => {
    const abi = functions.get(data.slice(0, 10).toLowerCase());
    const args = abi ? callArgs(abi, data) : undefined;
    return abi && args ? { data, function_name: abi.name, args } : { data };
  });
  const logs = (request.body.logs ?? []).map(({ data, topics }) => {
    const given = { ...(data === undefined ? {} : { data }), topics };
    const candidates = (events.get(topics[0]!.toLowerCase()) ?? []).filter((abi) => indexedCount(abi) === topics.length - 1);
    for (const abi of candidates) {
      const args = logArgs(abi, topics, data ?? '0x');
      if (args) return { ...given, event_name: abi.name, args };
    }
    return given;
  });
  return { data: { transactions, logs } };
}

async function knownAbi({ contractAddress, query, host }: Request): Promise<{ chainId: number; items: AbiItem[] }> {
  const chainIds = await selectChains(query, host);
  const { contract } = await resolveAddresses({ contract: parseAddressOrName('contractAddress', contractAddress) }, chainIds);
  const addressOn = (chainId: number) => contract.get(chainId)!;
  const [records, emitted] = await Promise.all([
    batchGetItems<AddressRecord>(chainIds.map((chainId) => addressKeys.address(chainId, addressOn(chainId)))),
    Promise.all(chainIds.map((chainId) => emittedEvents(chainId, addressOn(chainId)))),
  ]);
  const registryKeys = registryKeysOf(emitted.flatMap((shapes) => [...shapes.keys()]));
  const registry = registryKeys.length > 0 ? await batchGetItems(registryKeys) : new Map<string, Record<string, unknown>>();
  for (const [position, chainId] of chainIds.entries()) {
    const tokenType = records.get(keyId(addressKeys.address(chainId, addressOn(chainId))))?.tokenType ?? null;
    const fromRegistry = [...emitted[position]!].flatMap(([topic0, counts]) =>
      eventAbisOf(topic0, registry).filter((abi) => counts.has(indexedCount(abi))),
    );
    const items = uniqueItems([...(tokenType ? standardAbi(tokenType) : []), ...fromRegistry]);
    if (items.length > 0) return { chainId, items };
  }
  const shown = [...new Set(chainIds.map(addressOn))].join(', ');
  throw new NotFoundError(
    `contractAddress: no ABI is known for ${shown} on chain ${chainIds.join(', ')} (not a token the ingest recognised, and none of its events is in the event ABI registry)`,
  );
}

/** topic 0 → the numbers of indexed inputs seen with it, in the contract's newest logs (N4). */
async function emittedEvents(chainId: number, contract: string): Promise<Map<string, Set<number>>> {
  const range = rangeQuery(logKeys.contractLogs(chainId, contract));
  // Logs are packed items (compact.ts): read whole (a projection bills the same units) and expanded.
  // The range is in block buckets (table/buckets.ts): the newest ABI_LOG_SAMPLE logs where it is dense,
  // fewer where they are spread (at most a bucket's worth of items read, not one item each).
  const { items } = await queryPage(
    { ...range, ScanIndexForward: false, Limit: ABI_LOG_SAMPLE },
    { bucketLimit: Math.ceil(ABI_LOG_SAMPLE / MAX_BUCKET_ENTRIES) + 1 },
  );
  const shapes = new Map<string, Set<number>>();
  for (const { topics } of items.map((item) => expandLog(item))) {
    const topic0 = topics?.[0]?.toLowerCase();
    if (!topic0) continue;
    shapes.set(topic0, (shapes.get(topic0) ?? new Set()).add(topics!.length - 1));
  }
  return shapes;
}

const indexedCount = (abi: AbiEvent): number => abi.inputs.filter((input) => input.indexed).length;

function callArgs(abi: AbiFunction, data: string): JsonValue[] | undefined {
  try {
    const values = decodeCallArgs(abi, data as Hex);
    return abi.inputs.map((input, position) => toJson(input, values[position]));
  } catch {
    return undefined;
  }
}

function logArgs(abi: AbiEvent, topics: readonly string[], data: string): JsonValue[] | undefined {
  try {
    const args = decodeLogArgs(abi, topics as Hex[], data as Hex);
    return abi.inputs.map((input, position) => {
      const raw = Array.isArray(args) ? args[position] : (args as Record<string, unknown>)[input.name ?? ''];
      // An indexed dynamic value (string, bytes, array, tuple) is only its topic: the keccak hash.
      return input.indexed && isDynamic(input) ? String(raw).toLowerCase() : toJson(input, raw);
    });
  } catch {
    return undefined;
  }
}

function isDynamic(parameter: AbiParameter): boolean {
  return parameter.type === 'string' || parameter.type === 'bytes' || parameter.type.endsWith(']') || parameter.type.startsWith('tuple');
}

/** An ABI item as solc's JSON ABI writes it. */
function jsonAbiItem(item: AbiItem): AbiItemJson {
  if (item.type === 'event') {
    return {
      type: 'event',
      name: item.name,
      anonymous: Boolean(item.anonymous),
      inputs: item.inputs.map((input) => jsonParameter(input, true)),
    };
  }
  return {
    type: 'function',
    name: item.name,
    inputs: item.inputs.map((input) => jsonParameter(input, false)),
    outputs: item.outputs.map((output) => jsonParameter(output, false)),
    stateMutability: item.stateMutability,
  };
}

function jsonParameter(parameter: AbiParameter & { indexed?: boolean }, event: boolean): AbiItemJson['inputs'][number] {
  const components = (parameter as { components?: readonly AbiParameter[] }).components;
  return {
    name: parameter.name ?? '',
    type: parameter.type,
    ...(components ? { components: components.map((component) => jsonParameter(component, false)) } : {}),
    ...(event ? { indexed: Boolean(parameter.indexed) } : {}),
  };
}
