/**
 * The joins a cold part's pointer names (shared/table/joins.ts; docs/decisions/cold-history.md, "Cold
 * pages in two round trips"): on an address's token transfer, transaction and internal transaction
 * ranges, each pointer names the items its part's entries join (the address items of their token and
 * contract sides, their NFT instances), so that a page reaching the part reads them beside it; a part is
 * cut before an item that would take its joins past the bound, and a part one item takes past it names
 * none. Checked against the entries themselves, on a real ingest of a small Base-profile chain.
 */
import { describe, expect, it } from 'vitest';
import { compactBlocks } from '../../../shared/ingest/cold-history';
import { storedEntriesOf } from '../../../shared/table/buckets';
import { expandInternalTransaction, expandTokenTransfer, expandTransaction } from '../../../shared/table/compact';
import { type ColdPointer, coldPointerOf, partItems } from '../../../shared/table/cold-parts';
import { decodeJoins, encodeJoins, type Joins, rangeCarriesJoins } from '../../../shared/table/joins';
import { coldKeys, type TableItem } from '../../../shared/table/keys';
import { unpackItem } from '../../../shared/table/pack';
import { CONTRACT_SIDES_ATTRIBUTE } from '../../../shared/table/records';
import { useCompactorSetting } from '../../support/cold-job';
import { tableSnapshot, useTestTable } from '../../support/table';

const table = useTestTable('cold-part-joins');
const BLOCKS = 6;
const setting = useCompactorSetting('cold-part-joins-test', BLOCKS, 30);

/**
 * What the explorer joins to one entry, spelled out here from its record (compact.ts expands it): a
 * transfer's token and NFT instance, and the sides its `cs` bits flag (from 1, to 2, created 4).
 */
function expectedJoins(entry: TableItem): { addresses: string[]; instances: string[] } {
  const flags = entry[CONTRACT_SIDES_ATTRIBUTE] as number;
  const flagged = (bit: number, address: string | null | undefined): string[] =>
    (flags & bit) !== 0 && typeof address === 'string' ? [address.toLowerCase()] : [];
  switch (entry.kind) {
    case 'tokenTransfer': {
      const transfer = expandTokenTransfer(entry);
      return {
        addresses: [transfer.token.toLowerCase(), ...flagged(1, transfer.from), ...flagged(2, transfer.to)],
        instances: transfer.tokenId === null ? [] : [`${transfer.token.toLowerCase()}#${transfer.tokenId}`],
      };
    }
    case 'transaction': {
      const tx = expandTransaction(entry);
      return { addresses: [...flagged(1, tx.from), ...flagged(2, tx.to), ...flagged(4, tx.contractAddress)], instances: [] };
    }
    case 'internalTransaction': {
      const internal = expandInternalTransaction(entry);
      return {
        addresses: [...flagged(1, internal.from), ...flagged(2, internal.to), ...flagged(4, internal.createdContract)],
        instances: [],
      };
    }
    default:
      throw new Error(`an entry of kind ${String(entry.kind)} in a range that carries joins`);
  }
}

/** Every pointer in the table with its range pk (by the pointers' pk) and its part's entries. */
async function pointersWithEntries(
  rangePks: readonly string[],
): Promise<{ rangePk: string; pointer: ColdPointer; entries: TableItem[] }[]> {
  const rangeOf = new Map(rangePks.map((rangePk) => [coldKeys.parts(rangePk).pk, rangePk]));
  const pointers = (await tableSnapshot(table.name)).filter((item) => String(item.pk).startsWith('COLD#'));
  return Promise.all(
    pointers.map(async (item) => {
      const rangePk = rangeOf.get(String(item.pk)) ?? '?';
      const pointer = coldPointerOf(item as TableItem, rangePk);
      const items = partItems(await setting.store.read(pointer.object, pointer.offset, pointer.length));
      return {
        rangePk,
        pointer,
        entries: items.flatMap((stored) => storedEntriesOf(stored).map((entry) => unpackItem(entry) as TableItem)),
      };
    }),
  );
}

const sorted = (joins: Joins | undefined): unknown =>
  joins && {
    addresses: [...joins.addresses].sort(),
    instances: joins.instances.map(({ contract, tokenId }) => `${contract}#${tokenId}`).sort(),
    transactions: [...joins.transactions].sort(),
  };

describe('the joins a cold part pointer names', () => {
  it('are stored in about 22 bytes an address and read back as written', () => {
    const joins: Joins = {
      addresses: [`0x${'ab'.repeat(20)}`, `0x${'cd'.repeat(20)}`],
      instances: [
        { contract: `0x${'ab'.repeat(20)}`, tokenId: '115792089237316195423570985008687907853269984665640564039457584007913129639935' },
      ],
      transactions: [`0x${'ef'.repeat(32)}`],
    };
    expect(decodeJoins(encodeJoins(joins))).toEqual(joins);
    // On a contract's own range every entry names the contract: its pointers leave it out and say so in a byte.
    const owner = joins.addresses[1]!;
    const owned = encodeJoins(joins, owner);
    expect(owned.length).toBeLessThanOrEqual(encodeJoins(joins).length - 19);
    expect(decodeJoins(owned, owner)).toEqual({ ...joins, addresses: [owner, joins.addresses[0]] });
    expect(decodeJoins(owned)).toBeUndefined();
    expect(decodeJoins(encodeJoins(joins, `0x${'99'.repeat(20)}`), `0x${'99'.repeat(20)}`)).toEqual(joins);
    expect(encodeJoins({ addresses: joins.addresses, instances: [], transactions: [] }).length).toBeLessThanOrEqual(2 * 22 + 4);
    expect(decodeJoins(Uint8Array.of(1, 2, 3))).toBeUndefined();
    expect(rangeCarriesJoins(`C#8453#A#0x${'ab'.repeat(20)}#TT#all#ALL`)).toBe(true);
    expect(rangeCarriesJoins(`C#8453#A#0x${'ab'.repeat(20)}#ITX#to`)).toBe(true);
    expect(rangeCarriesJoins(`C#8453#LOGS#0x${'ab'.repeat(20)}`)).toBe(false);
  });

  it("name what their part's entries join on the explorer's ranges, and cut parts to keep it under the bound", async () => {
    const snapshot = (await tableSnapshot(table.name)) as TableItem[];
    const rangePks = [...new Set(snapshot.map((item) => item.pk))];
    const BOUND = 6;
    const result = await compactBlocks({ chainId: setting.chainId, fromBlock: 1, toBlock: BLOCKS, store: setting.store, partJoins: BOUND });
    expect(result.parts).toBeGreaterThan(0);
    const parts = await pointersWithEntries(rangePks);
    const carrying = parts.filter((part) => rangeCarriesJoins(part.rangePk));
    expect(carrying.length).toBeGreaterThan(20);
    // Other ranges' pointers name none.
    for (const part of parts.filter((other) => !rangeCarriesJoins(other.rangePk))) expect(part.pointer.joins, part.rangePk).toBeUndefined();

    let named = 0;
    let cut = 0;
    for (const { rangePk, pointer, entries } of carrying) {
      // The truth, from the entries: every token and flagged side of theirs, each once.
      const addresses = new Set(entries.flatMap((entry) => expectedJoins(entry).addresses));
      const instances = new Set(entries.flatMap((entry) => expectedJoins(entry).instances));
      if (pointer.joins === undefined) {
        // Only a part of one item (a block's bucket) joining more than the bound names none.
        expect(pointer.count, rangePk).toBe(1);
        expect(addresses.size + instances.size, rangePk).toBeGreaterThan(BOUND);
        continue;
      }
      named += 1;
      const joins = sorted(pointer.joins) as { addresses: string[]; instances: string[]; transactions: string[] };
      expect(joins.addresses.length + joins.instances.length + joins.transactions.length, rangePk).toBeLessThanOrEqual(BOUND);
      // Exactly those: nothing the page would miss, nothing it would read for no entry (no copy here left out its input).
      expect(joins, rangePk).toEqual({ addresses: [...addresses].sort(), instances: [...instances].sort(), transactions: [] });
      if (pointer.count > 1) cut += 1;
    }
    expect(named).toBeGreaterThan(20);
    expect(cut).toBeGreaterThan(0);
    // The bound cut ranges into more parts than the entries' count alone would.
    const perRange = new Map<string, number>();
    for (const part of carrying) perRange.set(part.rangePk, (perRange.get(part.rangePk) ?? 0) + 1);
    expect(Math.max(...perRange.values())).toBeGreaterThan(1);
  });
});
