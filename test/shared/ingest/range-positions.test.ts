/**
 * Range positions (shared/ingest/range-positions.ts) on the embedded DynamoDB: every entry of a counted
 * range carries its 1-based position in the range, in sort-key order, across blocks, restarts, blocks
 * written again, reorgs, half-written blocks and entries written before positions existed. Items are
 * built by hand with the real key functions and marked with items.ts's countedEntry, as immutableItems
 * marks them; they are written with the table layer's writeItems, as the ingest writes them.
 */
import type { TableItem } from '../../../shared/table/keys';
import { describe, expect, it } from 'vitest';
import { measureTable } from '../../../shared/db/instrument';
import { writeItems } from '../../../shared/db/operations';
import { blockKeys, chainKeys, logKeys, tokenTransferKeys, transactionKeys, pad } from '../../../shared/table/keys';
import { countedEntry } from '../../../shared/ingest/items';
import { RangePositions } from '../../../shared/ingest/range-positions';
import { queryRange } from '../../../shared/ingest/table-io';
import { useTestTable } from '../../support/table';
import { mostInFlight } from '../../support/table-calls';

useTestTable('range-positions');

const CONTRACT = '0x00000000000000000000000000000000000000c1';
const TOKEN = '0x00000000000000000000000000000000000000d2';

/** The DynamoDB calls of `work`, by command. */
async function callsOf(work: () => Promise<unknown>): Promise<Record<string, number>> {
  return (await measureTable(work)).usage.calls;
}
const queries = (count: number): Record<string, number> => (count === 0 ? {} : { QueryCommand: count });

const hashOf = (number: number, fork = 'a') => `0x${fork}${pad(number, 63)}`;

interface BlockShape {
  /** Log indexes of the contract's logs in the block. */
  logs?: number[];
  /** Log indexes of the token's transfers in the block. */
  transfers?: number[];
  fork?: string;
  parentFork?: string;
  /** Other contracts with one log each (log index 0). */
  contracts?: string[];
}

/** A block's items: the block and its log / transfer index copies (counted), plus an uncounted canonical item. */
function blockItems(chainId: number, number: number, shape: BlockShape = {}): TableItem[] {
  const fork = shape.fork ?? 'a';
  const items: TableItem[] = [
    countedEntry({
      ...blockKeys.block(chainId, number),
      kind: 'block',
      number,
      hash: hashOf(number, fork),
      parentHash: hashOf(number - 1, shape.parentFork ?? fork),
    }),
    { ...transactionKeys.transaction(chainId, hashOf(number, fork)), kind: 'transaction', blockNumber: number },
  ];
  for (const logIndex of shape.logs ?? []) {
    items.push(
      countedEntry({
        pk: logKeys.contractLogs(chainId, CONTRACT).pk,
        sk: logKeys.sortKey(number, logIndex),
        kind: 'log',
        blockNumber: number,
        logIndex,
      }),
    );
  }
  for (const logIndex of shape.transfers ?? []) {
    items.push(
      countedEntry({
        pk: tokenTransferKeys.byToken(chainId, TOKEN).pk,
        sk: tokenTransferKeys.sortKey(number, logIndex, 0),
        kind: 'tokenTransfer',
        blockNumber: number,
        logIndex,
      }),
    );
  }
  for (const contract of shape.contracts ?? []) {
    items.push(
      countedEntry({
        pk: logKeys.contractLogs(chainId, contract).pk,
        sk: logKeys.sortKey(number, 0),
        kind: 'log',
        blockNumber: number,
        logIndex: 0,
      }),
    );
  }
  return items.reverse(); // not in sort-key order: assign must order them itself
}

/** The positions stored in a range, in sort-key order. */
async function storedPositions(pk: string): Promise<unknown[]> {
  return (await queryRange({ pk })).map((item) => item.pos);
}

/** Every stored position of the range is its 1-based place in sort-key order, and there are `size`. */
async function expectDense(pk: string, size: number): Promise<void> {
  expect(await storedPositions(pk), pk).toEqual(Array.from({ length: size }, (_, index) => index + 1));
}

const positionsOf = (items: readonly TableItem[]) =>
  items
    .filter((item) => item.pos !== undefined)
    .map((item) => `${item.pk}|${item.sk}|${item.pos}`)
    .sort();

describe('range positions', () => {
  const chainId = 7;
  const blocksPk = blockKeys.blocksRange(chainId).pk;
  const logsPk = logKeys.contractLogs(chainId, CONTRACT).pk;
  const tokenPk = tokenTransferKeys.byToken(chainId, TOKEN).pk;
  const shapes: BlockShape[] = [{}, { logs: [4, 1, 9], transfers: [2] }, {}, { logs: [0, 3], transfers: [1, 5, 7] }];
  const built: TableItem[][] = [];

  it('numbers the entries of each counted range 1..n in sort-key order, across blocks, before any is written', async () => {
    const positions = new RangePositions(chainId);
    for (const [number, shape] of shapes.entries()) {
      built[number] = blockItems(chainId, number, shape);
      const calls = await callsOf(() => positions.assign(number, built[number]));
      // Only ranges it has not numbered yet are looked up (one Query each); the others come from memory.
      const known = new Set(
        built
          .slice(0, number)
          .flat()
          .map((item) => item.pk),
      );
      const fresh = new Set(built[number].filter((item) => item.pos !== undefined && !known.has(item.pk)).map((item) => item.pk));
      expect(calls, `block ${number}`).toEqual(queries(fresh.size));
    }
    await writeItems({ put: built.flat() });
    await expectDense(blocksPk, 4);
    await expectDense(logsPk, 5);
    await expectDense(tokenPk, 4);
    expect(built[1].find((item) => item.kind === 'log' && item.logIndex === 9)?.pos).toBe(3);
    expect(
      built
        .flat()
        .filter((item) => item.kind === 'transaction')
        .map((item) => item.pos),
    ).toEqual([undefined, undefined, undefined, undefined]);
  });

  it('continues from the table after a restart, and numbers a half-written block the same way again', async () => {
    const restarted = new RangePositions(chainId);
    const block4 = blockItems(chainId, 4, { logs: [2, 6] });
    await restarted.assign(4, block4);
    await writeItems({ put: block4 });
    await expectDense(logsPk, 7);
    await expectDense(blocksPk, 5);

    // Block 5 is numbered, then the process dies after writing a part of it.
    const first = blockItems(chainId, 5, { logs: [0, 1, 2], transfers: [3] });
    await restarted.assign(5, first);
    await writeItems({ put: first.filter((item) => item.kind === 'log' && item.logIndex !== 1) });
    const again = blockItems(chainId, 5, { logs: [0, 1, 2], transfers: [3] });
    await new RangePositions(chainId).assign(5, again);
    expect(positionsOf(again)).toEqual(positionsOf(first));
    // The same object numbered again (a retry without a restart) gets the same positions too.
    await restarted.assign(5, again);
    expect(positionsOf(again)).toEqual(positionsOf(first));
    await writeItems({ put: again });
    await expectDense(logsPk, 10);
    await expectDense(tokenPk, 5);
    await expectDense(blocksPk, 6);
  });

  it('repair (fresh) numbers a written block as it is stored and leaves the map as it was', async () => {
    const positions = new RangePositions(chainId);
    const block6 = blockItems(chainId, 6, { logs: [1] });
    await positions.assign(6, block6);
    await writeItems({ put: block6 });
    const stored = positionsOf(
      [...(await queryRange({ pk: logsPk })), ...(await queryRange({ pk: tokenPk })), ...(await queryRange({ pk: blocksPk }))].filter(
        (item) => item.blockNumber === 3 || item.number === 3,
      ),
    );
    const repaired = blockItems(chainId, 3, shapes[3]);
    await positions.assign(3, repaired, { fresh: true });
    expect(positionsOf(repaired)).toEqual(stored);
    await writeItems({ put: repaired });
    // The next block still continues from block 6 out of memory: no lookup for the ranges it knows.
    const block7 = blockItems(chainId, 7, { logs: [0] });
    expect(await callsOf(() => positions.assign(7, block7))).toEqual({});
    await writeItems({ put: block7 });
    await expectDense(logsPk, 12);
    await expectDense(blocksPk, 8);
  });

  it('after a reorg deletes the last blocks, new blocks continue from the common ancestor', async () => {
    const positions = new RangePositions(chainId);
    const old8 = blockItems(chainId, 8, { logs: [0, 1], transfers: [2] });
    const old9 = blockItems(chainId, 9, { logs: [0] });
    for (const [number, items] of [
      [8, old8],
      [9, old9],
    ] as const) {
      await positions.assign(number, items);
      await writeItems({ put: items });
    }
    await expectDense(logsPk, 15);
    // The rollback to block 7 deletes what blocks 8 and 9 wrote, then the ingest forgets.
    await writeItems({ delete: [...old8, ...old9] });
    positions.forget();
    const canonical = [
      blockItems(chainId, 8, { fork: 'b', parentFork: 'a', logs: [3] }),
      blockItems(chainId, 9, { fork: 'b', transfers: [0, 1] }),
    ];
    for (const [offset, items] of canonical.entries()) {
      await positions.assign(8 + offset, items);
      await writeItems({ put: items });
    }
    await expectDense(logsPk, 13);
    await expectDense(tokenPk, 7);
    await expectDense(blocksPk, 10);
  });

  it('does not trust its memory when the next block is not the child of the last one it numbered', async () => {
    // `stale` numbers blocks 10 and 11 of fork a; another run replaces them with fork c and goes on.
    const stale = new RangePositions(chainId);
    const a10 = blockItems(chainId, 10, { fork: 'a', parentFork: 'b', logs: [0, 1, 2] });
    const a11 = blockItems(chainId, 11, { fork: 'a', logs: [0, 1] });
    await stale.assign(10, a10);
    await stale.assign(11, a11);
    await writeItems({ put: [...a10, ...a11] });
    await writeItems({ delete: [...a10, ...a11] });
    const other = new RangePositions(chainId);
    const c10 = blockItems(chainId, 10, { fork: 'c', parentFork: 'b', logs: [5] });
    const c11 = blockItems(chainId, 11, { fork: 'c' });
    await other.assign(10, c10);
    await other.assign(11, c11);
    await writeItems({ put: [...c10, ...c11] });
    // Block 12 follows 11 by number, but its parent is c11, not the a11 `stale` remembers.
    const c12 = blockItems(chainId, 12, { fork: 'c', logs: [0] });
    await stale.assign(12, c12);
    await writeItems({ put: c12 });
    await expectDense(logsPk, 15);
    await expectDense(blocksPk, 13);
  });

  it('refuses a counted entry that is not of the block it numbers', async () => {
    const wrong = countedEntry({ pk: logKeys.contractLogs(chainId, CONTRACT).pk, sk: logKeys.sortKey(14, 0) });
    await expect(new RangePositions(chainId).assign(13, [wrong])).rejects.toThrow(/not an entry of block 13/);
  });
});

describe('entries written before positions existed', () => {
  it('counts the range below the block, never what is at or after it', async () => {
    const chainId = 8;
    const pk = logKeys.contractLogs(chainId, CONTRACT).pk;
    // Blocks 10-12 hold four entries without `pos`; block 14 was half written without `pos` too.
    const old = [
      [10, 0],
      [10, 1],
      [11, 0],
      [12, 3],
      [14, 0],
    ].map(([block, log]) => ({ pk, sk: logKeys.sortKey(block, log), blockNumber: block }));
    await writeItems({ put: old });
    const block13 = blockItems(chainId, 13, { logs: [0, 2] });
    await new RangePositions(chainId).assign(13, block13);
    expect(
      block13
        .filter((item) => item.pk === pk)
        .map((item) => [item.sk, item.pos])
        .sort(),
    ).toEqual([
      [logKeys.sortKey(13, 0), 5],
      [logKeys.sortKey(13, 2), 6],
    ]);
    // Block 14, numbered once block 13 is written, continues from block 13's positions.
    await writeItems({ put: block13 });
    const block14 = blockItems(chainId, 14, { logs: [0] });
    await new RangePositions(chainId).assign(14, block14);
    expect(block14.find((item) => item.pk === pk)?.pos).toBe(7);
  });
});

describe('a bounded map', () => {
  it('drops the least recently numbered ranges past its capacity, only those at or below the cursor', async () => {
    const chainId = 9;
    const positions = new RangePositions(chainId, 3);
    const contract = (index: number) => `0x${pad(index, 40)}`;
    const blocks: TableItem[][] = [];
    // Each block: the blocks range and two contracts of its own: 3 new ranges per block.
    for (let number = 0; number < 3; number += 1) {
      blocks[number] = blockItems(chainId, number, { contracts: [contract(2 * number), contract(2 * number + 1)] });
      await positions.assign(number, blocks[number]);
    }
    // Nothing is written yet (no cursor): every range is kept, over capacity.
    expect(positions.size).toBe(7);
    await writeItems({ put: blocks.flat() });
    await writeItems({ put: [{ ...chainKeys.cursor(chainId), blockNumber: 1, blockHash: hashOf(1), firstBlock: 0 }] });
    blocks[3] = blockItems(chainId, 3, { contracts: [contract(6), contract(7)] });
    await positions.assign(3, blocks[3]);
    // Down to 90 % of 3 = 2 would drop the blocks range too (last numbered in block 2, above the
    // cursor): it stops there, after the four contracts of blocks 0 and 1; then block 3 adds two.
    expect(positions.size).toBe(5);
    await writeItems({ put: blocks[3] });
    await writeItems({ put: [{ ...chainKeys.cursor(chainId), blockNumber: 3, blockHash: hashOf(3), firstBlock: 0 }] });
    // A dropped range is read from the table again when a block touches it.
    const block4 = blockItems(chainId, 4, { contracts: [contract(0), contract(5)] });
    await positions.assign(4, block4);
    await writeItems({ put: block4 });
    await expectDense(logKeys.contractLogs(chainId, contract(0)).pk, 2);
    await expectDense(logKeys.contractLogs(chainId, contract(5)).pk, 2);
    await expectDense(blockKeys.blocksRange(chainId).pk, 5);
  });

  it('numbers a batch of blocks like block by block, reading every range the map lacks in one round before numbering', async () => {
    const chainId = 11;
    const other = '0x00000000000000000000000000000000000000e5';
    // History written block by block: blocks 0..2.
    const history = [
      blockItems(chainId, 0, { logs: [1] }),
      blockItems(chainId, 1, { transfers: [0] }),
      blockItems(chainId, 2, { logs: [0, 2] }),
    ];
    const writer = new RangePositions(chainId);
    for (const [number, items] of history.entries()) await writer.assign(number, items);
    await writeItems({ put: history.flat() });
    // A batch of blocks 3..5 by a fresh writer (after a restart: nothing in memory): the blocks range,
    // the contract's logs and the token's transfers are each read once, `other` (new in block 5) too.
    const shapes: BlockShape[] = [{ logs: [0] }, { transfers: [3, 1] }, { logs: [5], contracts: [other] }];
    const batch = shapes.map((shape, offset) => ({ blockNumber: 3 + offset, items: blockItems(chainId, 3 + offset, shape) }));
    const { result: calls, peak } = await mostInFlight(undefined, () => callsOf(() => new RangePositions(chainId).assignBlocks(batch)));
    expect(calls).toEqual(queries(4));
    expect(peak, 'the four lookups in one round').toBe(4);
    // The same blocks numbered one by one give the same positions.
    const single = shapes.map((shape, offset) => blockItems(chainId, 3 + offset, shape));
    const oneByOne = new RangePositions(chainId);
    for (const [offset, items] of single.entries()) await oneByOne.assign(3 + offset, items);
    expect(positionsOf(batch.flatMap((block) => block.items))).toEqual(positionsOf(single.flat()));
    await writeItems({ put: batch.flatMap((block) => block.items) });
    await expectDense(blockKeys.blocksRange(chainId).pk, 6);
    await expectDense(logKeys.contractLogs(chainId, CONTRACT).pk, 5);
    await expectDense(tokenTransferKeys.byToken(chainId, TOKEN).pk, 3);
    await expectDense(logKeys.contractLogs(chainId, other).pk, 1);
  });
});
