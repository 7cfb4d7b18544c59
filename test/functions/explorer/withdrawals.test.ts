/**
 * E6 GET /explorer/addresses/{address_hash}/withdrawals. anvil produces no EIP-4895 withdrawals, so
 * the test takes real blocks from an anvil (fetched by the ingest's BlockSource), gives them
 * withdrawals, and writes them with the ingest's own code: deriveBlock, then immutableItems, then
 * the table layer's writeItems. The explorer reads what that writer stored. Endpoint ids: see
 * docs/access-patterns.md.
 */
import * as v from 'valibot';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getAddress, keccak256, toBytes, type Address } from 'viem';
import { startAnvil, type Anvil } from '../../../scripts/lib/anvil';
import { createChainClient } from '../../../shared/chain/client';
import type { ChainWithdrawal } from '../../../shared/chain/rpc-block';
import { writeItems } from '../../../shared/db/operations';
import { DEFAULT_RETRY_POLICY } from '../../../shared/chain/retry';
import { withdrawalsResponse } from '../../../shared/explorer/schemas';
import { deriveBlock } from '../../../shared/ingest/derive';
import { BlockSource } from '../../../shared/ingest/fetch-block';
import { immutableItems } from '../../../shared/ingest/items';
import { useTestTable } from '../../support/table';
import { allPages, CHAIN_ID, expectPageCost, explorerGet, itemsOf, nextQuery, PAGE_SIZE } from './fixtures';

useTestTable('explorer-withdrawals');

const receiver = (label: string): Address => getAddress(keccak256(toBytes(`explorer withdrawals: ${label}`)).slice(0, 42));
const busyReceiver = receiver('sixty');
const fiftyOne = receiver('fifty-one');
const other = receiver('other');

let anvil: Anvil;
let source: BlockSource;
let nextBlock = 1;
/** What was written, by receiver: [index, validator index, gwei, block number, block timestamp]. */
const written = new Map<string, [number, number, bigint, number, number][]>();

/** Mines a block on anvil, fetches it as the ingest does, attaches `withdrawals` and writes it with the ingest's writer. */
async function writeBlockWithWithdrawals(withdrawals: { index: number; address: Address; gwei: bigint }[]): Promise<void> {
  await fetch(anvil.rpcUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'evm_mine', params: [] }),
  });
  const bundle = await source.fetch(BigInt(nextBlock));
  nextBlock += 1;
  bundle.block.withdrawals = withdrawals.map(
    (w): ChainWithdrawal => ({
      index: BigInt(w.index),
      validatorIndex: BigInt(1000 + w.index),
      address: w.address.toLowerCase() as Address,
      amount: w.gwei,
    }),
  );
  const derived = deriveBlock(CHAIN_ID, bundle);
  expect(derived.withdrawals).toHaveLength(withdrawals.length);
  await writeItems({ put: immutableItems(derived) });
  for (const w of withdrawals) {
    const list = written.get(w.address) ?? [];
    list.push([w.index, 1000 + w.index, w.gwei, Number(bundle.block.number), Number(bundle.block.timestamp)]);
    written.set(w.address, list);
  }
}

const range = (from: number, count: number): number[] => Array.from({ length: count }, (_, i) => from + i);

beforeAll(async () => {
  anvil = await startAnvil({ chainId: CHAIN_ID });
  source = new BlockSource(createChainClient(anvil.rpcUrl), DEFAULT_RETRY_POLICY, { warn: () => undefined });
  // Block 1: indexes 0..39, alternating between two receivers. Block 2: 40 more for one. Block 3: 51 for another.
  await writeBlockWithWithdrawals(
    range(0, 40).map((index) => ({ index, address: index % 2 === 0 ? busyReceiver : other, gwei: 32_000_000_000n + BigInt(index) })),
  );
  await writeBlockWithWithdrawals(range(40, 40).map((index) => ({ index, address: busyReceiver, gwei: BigInt(index) * 1_000_000n })));
  await writeBlockWithWithdrawals(range(80, 51).map((index) => ({ index, address: fiftyOne, gwei: 1n })));
});

afterAll(async () => {
  await anvil?.stop();
});

const expectedItems = (address: Address) =>
  [...(written.get(address) ?? [])]
    .sort((a, b) => b[0] - a[0])
    .map(([index, validator, gwei, blockNumber, timestamp]) => ({
      index,
      validator_index: validator,
      amount: (gwei * 1_000_000_000n).toString(),
      block_number: blockNumber,
      timestamp: new Date(timestamp * 1000).toISOString().replace('Z', '000Z'),
    }));

describe('withdrawals', () => {
  it('gives 51 withdrawals as a page of 50 and a page of 1 whose next_page_params is null', async () => {
    const first = await explorerGet(fiftyOne, 'withdrawals');
    expect(first.status).toBe(200);
    expect(first.body.items).toHaveLength(PAGE_SIZE);
    expect(first.body.next_page_params).toEqual({ index: 81, items_count: 50 });
    expectPageCost(first.calls, { batchGet: false });
    const second = await explorerGet(fiftyOne, 'withdrawals', nextQuery({}, first.body.next_page_params!));
    expect(second.body).toEqual({ items: [expectedItems(fiftyOne).at(-1)], next_page_params: null });
    expectPageCost(second.calls, { batchGet: false });
  });

  it('lists every withdrawal of a receiver once, index descending, with amounts in wei and no receiver', async () => {
    const pages = await allPages(busyReceiver, 'withdrawals');
    expect(pages.map((page) => page.body.items.length)).toEqual([50, 10]);
    expect(itemsOf(pages)).toEqual(expectedItems(busyReceiver));
    for (const page of pages) expect(() => v.parse(withdrawalsResponse, page.body)).not.toThrow();
    expect(itemsOf(await allPages(other, 'withdrawals'))).toEqual(expectedItems(other));
  });

  it('answers an unknown address with no items and a null cursor', async () => {
    const response = await explorerGet(receiver('never used'), 'withdrawals');
    expect(response.body).toEqual({ items: [], next_page_params: null });
    expectPageCost(response.calls, { batchGet: false });
  });

  it('gives the rest of the listing from a cursor while new blocks are written', async () => {
    const before = itemsOf(await allPages(busyReceiver, 'withdrawals'));
    const first = await explorerGet(busyReceiver, 'withdrawals');
    await writeBlockWithWithdrawals(range(131, 3).map((index) => ({ index, address: busyReceiver, gwei: 7n })));
    const rest = itemsOf(await allPages(busyReceiver, 'withdrawals', nextQuery({}, first.body.next_page_params!)));
    expect([...first.body.items, ...rest]).toEqual(before);
    const now = itemsOf(await allPages(busyReceiver, 'withdrawals'));
    expect(now.map((item) => item.index).slice(0, 3)).toEqual([133, 132, 131]);
    expect(now.slice(3)).toEqual(before);
  });
});
