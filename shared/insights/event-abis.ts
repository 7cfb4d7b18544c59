/**
 * The event ABI registry of I2 `decode=true`, looked up by topic0:
 *  - built in: the well-known events below (token standards, WETH, Uniswap v2 and v3);
 *  - in the table: events an operator added with `npm run abi -- add ...` (scripts/abi-registry.ts),
 *    one item per topic0 (abiKeys.event) whose `abis` string set holds ABI event items as JSON.
 * Several ABIs may share a topic0 (ERC-20 and ERC-721 Transfer differ only in what is indexed);
 * decoding picks the one whose indexed count matches the log's topics.
 * Ids of endpoints and access patterns (I1, N9, ...): see docs/access-patterns.md.
 */
import { parseAbi, parseAbiItem, toEventSelector, type AbiEvent } from 'viem';
import { getItem, updateItem } from '../db/operations';
import { abiKeys, keyId, type ItemKey } from '../table/keys';

export const WELL_KNOWN_EVENTS: readonly AbiEvent[] = parseAbi([
  // ERC-20
  'event Transfer(address indexed from, address indexed to, uint256 value)',
  'event Approval(address indexed owner, address indexed spender, uint256 value)',
  // ERC-721 (ApprovalForAll is shared with ERC-1155)
  'event Transfer(address indexed from, address indexed to, uint256 indexed tokenId)',
  'event Approval(address indexed owner, address indexed approved, uint256 indexed tokenId)',
  'event ApprovalForAll(address indexed owner, address indexed operator, bool approved)',
  // ERC-1155
  'event TransferSingle(address indexed operator, address indexed from, address indexed to, uint256 id, uint256 value)',
  'event TransferBatch(address indexed operator, address indexed from, address indexed to, uint256[] ids, uint256[] values)',
  'event URI(string value, uint256 indexed id)',
  // WETH
  'event Deposit(address indexed dst, uint256 wad)',
  'event Withdrawal(address indexed src, uint256 wad)',
  // Uniswap v2 pair
  'event Swap(address indexed sender, uint256 amount0In, uint256 amount1In, uint256 amount0Out, uint256 amount1Out, address indexed to)',
  'event Mint(address indexed sender, uint256 amount0, uint256 amount1)',
  'event Burn(address indexed sender, uint256 amount0, uint256 amount1, address indexed to)',
  'event Sync(uint112 reserve0, uint112 reserve1)',
  // Uniswap v3 pool
  'event Swap(address indexed sender, address indexed recipient, int256 amount0, int256 amount1, uint160 sqrtPriceX96, uint128 liquidity, int24 tick)',
  'event Mint(address sender, address indexed owner, int24 indexed tickLower, int24 indexed tickUpper, uint128 amount, uint256 amount0, uint256 amount1)',
  'event Burn(address indexed owner, int24 indexed tickLower, int24 indexed tickUpper, uint128 amount, uint256 amount0, uint256 amount1)',
]) as readonly AbiEvent[];

function groupByTopic(events: readonly AbiEvent[]): Map<string, AbiEvent[]> {
  const map = new Map<string, AbiEvent[]>();
  for (const event of events) {
    const topic0 = toEventSelector(event).toLowerCase();
    map.set(topic0, [...(map.get(topic0) ?? []), event]);
  }
  return map;
}

const BUILT_IN = groupByTopic(WELL_KNOWN_EVENTS);

/** The built-in candidates of a topic0. */
export function builtInEventAbis(topic0: string): readonly AbiEvent[] {
  return BUILT_IN.get(topic0.toLowerCase()) ?? [];
}

/** The registry keys to read for these topic0s: those without a built-in ABI. */
export function registryKeysOf(topic0s: Iterable<string>): ItemKey[] {
  const unknown = new Set([...topic0s].map((topic) => topic.toLowerCase()).filter((topic0) => builtInEventAbis(topic0).length === 0));
  return [...unknown].map((topic0) => abiKeys.event(topic0));
}

/**
 * The candidate ABIs of one topic0: built in, else those registered in the table, from the items
 * a BatchGetItem of `registryKeysOf` returned.
 */
export function eventAbisOf(topic0: string, registry: ReadonlyMap<string, Record<string, unknown>>): readonly AbiEvent[] {
  const builtIn = builtInEventAbis(topic0);
  if (builtIn.length > 0) return builtIn;
  const stored = registry.get(keyId(abiKeys.event(topic0)))?.abis as Set<string> | undefined;
  return [...(stored ?? [])].flatMap((json) => parseStoredAbi(json, topic0.toLowerCase()));
}

function parseStoredAbi(json: string, topic0: string): AbiEvent[] {
  try {
    const item = JSON.parse(json) as AbiEvent;
    return item?.type === 'event' && toEventSelector(item).toLowerCase() === topic0 ? [item] : [];
  } catch {
    return [];
  }
}

/**
 * The event ABIs an operator gives: human-readable signatures (`event Foo(address indexed a, uint256 b)`,
 * `event` optional), or JSON (one ABI item or a whole ABI, whose events are taken). Throws on anything else.
 */
export function parseEventAbis(input: string): AbiEvent[] {
  const text = input.trim();
  if (text.startsWith('[') || text.startsWith('{')) {
    const parsed = JSON.parse(text) as unknown;
    const items = (Array.isArray(parsed) ? parsed : [parsed]) as { type?: string }[];
    const events = items.filter((item) => item?.type === 'event') as AbiEvent[];
    if (events.length === 0) throw new Error('the JSON holds no event');
    for (const event of events) toEventSelector(event); // throws on a malformed item
    return events;
  }
  const item = parseAbiItem(text.startsWith('event ') ? text : `event ${text}`) as AbiEvent;
  if (item.type !== 'event') throw new Error(`not an event signature: ${text}`);
  return [item];
}

/** Adds an event ABI to the table's registry (idempotent: a string set). Returns its topic0. */
export async function registerEventAbi(event: AbiEvent): Promise<string> {
  const topic0 = toEventSelector(event).toLowerCase();
  const json = JSON.stringify({ type: 'event', name: event.name, anonymous: event.anonymous ?? false, inputs: event.inputs });
  await updateItem({
    Key: abiKeys.event(topic0),
    UpdateExpression: 'SET #kind = :kind, topic0 = :topic0 ADD abis :abi',
    ExpressionAttributeNames: { '#kind': 'kind' },
    ExpressionAttributeValues: { ':kind': 'eventAbi', ':topic0': topic0, ':abi': new Set([json]) },
  });
  return topic0;
}

/** The ABIs registered in the table for a topic0 (the CLI's `list`). */
export async function registeredEventAbis(topic0: string): Promise<AbiEvent[]> {
  const stored = (await getItem(abiKeys.event(topic0)))?.abis as Set<string> | undefined;
  return [...(stored ?? [])].flatMap((json) => parseStoredAbi(json, topic0.toLowerCase()));
}
