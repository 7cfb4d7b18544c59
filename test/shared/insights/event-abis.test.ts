/** The built-in event registry, written out by topic0, is what viem makes of the events' signatures. */
import { parseAbi, toEventSelector, type AbiEvent } from 'viem';
import { describe, expect, it } from 'vitest';
import { builtInEventAbis, registryKeysOf, WELL_KNOWN_EVENT_TOPICS, WELL_KNOWN_EVENTS } from '../../../shared/insights/event-abis';
import { abiKeys } from '../../../shared/table/keys';

const SIGNATURES = [
  'event Transfer(address indexed from, address indexed to, uint256 value)',
  'event Approval(address indexed owner, address indexed spender, uint256 value)',
  'event Transfer(address indexed from, address indexed to, uint256 indexed tokenId)',
  'event Approval(address indexed owner, address indexed approved, uint256 indexed tokenId)',
  'event ApprovalForAll(address indexed owner, address indexed operator, bool approved)',
  'event TransferSingle(address indexed operator, address indexed from, address indexed to, uint256 id, uint256 value)',
  'event TransferBatch(address indexed operator, address indexed from, address indexed to, uint256[] ids, uint256[] values)',
  'event URI(string value, uint256 indexed id)',
  'event Deposit(address indexed dst, uint256 wad)',
  'event Withdrawal(address indexed src, uint256 wad)',
  'event Swap(address indexed sender, uint256 amount0In, uint256 amount1In, uint256 amount0Out, uint256 amount1Out, address indexed to)',
  'event Mint(address indexed sender, uint256 amount0, uint256 amount1)',
  'event Burn(address indexed sender, uint256 amount0, uint256 amount1, address indexed to)',
  'event Sync(uint112 reserve0, uint112 reserve1)',
  'event Swap(address indexed sender, address indexed recipient, int256 amount0, int256 amount1, uint160 sqrtPriceX96, uint128 liquidity, int24 tick)',
  'event Mint(address sender, address indexed owner, int24 indexed tickLower, int24 indexed tickUpper, uint128 amount, uint256 amount0, uint256 amount1)',
  'event Burn(address indexed owner, int24 indexed tickLower, int24 indexed tickUpper, uint128 amount, uint256 amount0, uint256 amount1)',
];

describe('the built-in event ABIs', () => {
  it('are the well-known signatures as viem parses them, each filed under its topic0', () => {
    const parsed = parseAbi(SIGNATURES) as readonly AbiEvent[];
    expect(WELL_KNOWN_EVENTS).toStrictEqual(parsed);
    expect(WELL_KNOWN_EVENT_TOPICS).toEqual(parsed.map((event) => toEventSelector(event)));
  });

  it('are looked up by topic0 in any case, several per topic0 in signature order', () => {
    const transfer = toEventSelector('Transfer(address,address,uint256)');
    expect(builtInEventAbis(transfer.toUpperCase().replace('0X', '0x')).map((event) => event.inputs.map((input) => input.name))).toEqual([
      ['from', 'to', 'value'],
      ['from', 'to', 'tokenId'],
    ]);
    expect(builtInEventAbis(toEventSelector('Sync(uint112,uint112)'))).toHaveLength(1);
    const unknown = toEventSelector('Foo(uint256)');
    expect(builtInEventAbis(unknown)).toEqual([]);
    expect(registryKeysOf([transfer, unknown])).toEqual([abiKeys.event(unknown)]);
  });
});
