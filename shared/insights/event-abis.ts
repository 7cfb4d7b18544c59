/**
 * The event ABI registry of I2 `decode=true`, looked up by topic0:
 *  - built in: the well-known events below (token standards, WETH, Uniswap v2 and v3);
 *  - in the table: events an operator added with `npm run abi -- add ...` (scripts/abi-registry.ts),
 *    one item per topic0 (abiKeys.event) whose `abis` string set holds ABI event items as JSON.
 * Several ABIs may share a topic0 (ERC-20 and ERC-721 Transfer differ only in what is indexed);
 * decoding picks the one whose indexed count matches the log's topics.
 * Ids of endpoints and access patterns (I1, N9, ...): see docs/access-patterns.md.
 */
import { parseAbiItem, toEventSelector, type AbiEvent } from 'viem';
import { getItem, updateItem } from '../db/operations';
import { abiKeys, keyId, type ItemKey } from '../table/keys';

type Input = [type: string, name: string, indexed?: true];

/** One built-in event with its topic0, as viem's `parseAbi` gives it (an `indexed` key only on indexed inputs). */
const event = (topic0: string, name: string, ...inputs: Input[]): { topic0: string; abi: AbiEvent } => ({
  topic0,
  abi: {
    name,
    type: 'event',
    inputs: inputs.map(([type, name, indexed]): AbiEvent['inputs'][number] => (indexed ? { type, name, indexed } : { type, name })),
  },
});

/**
 * The well-known events with their topic0s. Written out rather than parsed from their signatures and
 * hashed at module load, which cost every insights function tens of milliseconds of its cold start;
 * test/shared/insights/event-abis.test.ts checks every entry against viem's `parseAbi` of the
 * signature in its comment and `toEventSelector`.
 */
const BUILT_IN_EVENTS = [
  // ERC-20
  // event Transfer(address indexed from, address indexed to, uint256 value)
  event(
    '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef',
    'Transfer',
    ['address', 'from', true],
    ['address', 'to', true],
    ['uint256', 'value'],
  ),
  // event Approval(address indexed owner, address indexed spender, uint256 value)
  event(
    '0x8c5be1e5ebec7d5bd14f71427d1e84f3dd0314c0f7b2291e5b200ac8c7c3b925',
    'Approval',
    ['address', 'owner', true],
    ['address', 'spender', true],
    ['uint256', 'value'],
  ),
  // ERC-721 (ApprovalForAll is shared with ERC-1155)
  // event Transfer(address indexed from, address indexed to, uint256 indexed tokenId)
  event(
    '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef',
    'Transfer',
    ['address', 'from', true],
    ['address', 'to', true],
    ['uint256', 'tokenId', true],
  ),
  // event Approval(address indexed owner, address indexed approved, uint256 indexed tokenId)
  event(
    '0x8c5be1e5ebec7d5bd14f71427d1e84f3dd0314c0f7b2291e5b200ac8c7c3b925',
    'Approval',
    ['address', 'owner', true],
    ['address', 'approved', true],
    ['uint256', 'tokenId', true],
  ),
  // event ApprovalForAll(address indexed owner, address indexed operator, bool approved)
  event(
    '0x17307eab39ab6107e8899845ad3d59bd9653f200f220920489ca2b5937696c31',
    'ApprovalForAll',
    ['address', 'owner', true],
    ['address', 'operator', true],
    ['bool', 'approved'],
  ),
  // ERC-1155
  // event TransferSingle(address indexed operator, address indexed from, address indexed to, uint256 id, uint256 value)
  event(
    '0xc3d58168c5ae7397731d063d5bbf3d657854427343f4c083240f7aacaa2d0f62',
    'TransferSingle',
    ['address', 'operator', true],
    ['address', 'from', true],
    ['address', 'to', true],
    ['uint256', 'id'],
    ['uint256', 'value'],
  ),
  // event TransferBatch(address indexed operator, address indexed from, address indexed to, uint256[] ids, uint256[] values)
  event(
    '0x4a39dc06d4c0dbc64b70af90fd698a233a518aa5d07e595d983b8c0526c8f7fb',
    'TransferBatch',
    ['address', 'operator', true],
    ['address', 'from', true],
    ['address', 'to', true],
    ['uint256[]', 'ids'],
    ['uint256[]', 'values'],
  ),
  // event URI(string value, uint256 indexed id)
  event('0x6bb7ff708619ba0610cba295a58592e0451dee2622938c8755667688daf3529b', 'URI', ['string', 'value'], ['uint256', 'id', true]),
  // WETH
  // event Deposit(address indexed dst, uint256 wad)
  event('0xe1fffcc4923d04b559f4d29a8bfc6cda04eb5b0d3c460751c2402c5c5cc9109c', 'Deposit', ['address', 'dst', true], ['uint256', 'wad']),
  // event Withdrawal(address indexed src, uint256 wad)
  event('0x7fcf532c15f0a6db0bd6d0e038bea71d30d808c7d98cb3bf7268a95bf5081b65', 'Withdrawal', ['address', 'src', true], ['uint256', 'wad']),
  // Uniswap v2 pair
  // event Swap(address indexed sender, uint256 amount0In, uint256 amount1In, uint256 amount0Out, uint256 amount1Out, address indexed to)
  event(
    '0xd78ad95fa46c994b6551d0da85fc275fe613ce37657fb8d5e3d130840159d822',
    'Swap',
    ['address', 'sender', true],
    ['uint256', 'amount0In'],
    ['uint256', 'amount1In'],
    ['uint256', 'amount0Out'],
    ['uint256', 'amount1Out'],
    ['address', 'to', true],
  ),
  // event Mint(address indexed sender, uint256 amount0, uint256 amount1)
  event(
    '0x4c209b5fc8ad50758f13e2e1088ba56a560dff690a1c6fef26394f4c03821c4f',
    'Mint',
    ['address', 'sender', true],
    ['uint256', 'amount0'],
    ['uint256', 'amount1'],
  ),
  // event Burn(address indexed sender, uint256 amount0, uint256 amount1, address indexed to)
  event(
    '0xdccd412f0b1252819cb1fd330b93224ca42612892bb3f4f789976e6d81936496',
    'Burn',
    ['address', 'sender', true],
    ['uint256', 'amount0'],
    ['uint256', 'amount1'],
    ['address', 'to', true],
  ),
  // event Sync(uint112 reserve0, uint112 reserve1)
  event('0x1c411e9a96e071241c2f21f7726b17ae89e3cab4c78be50e062b03a9fffbbad1', 'Sync', ['uint112', 'reserve0'], ['uint112', 'reserve1']),
  // Uniswap v3 pool
  // event Swap(address indexed sender, address indexed recipient, int256 amount0, int256 amount1, uint160 sqrtPriceX96, uint128 liquidity, int24 tick)
  event(
    '0xc42079f94a6350d7e6235f29174924f928cc2ac818eb64fed8004e115fbcca67',
    'Swap',
    ['address', 'sender', true],
    ['address', 'recipient', true],
    ['int256', 'amount0'],
    ['int256', 'amount1'],
    ['uint160', 'sqrtPriceX96'],
    ['uint128', 'liquidity'],
    ['int24', 'tick'],
  ),
  // event Mint(address sender, address indexed owner, int24 indexed tickLower, int24 indexed tickUpper, uint128 amount, uint256 amount0, uint256 amount1)
  event(
    '0x7a53080ba414158be7ec69b987b5fb7d07dee101fe85488f0853ae16239d0bde',
    'Mint',
    ['address', 'sender'],
    ['address', 'owner', true],
    ['int24', 'tickLower', true],
    ['int24', 'tickUpper', true],
    ['uint128', 'amount'],
    ['uint256', 'amount0'],
    ['uint256', 'amount1'],
  ),
  // event Burn(address indexed owner, int24 indexed tickLower, int24 indexed tickUpper, uint128 amount, uint256 amount0, uint256 amount1)
  event(
    '0x0c396cd989a39f4459b5fa1aed6a9a8dcdbc45908acfd67e028cd568da98982c',
    'Burn',
    ['address', 'owner', true],
    ['int24', 'tickLower', true],
    ['int24', 'tickUpper', true],
    ['uint128', 'amount'],
    ['uint256', 'amount0'],
    ['uint256', 'amount1'],
  ),
];

export const WELL_KNOWN_EVENTS: readonly AbiEvent[] = BUILT_IN_EVENTS.map((entry) => entry.abi);

const BUILT_IN = new Map<string, AbiEvent[]>();
for (const { topic0, abi } of BUILT_IN_EVENTS) BUILT_IN.set(topic0, [...(BUILT_IN.get(topic0) ?? []), abi]);

/** The built-in events with the topic0 each is filed under (for the test that checks them). */
export const WELL_KNOWN_EVENT_TOPICS: readonly string[] = BUILT_IN_EVENTS.map((entry) => entry.topic0);

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
