/**
 * Union ranges (shared/table/union-ranges.ts, shared/db/union-query.ts): an address's `all` range has
 * no items; its `to` and `from` ranges' entries carry its positions, totals and seek chunks, and the
 * table layer serves a Query of it from the two. Checked on the embedded DynamoDB against a brute-force
 * union of the same entries (self-transfers in both members counted once): numbering by the ingest's
 * own RangePositions in batches with a restart, every page by number through insights' reader, and a
 * keyset walk; the merge's frontier rule with members that stop early (DynamoDB's 1 MB page cap).
 */
import { describe, expect, it } from 'vitest';
import { getItem, type Item, queryAll, queryPage, type QueryPage, writeItems } from '../../../shared/db/operations';
import { queryUnionPage } from '../../../shared/db/union-query';
import { countedEntry } from '../../../shared/ingest/items';
import { RangePositions } from '../../../shared/ingest/range-positions';
import { loadInsightsConfig } from '../../../shared/insights/config';
import { addressKeys, rangeKeys, SEEK_CHUNK_ENTRIES, tokenTransferKeys, type TableItem } from '../../../shared/table/keys';
import { decodeTotal, encodeTotal, runningTotalOf, type SeekChunkRecord } from '../../../shared/table/records';
import { seekChunkKeys } from '../../../shared/table/seek-chunk';
import { legacyUnionTotalAttribute, membersOf, unionOf, unionTotalAttribute } from '../../../shared/table/union-ranges';
import { prng } from '../../../scripts/bench/dataset/chain';
import { useTestTable } from '../../support/table';
import { expectEveryPage } from '../insights/every-page';

useTestTable('union-query');

const CONFIG = loadInsightsConfig({});
const CHAIN = 9;
const ADDRESS = '0x00000000000000000000000000000000000000a7';
const TO = tokenTransferKeys.byAddress(CHAIN, ADDRESS, 'to', 'ALL').pk;
const FROM = tokenTransferKeys.byAddress(CHAIN, ADDRESS, 'from', 'ALL').pk;
const UNION = tokenTransferKeys.byAddress(CHAIN, ADDRESS, 'all', 'ALL').pk;
const BLOCKS = 100;

interface Entry {
  sk: string;
  block: number;
  amount: bigint;
  /** Which member ranges hold it: a self-transfer is in both. */
  sides: ('to' | 'from')[];
}

const next = prng(20_261_126);
const entries: Entry[] = Array.from({ length: BLOCKS }, (_, block) => {
  const count = block === 20 ? 40 : next() < 0.2 ? 0 : Math.floor(next() * 8);
  return Array.from({ length: count }, (_, logIndex): Entry => {
    const roll = next();
    return {
      sk: tokenTransferKeys.sortKey(block, logIndex, 0),
      block,
      amount: BigInt(Math.floor(next() * 1e9)) * 10n ** 12n,
      sides: roll < 0.15 ? ['to', 'from'] : roll < 0.6 ? ['to'] : ['from'],
    };
  });
}).flat();

function itemsOf(block: number): TableItem[] {
  return entries
    .filter((entry) => entry.block === block)
    .flatMap((entry) =>
      entry.sides.map((side) =>
        countedEntry({
          pk: side === 'to' ? TO : FROM,
          sk: entry.sk,
          kind: 'tokenTransfer',
          blockNumber: block,
          amount: entry.amount.toString(),
        }),
      ),
    );
}

async function ingest(positions: RangePositions, from: number, to: number): Promise<void> {
  let block = from;
  while (block < to) {
    const size = Math.min(to - block, 1 + Math.floor(next() * 5));
    const batch = Array.from({ length: size }, (_, offset) => ({ blockNumber: block + offset, items: itemsOf(block + offset) }));
    const chunks = await positions.assignBlocks(batch);
    // The range heads (range-heads.ts) with the items, as the ingest writes them: a restart reads them back.
    await writeItems({ put: [...batch.flatMap((b) => b.items), ...chunks.flat(), ...positions.takeHeads()] });
    block += size;
  }
}

describe('the union of an address’s to and from ranges', () => {
  it('maps member ranges to their union and back, and nothing else', () => {
    expect(unionOf(TO)).toBe(UNION);
    expect(unionOf(FROM)).toBe(UNION);
    expect(membersOf(UNION)).toEqual([TO, FROM]);
    const token = '0x00000000000000000000000000000000000000f5';
    const byToken = (direction: 'to' | 'from' | 'all') =>
      tokenTransferKeys.byAddressAndToken(CHAIN, ADDRESS, direction, token, 'ERC-20').pk;
    expect(membersOf(byToken('all'))).toEqual([byToken('to'), byToken('from')]);
    expect(unionOf(tokenTransferKeys.byToken(CHAIN, token).pk)).toBeUndefined();
    // X5's `all` is a union too (merged, not numbered: its entries are not counted).
    expect(membersOf(addressKeys.internalTransactions(CHAIN, ADDRESS, 'all').pk)).toEqual(
      (['to', 'from'] as const).map((direction) => addressKeys.internalTransactions(CHAIN, ADDRESS, direction).pk),
    );
    expect(membersOf(TO)).toBeUndefined();
    expect(membersOf(tokenTransferKeys.byToken(CHAIN, token).pk)).toBeUndefined();
  });

  it('is numbered on its members’ entries as a brute force over the union: self-transfers once, totals, seek chunks', async () => {
    await ingest(new RangePositions(CHAIN), 0, 25);
    await ingest(new RangePositions(CHAIN), 25, BLOCKS);
    expect(entries.filter((entry) => entry.sides.length === 2).length).toBeGreaterThan(5);
    const stored = async (pk: string) =>
      (await queryAll<TableItem>({ KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': pk } })).items;
    const [to, from, own] = await Promise.all([stored(TO), stored(FROM), stored(UNION)]);
    // The union range holds no item: its view is its members'.
    expect(own.map((item) => item.pos)).toEqual(entries.map((_, index) => index + 1));
    expect(own.map((item) => item.sk)).toEqual(entries.map((entry) => entry.sk));
    let total = 0n;
    const expected = new Map<string, { upos: number; total: bigint }>();
    for (const [index, entry] of entries.entries()) {
      total += entry.amount;
      expected.set(entry.sk, { upos: index + 1, total });
    }
    for (const item of [...to, ...from]) {
      expect({ upos: item.upos, total: decodeTotal(item[unionTotalAttribute('amount')]) }, `${item.pk} ${item.sk}`).toEqual(
        expected.get(String(item.sk)),
      );
    }
    // Each member keeps its own positions.
    expect(to.map((item) => item.pos)).toEqual(to.map((_, index) => index + 1));
    expect(from.map((item) => item.pos)).toEqual(from.map((_, index) => index + 1));
    const complete = Math.floor(entries.length / SEEK_CHUNK_ENTRIES);
    expect(complete).toBeGreaterThan(5);
    for (let chunk = 0; chunk <= complete; chunk += 1) {
      const record = await getItem<SeekChunkRecord>(rangeKeys.seekChunk(UNION, chunk));
      if (chunk === complete) expect(record).toBeUndefined();
      else
        expect(seekChunkKeys(record)).toEqual(entries.slice(chunk * SEEK_CHUNK_ENTRIES, (chunk + 1) * SEEK_CHUNK_ENTRIES).map((e) => e.sk));
    }
  });

  it('serves every page by number of insights’ reader, in both orders and several block bounds', async () => {
    const bounds = [{}, { from: 9 }, { to: 37 }, { from: 20, to: 20 }, { from: 5, to: 44 }];
    await expectEveryPage({ chainId: CHAIN, pk: UNION, entries, bounds, limits: [1, 7, 16], config: CONFIG });
  });

  it('walks by keyset from its LastEvaluatedKey, every entry once, and counts as its union', async () => {
    for (const forward of [true, false]) {
      const seen: string[] = [];
      let start: Item | undefined;
      do {
        const page = await queryPage({
          KeyConditionExpression: 'pk = :pk',
          ExpressionAttributeValues: { ':pk': UNION },
          ScanIndexForward: forward,
          Limit: 13,
          ExclusiveStartKey: start,
        });
        expect(page.items.length).toBeLessThanOrEqual(13);
        seen.push(...page.items.map((item) => String(item.sk)));
        start = page.lastKey;
      } while (start);
      const skKeys = entries.map((entry) => entry.sk);
      expect(seen).toEqual(forward ? skKeys : [...skKeys].reverse());
    }
    // A projection of the position (insights' Limit-1 reads of positions): the union's newest entry, its union position.
    const newest = await queryPage({
      KeyConditionExpression: '#pk = :pk',
      ExpressionAttributeNames: { '#pk': 'pk', '#sk': 'sk', '#pos': 'pos' },
      ExpressionAttributeValues: { ':pk': UNION },
      ProjectionExpression: '#sk, #pos',
      ScanIndexForward: false,
      Limit: 1,
    });
    expect(newest.items).toEqual([{ sk: entries.at(-1)!.sk, pos: entries.length }]);
    const counted = await queryPage({ KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': UNION }, Select: 'COUNT' });
    expect(counted.count).toBe(entries.length);
    expect(counted.scanned).toBe(entries.reduce((sum, entry) => sum + entry.sides.length, 0));
  });
});

describe('the merge of two member pages', () => {
  const sk = (n: number) => tokenTransferKeys.sortKey(n, 0, 0);
  const page = (pk: string, numbers: number[], more: boolean): QueryPage<Item> => ({
    items: numbers.map((n) => ({ pk, sk: sk(n), upos: n, [unionTotalAttribute('amount')]: encodeTotal(BigInt(n)) })),
    count: numbers.length,
    scanned: numbers.length,
    lastKey: more ? { pk, sk: sk(numbers.at(-1)!) } : undefined,
  });
  const input = { KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': UNION }, Limit: 10 };

  it('keeps only what both members have read past: a member cut short holds the other back', async () => {
    // `to` stopped at 4 (its 1 MB page full); `from` read to 9. Entries 6 and 9 wait for the next page.
    const result = await queryUnionPage(input, [TO, FROM], async (query) =>
      query.ExpressionAttributeValues?.[':pk'] === TO ? page(TO, [1, 2, 4], true) : page(FROM, [3, 4, 6, 9], false),
    );
    expect(result.items.map((item) => item.sk)).toEqual([sk(1), sk(2), sk(3), sk(4)]);
    expect(result.lastKey).toEqual({ pk: UNION, sk: sk(4) });
    expect(result.scanned).toBe(7);
    // Union positions and totals read as the range's own.
    expect(result.items[0]).toMatchObject({ pos: 1 });
    expect(runningTotalOf(result.items[0]!, 'amount')).toBe(1n);
    expect(result.items[0]).not.toHaveProperty('upos');
    expect(result.items[0]).not.toHaveProperty(unionTotalAttribute('amount'));
  });

  it('reads the totals of entries written before totals were packed (decimal strings under the old names) as the range’s own', async () => {
    const legacy = (pk: string, numbers: number[]): QueryPage<Item> => ({
      items: numbers.map((n) => ({ pk, sk: sk(n), upos: n, [legacyUnionTotalAttribute('amount')]: String(n * 10) })),
      count: numbers.length,
      scanned: numbers.length,
      lastKey: undefined,
    });
    const result = await queryUnionPage(input, [TO, FROM], async (query) =>
      query.ExpressionAttributeValues?.[':pk'] === TO ? legacy(TO, [1, 3]) : legacy(FROM, [2]),
    );
    expect(result.items.map((item) => runningTotalOf(item, 'amount'))).toEqual([10n, 20n, 30n]);
    expect(result.items[0]).not.toHaveProperty(legacyUnionTotalAttribute('amount'));
  });

  it('continues every member from the union’s LastEvaluatedKey, and ends when neither has more', async () => {
    const starts: unknown[] = [];
    const result = await queryUnionPage({ ...input, ExclusiveStartKey: { pk: UNION, sk: sk(4) } }, [TO, FROM], async (query) => {
      starts.push(query.ExclusiveStartKey);
      return query.ExpressionAttributeValues?.[':pk'] === TO ? page(TO, [5], false) : page(FROM, [6, 9], false);
    });
    expect(starts).toEqual([
      { pk: TO, sk: sk(4) },
      { pk: FROM, sk: sk(4) },
    ]);
    expect(result.items.map((item) => item.sk)).toEqual([sk(5), sk(6), sk(9)]);
    expect(result.lastKey).toBeUndefined();
  });

  it('stops at its Limit, with the last item served as the key to continue from', async () => {
    const result = await queryUnionPage({ ...input, Limit: 3 }, [TO, FROM], async (query) =>
      query.ExpressionAttributeValues?.[':pk'] === TO ? page(TO, [1, 3, 5], true) : page(FROM, [2, 3, 4], true),
    );
    expect(result.items.map((item) => item.sk)).toEqual([sk(1), sk(2), sk(3)]);
    expect(result.lastKey).toEqual({ pk: UNION, sk: sk(3) });
  });
});
