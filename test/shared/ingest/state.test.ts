/**
 * A batch's balance transitions written together (StateWriter.setBalances: transactions of up to 100
 * operations, counters merged) leave the items that writing them one by one (setBalance) leaves, on
 * dynalite through the real SDK: balances, the holders' X10 counts (items created, moved, emptied and
 * deleted) and the tokens' `holders`. With fewer TransactWriteItems, never more than 100 operations or
 * two on one item in one, and a transaction refused by a condition (a stale read) is written again
 * one by one from what the table holds.
 */
import { recordTransactions } from '../../support/transactions';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { getItem } from '../../../shared/ingest/table-io';
import { type BalanceChange, type BalanceEntity, StateWriter } from '../../../shared/ingest/state';
import { addressKeys, keyId, nftKeys } from '../../../shared/table/keys';
import type { AddressRecord, BalanceCountsRecord, BalanceRecord, NftInstanceRecord } from '../../../shared/table/records';
import { inTable, tableSnapshot, useTestTable } from '../../support/table';

const table = useTestTable('state-writer');
const CHAIN_ID = 8453;
const address = (n: number): string => `0x${n.toString(16).padStart(40, '0')}`;
const TOKEN_A = address(0xa);
const TOKEN_B = address(0xb);
const NFT = address(0xc);
const MULTI = address(0xd);
const [ALICE, BOB, CAROL, DAVE] = [address(1), address(2), address(3), address(4)];

// Every TransactWriteItems sent, as the keys of its operations.
const transactions = recordTransactions('stateWriterTransactions');

afterEach(() => {
  transactions.length = 0;
});

const erc20 = (holder: string, token: string): BalanceEntity => ({ holder, token, standard: 'ERC-20', tokenId: null });
const erc721 = (holder: string): BalanceEntity => ({ holder, token: NFT, standard: 'ERC-721', tokenId: null });
const erc1155 = (holder: string, tokenId: bigint | null): BalanceEntity => ({ holder, token: MULTI, standard: 'ERC-1155', tokenId });
const change = (balance: BalanceEntity, value: bigint, blockNumber: number): BalanceChange => ({
  balance,
  value,
  blockNumber,
  tokenName: balance.token === NFT ? 'Demo NFT' : 'Demo',
});

/** The tokens' items, as the batch's address step writes them before its balances. */
async function writeTokens(writer: StateWriter): Promise<void> {
  for (const [token, type] of [
    [TOKEN_A, 'ERC-20'],
    [TOKEN_B, 'ERC-20'],
    [NFT, 'ERC-721'],
    [MULTI, 'ERC-1155'],
  ] as const) {
    await writer.updateAddress(
      { address: token, token: { type, name: 'Demo', symbol: 'D', decimals: 18, totalSupply: '1000', readAt: 1 } },
      1,
    );
  }
}

/** Writes `changes` one by one, as setBalance did before transactions were grouped. */
async function oneByOne(writer: StateWriter, changes: readonly BalanceChange[]): Promise<void> {
  for (const { balance, value, blockNumber, tokenName } of changes) await writer.setBalance(balance, value, blockNumber, tokenName);
}

async function together(writer: StateWriter, changes: readonly BalanceChange[]): Promise<void> {
  const prefetched = await writer.getBalances(changes.map(({ balance }) => balance));
  await writer.setBalances(changes, { prefetched, concurrency: 4 });
}

/** The same history written both ways into two tables: each table's items after each step must be equal. */
async function expectSameTables(steps: readonly (readonly BalanceChange[])[]): Promise<{ grouped: string; single: string }> {
  const grouped = `${table.name}-grouped-${Math.random().toString(16).slice(2, 8)}`;
  const single = `${table.name}-single-${Math.random().toString(16).slice(2, 8)}`;
  const writer = new StateWriter(CHAIN_ID);
  await inTable(grouped, () => writeTokens(writer));
  await inTable(single, () => writeTokens(writer));
  for (const changes of steps) {
    await inTable(grouped, () => together(writer, changes));
    await inTable(single, () => oneByOne(writer, changes));
    expect(await tableSnapshot(grouped)).toEqual(await tableSnapshot(single));
  }
  return { grouped, single };
}

function expectValidTransactions(): void {
  for (const operations of transactions) {
    expect(operations.length).toBeLessThanOrEqual(100);
    expect(new Set(operations).size).toBe(operations.length);
  }
}

beforeAll(() => {
  expect(table.name).toBeTruthy();
});

describe('StateWriter.setBalances', () => {
  it('writes the items one by one writing does: counts created, moved, emptied and deleted, holders merged', async () => {
    const history = [
      // Block 10: Alice holds both tokens and an NFT, Bob and Carol token A.
      [
        change(erc20(ALICE, TOKEN_A), 5n, 10),
        change(erc20(ALICE, TOKEN_B), 3n, 10),
        change(erc721(ALICE), 1n, 10),
        change(erc20(BOB, TOKEN_A), 1n, 10),
        change(erc20(CAROL, TOKEN_A), 9n, 10),
      ],
      // Block 11: Alice leaves both tokens (her ERC-20 count goes), Bob leaves A and takes B, Carol's A
      // only changes, Dave arrives in both tokens.
      [
        change(erc20(ALICE, TOKEN_A), 0n, 11),
        change(erc20(ALICE, TOKEN_B), 0n, 11),
        change(erc20(BOB, TOKEN_A), 0n, 11),
        change(erc20(BOB, TOKEN_B), 4n, 11),
        change(erc20(CAROL, TOKEN_A), 8n, 11),
        change(erc20(DAVE, TOKEN_A), 2n, 11),
        change(erc20(DAVE, TOKEN_B), 2n, 11),
      ],
      // Block 12: Alice's NFT goes too (her counts item with it), Bob leaves B; the same values again (nothing to write).
      [change(erc721(ALICE), 0n, 12), change(erc20(BOB, TOKEN_B), 0n, 12), change(erc20(DAVE, TOKEN_A), 2n, 11)],
    ];
    const { grouped } = await expectSameTables(history);

    await inTable(grouped, async () => {
      // As a user of the counts would check them: the holders left and their counts.
      expect(await getItem<BalanceCountsRecord>(addressKeys.balanceCounts(CHAIN_ID, ALICE))).toBeUndefined();
      expect(await getItem<BalanceCountsRecord>(addressKeys.balanceCounts(CHAIN_ID, BOB))).toBeUndefined();
      expect(await getItem<BalanceCountsRecord>(addressKeys.balanceCounts(CHAIN_ID, DAVE))).toMatchObject({ 'ERC-20': 2 });
      expect(await getItem<BalanceCountsRecord>(addressKeys.balanceCounts(CHAIN_ID, CAROL))).toMatchObject({ 'ERC-20': 1 });
      expect((await getItem<AddressRecord>(addressKeys.address(CHAIN_ID, TOKEN_A)))?.holders).toBe(2); // Carol, Dave
      expect((await getItem<AddressRecord>(addressKeys.address(CHAIN_ID, TOKEN_B)))?.holders).toBe(1); // Dave
      expect((await getItem<AddressRecord>(addressKeys.address(CHAIN_ID, NFT)))?.holders).toBe(0);
    });
    expectValidTransactions();
  });

  it('groups a block of transitions into few transactions, those sharing a counter in sequence, none over 100 operations', async () => {
    // 250 new holders of token A (one component: A's holders), 150 changes of existing balances.
    const existing = Array.from({ length: 150 }, (_, n) => erc20(address(0x1000 + n), TOKEN_B));
    const newcomers = Array.from({ length: 250 }, (_, n) => erc20(address(0x2000 + n), TOKEN_A));
    const steps = [
      existing.map((balance) => change(balance, 1n, 20)),
      [...existing.map((balance) => change(balance, 2n, 21)), ...newcomers.map((balance) => change(balance, 7n, 21))],
    ];
    const grouped = `${table.name}-many`;
    const writer = new StateWriter(CHAIN_ID);
    await inTable(grouped, async () => {
      await writeTokens(writer);
      await together(writer, steps[0]);
      transactions.length = 0;
      await together(writer, steps[1]);
      // 400 transitions: 250 balances + A's holders + 250 new counts items, 150 balances: at least 7 transactions of 100.
      expect(transactions.length).toBeGreaterThanOrEqual(7);
      expect(transactions.length).toBeLessThanOrEqual(9);
      expectValidTransactions();
      expect((await getItem<AddressRecord>(addressKeys.address(CHAIN_ID, TOKEN_A)))?.holders).toBe(250);
      expect((await getItem<AddressRecord>(addressKeys.address(CHAIN_ID, TOKEN_B)))?.holders).toBe(150);
      const balances = await writer.getBalances([...existing, ...newcomers]);
      expect([...balances.values()].map((balance) => balance.value).sort()).toEqual([
        ...Array<string>(150).fill('2'),
        ...Array<string>(250).fill('7'),
      ]);
    });
  });

  it("ERC-1155 ids' balances: the ids' held supply and holders and the token's idHolders as one by one, in one transaction", async () => {
    // Block 50: Alice and Bob take id 1, Alice id 2, Carol id 1 and 3; block 51: Alice passes all of
    // id 1 to Dave and some of id 2 to Bob, Carol burns id 3; block 52: Bob takes more of id 1 and
    // Dave leaves it (a +1 and a -1 of id 1's holders in one transaction). Holders' totals in the token
    // (its `holders`, beside the ids' `idHolders`, on the token's item) with them.
    const steps = [
      [
        change(erc1155(ALICE, 1n), 5n, 50),
        change(erc1155(BOB, 1n), 2n, 50),
        change(erc1155(ALICE, 2n), 7n, 50),
        change(erc1155(CAROL, 1n), 1n, 50),
        change(erc1155(CAROL, 3n), 4n, 50),
        change(erc1155(ALICE, null), 12n, 50),
        change(erc1155(CAROL, null), 5n, 50),
      ],
      [
        change(erc1155(ALICE, 1n), 0n, 51),
        change(erc1155(DAVE, 1n), 5n, 51),
        change(erc1155(ALICE, 2n), 3n, 51),
        change(erc1155(BOB, 2n), 4n, 51),
        change(erc1155(CAROL, 3n), 0n, 51),
        change(erc1155(ALICE, null), 3n, 51),
        change(erc1155(CAROL, null), 1n, 51),
      ],
      [change(erc1155(BOB, 1n), 6n, 52), change(erc1155(DAVE, 1n), 0n, 52), change(erc1155(ALICE, 2n), 3n, 52)],
    ];
    const writer = new StateWriter(CHAIN_ID);
    const { grouped } = await expectSameTables(steps);
    expectValidTransactions();
    await inTable(grouped, async () => {
      // As a user reads an id: its held supply and holders (G3), the token's id holders (X7).
      const instance = (tokenId: bigint) => getItem<NftInstanceRecord>(nftKeys.instance(CHAIN_ID, MULTI, tokenId));
      expect(await instance(1n)).toMatchObject({ heldSupply: '7', holders: 2 }); // Bob 6, Carol 1
      expect(await instance(2n)).toMatchObject({ heldSupply: '7', holders: 2 }); // Alice 3, Bob 4
      expect(await instance(3n)).toMatchObject({ heldSupply: '0', holders: 0 });
      expect(await getItem<AddressRecord>(addressKeys.address(CHAIN_ID, MULTI))).toMatchObject({ idHolders: 4, holders: 2 });
      expect(await getItem<BalanceCountsRecord>(addressKeys.balanceCounts(CHAIN_ID, CAROL))).toMatchObject({ 'ERC-1155': 1 });
    });
    // Twenty holders of one id at once: one transaction, where one by one wrote twenty.
    const many = Array.from({ length: 20 }, (_, n) => change(erc1155(address(0x3000 + n), 9n), 1n, 60));
    await inTable(grouped, async () => {
      transactions.length = 0;
      await together(writer, many);
      expect(transactions).toHaveLength(1);
      expect(await getItem<NftInstanceRecord>(nftKeys.instance(CHAIN_ID, MULTI, 9n))).toMatchObject({ heldSupply: '20', holders: 20 });
    });
  });

  it('two changes of one balance item (a token moved as ERC-20 and as ERC-721 in one batch) do not share a transaction', async () => {
    // The balance item's key has no standard: DynamoDB refuses two operations on one item in a transaction.
    await expectSameTables([
      [change(erc20(ALICE, NFT), 1n, 40), change(erc721(ALICE), 2n, 41), change(erc20(BOB, TOKEN_A), 3n, 41)],
      [change(erc20(ALICE, NFT), 0n, 42), change(erc721(ALICE), 1n, 43)],
    ]);
    expectValidTransactions();
  });

  it('reports the value it leaves each balance: the change, or a newer stored one it keeps', async () => {
    const writer = new StateWriter(CHAIN_ID);
    await inTable(`${table.name}-left`, async () => {
      await writeTokens(writer);
      await together(writer, [change(erc1155(ALICE, 7n), 4n, 50), change(erc20(ALICE, TOKEN_A), 2n, 50)]);
      // A re-run of older blocks: ALICE's id 7 was 9 at block 40, below what block 50 stored.
      const changes = [change(erc1155(ALICE, 7n), 9n, 40), change(erc1155(BOB, 7n), 5n, 40), change(erc20(ALICE, TOKEN_A), 3n, 51)];
      const prefetched = await writer.getBalances(changes.map(({ balance }) => balance));
      const left = await writer.setBalances(changes, { prefetched, concurrency: 4 });
      const leftOf = (balance: BalanceEntity) => left.values.get(keyId(writer.balanceKey(balance)));
      expect([leftOf(erc1155(ALICE, 7n)), leftOf(erc1155(BOB, 7n)), leftOf(erc20(ALICE, TOKEN_A))]).toEqual([4n, 5n, 3n]);
      const stored = await writer.getBalances(changes.map(({ balance }) => balance));
      for (const { balance } of changes) expect(BigInt(stored.get(keyId(writer.balanceKey(balance)))!.value)).toBe(leftOf(balance));
      expect(left.exact).toBe(true);
    });
  });

  it('a transaction refused by a stale read is written again one by one from the table', async () => {
    const name = `${table.name}-stale`;
    const reference = `${table.name}-stale-reference`;
    const writer = new StateWriter(CHAIN_ID);
    const first = [change(erc20(ALICE, TOKEN_A), 5n, 30), change(erc20(BOB, TOKEN_A), 5n, 30)];
    const second = [change(erc20(ALICE, TOKEN_A), 3n, 31), change(erc20(BOB, TOKEN_A), 6n, 31), change(erc20(CAROL, TOKEN_A), 1n, 31)];
    await inTable(reference, async () => {
      await writeTokens(writer);
      await oneByOne(writer, [...first, ...second]);
    });
    await inTable(name, async () => {
      await writeTokens(writer);
      // Read before the first block's balances are written: every condition of the second fails.
      const stale = await writer.getBalances(second.map(({ balance }) => balance));
      await together(writer, first);
      transactions.length = 0;
      await writer.setBalances(second, { prefetched: stale, concurrency: 4 });
      expect(transactions.length).toBeGreaterThan(1); // the refused transaction, then one by one
      const stored = await writer.getBalances(second.map(({ balance }) => balance));
      expect(stored.get(keyId(writer.balanceKey(erc20(BOB, TOKEN_A))))?.value).toBe('6');
    });
    expect(await tableSnapshot(name)).toEqual(await tableSnapshot(reference));
    const alice = await inTable(name, () => getItem<BalanceRecord>(writer.balanceKey(erc20(ALICE, TOKEN_A))));
    expect(alice?.value).toBe('3');
  });
});
