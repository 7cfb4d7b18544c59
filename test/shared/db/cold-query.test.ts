/**
 * The table layer's cold reader (shared/db/cold-query.ts; docs/decisions/cold-history.md, step 4) on a
 * real ingest of a small Base-profile chain into dynalite and a local S3 (s3rver on 127.0.0.1): once the
 * older blocks' history is compacted into cold parts and their items are gone from the table (as the TTL
 * will remove them), a reader walking any history range, in either order, from any start, within key
 * bounds, counting, or with a projection, gets the entries it got when all of it was in the table, in the
 * same order; while the table still holds half of the compacted items, the same again. Each page
 * waits on at most two round trips in sequence (the table's Queries together, then the parts' GETs
 * together) and holds at most its Limit.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalS3, type LocalS3 } from '../../../scripts/lib/local-s3';
import { s3ColdStore, type ColdStore } from '../../../shared/aws/cold-store';
import { useColdStore } from '../../../shared/db/cold-query';
import { batchGetItems, getItem, queryPage, writeItems, type Item, type QueryInput } from '../../../shared/db/operations';
import { compactBlocks } from '../../../shared/ingest/cold-history';
import { readManifest } from '../../../shared/ingest/manifest';
import { isHistoryRange, isTransactionPartition } from '../../../shared/table/cold-parts';
import { type ItemKey, keyId } from '../../../shared/table/keys';
import { membersOf, unionOf } from '../../../shared/table/union-ranges';
import { ingestedSmallBaseChain } from '../../support/base-chain';
import { tableSnapshot, useTestTable } from '../../support/table';
import { observingTable, type OtherCall, roundTripsInSequence } from '../../support/table-calls';

const table = useTestTable('cold-query');
const BUCKET = 'cold-query-test';
const BLOCKS = 12;
/** Compacted in two runs: blocks 1-4 in parts of at most 3 items (many parts a range), 5-8 in default parts. */
const COLD_TO = 8;

let s3: LocalS3;
let store: ColdStore;
let chainId: number;
/** Every item the compacted blocks' manifests list in history ranges: what the TTL will remove. */
let compacted: ItemKey[] = [];
let ranges: { pk: string; full: boolean }[] = [];

/** Part reads, each with when it was sent and answered. */
const reads: OtherCall[] = [];

beforeAll(async () => {
  s3 = await startLocalS3(BUCKET);
  const s3Store = s3ColdStore({ bucket: BUCKET, endpoint: s3.endpoint, credentials: s3.credentials });
  store = {
    put: (key, body) => s3Store.put(key, body),
    read: async (key, offset, length) => {
      const read = { start: performance.now(), end: Number.POSITIVE_INFINITY, label: `GET ${key} ${offset}` };
      reads.push(read);
      try {
        if (latency > 0) await sleep(latency);
        return await s3Store.read(key, offset, length);
      } finally {
        read.end = performance.now();
      }
    },
  };
  chainId = (await ingestedSmallBaseChain(BLOCKS, 20)).spec.chainId;

  for (let number = 1; number <= COLD_TO; number += 1) {
    for (const key of (await readManifest(chainId, number))!.items) if (isHistoryRange(key.pk)) compacted.push(key);
  }
  compacted = [...new Map(compacted.map((key) => [keyId(key), key])).values()];
  ranges = chosenRanges(await tableSnapshot(table.name));
}, 120_000);

afterAll(async () => {
  useColdStore(undefined);
  await s3?.close();
});

/**
 * The ranges the test walks, among those the compacted blocks wrote to: the one with most items of each
 * kind of history range (an address's member ranges and their unions, N4, N5, N8, N3, N6, N16,
 * transactions' partitions) and three with one or two items. Each is walked newest and oldest
 * first; the busiest union and the busiest of three other kinds (`full`) also in every other way.
 */
function chosenRanges(items: Record<string, unknown>[]): { pk: string; full: boolean }[] {
  const touched = new Set(compacted.map((key) => key.pk));
  const sizes = new Map<string, number>();
  for (const item of items) if (touched.has(String(item.pk))) sizes.set(String(item.pk), (sizes.get(String(item.pk)) ?? 0) + 1);
  const kindOf = (pk: string): string => pk.replace(/0x[0-9a-f]+/g, '').replace(/\d+/g, '');
  const busiest = new Map<string, string>();
  for (const pk of [...sizes.keys()].sort((a, b) => sizes.get(b)! - sizes.get(a)! || a.localeCompare(b))) {
    if (!busiest.has(kindOf(pk))) busiest.set(kindOf(pk), pk);
  }
  const chosen = new Set([...busiest.values(), ...[...sizes.keys()].filter((pk) => sizes.get(pk)! <= 2).slice(0, 3)]);
  // The union of the busiest address's transfers (an address's `all` range: two members read together).
  const union = [...chosen].map(unionOf).find((pk) => pk !== undefined)!;
  const full = new Set([
    union,
    busiest.get(kindOf('C#1#TOPIC0#0x0'))!,
    [...chosen].find((pk) => /#TX#0x[0-9a-f]{64}$/.test(pk))!,
    [...chosen].find((pk) => pk.includes('#FROM#'))!,
  ]);
  return [...new Set([...chosen, union])].sort().map((pk) => ({ pk, full: full.has(pk) }));
}

interface Walk {
  name: string;
  input: QueryInput;
}

/** The reads of a range the test compares: both orders; of a `full` one, also a whole range at once, a middle bound, a count and a projection. */
function walksOf({ pk, full }: { pk: string; full: boolean }): Walk[] {
  const base = { KeyConditionExpression: '#pk = :pk', ExpressionAttributeNames: { '#pk': 'pk' }, ExpressionAttributeValues: { ':pk': pk } };
  const walks: Walk[] = [];
  for (const forward of [false, true]) {
    walks.push({ name: `${forward ? 'oldest' : 'newest'} first, Limit 25`, input: { ...base, ScanIndexForward: forward, Limit: 25 } });
  }
  if (!full) return walks;
  walks.push({ name: 'newest first, no Limit', input: { ...base, ScanIndexForward: false } });
  // A bound inside the compacted blocks (sort keys start with the block's 12 digits in block-ordered ranges).
  const low = String(3).padStart(12, '0');
  const high = `${String(10).padStart(12, '0')}~`;
  for (const forward of [false, true]) {
    walks.push({
      name: `${forward ? 'oldest' : 'newest'} first, blocks 3-10`,
      input: {
        KeyConditionExpression: '#pk = :pk AND #sk BETWEEN :low AND :high',
        ExpressionAttributeNames: { '#pk': 'pk', '#sk': 'sk' },
        ExpressionAttributeValues: { ':pk': pk, ':low': low, ':high': high },
        ScanIndexForward: forward,
        Limit: 25,
      },
    });
  }
  walks.push({ name: 'count', input: { ...base, Select: 'COUNT', Limit: 50 } });
  walks.push({
    name: 'projection',
    input: {
      ...base,
      ScanIndexForward: false,
      Limit: 25,
      ProjectionExpression: '#sk, #kind',
      ExpressionAttributeNames: { '#pk': 'pk', '#sk': 'sk', '#kind': 'kind' },
    },
  });
  return walks;
}

interface Walked {
  entries: unknown[];
  count: number;
}

/** Milliseconds each call takes at least on the pages whose round trips are measured (as in AWS, where a call's latency dwarfs the CPU between calls). */
const MEASURED_LATENCY_MS = 15;
let latency = 0;
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A range walked page after page to its end; every page checked against its Limit, the first two also
 * against the round-trip bound, each call taking at least MEASURED_LATENCY_MS.
 */
async function walk(input: QueryInput): Promise<Walked> {
  const entries: unknown[] = [];
  let count = 0;
  let start: Item | undefined;
  for (let pages = 0; pages < 2_000; pages += 1) {
    reads.length = 0;
    const read = () => queryPage({ ...input, ExclusiveStartKey: start });
    let page: Awaited<ReturnType<typeof read>>;
    if (pages < 2) {
      latency = MEASURED_LATENCY_MS;
      const measured = await roundTripsInSequence(() => observingTable(() => sleep(latency), read), reads);
      latency = 0;
      // The table's Queries go together; the parts' GETs go together, after them.
      expect(measured.depth, measured.path.join(' -> ')).toBeLessThanOrEqual(reads.length > 0 ? 2 : 1);
      page = measured.result;
    } else page = await read();
    if (input.Limit !== undefined) expect(page.count).toBeLessThanOrEqual(input.Limit);
    entries.push(...page.items.map(plain));
    count += page.count;
    start = page.lastKey;
    if (start === undefined) return { entries, count };
  }
  throw new Error('the walk did not end');
}

/** An entry as a reader compares it: binary values as hex; the sort key the merge adds to a projection aside. */
function plain(value: unknown): unknown {
  if (value instanceof Uint8Array) return `0x${Buffer.from(value).toString('hex')}`;
  if (Array.isArray(value)) return value.map(plain);
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([name, inner]) => [name, plain(inner)]));
  return value;
}

async function walkAll(): Promise<Map<string, Walked>> {
  const walked = new Map<string, Walked>();
  for (const range of ranges) for (const { name, input } of walksOf(range)) walked.set(`${range.pk} ${name}`, await walk(input));
  return walked;
}

describe('a history range read across the table and its cold parts', () => {
  let allHot: Map<string, Walked>;
  /** The compacted items of transactions' partitions, looked up by key while all hot. */
  let hotLookups: Map<string, Item>;

  it('walks the same entries with half of the compacted items still in the table', async () => {
    useColdStore(undefined);
    allHot = await walkAll();
    hotLookups = await batchGetItems(compacted.filter((key) => isTransactionPartition(key.pk)));
    // The walks see the chain's history: several ranges of many entries, unions among them.
    expect(ranges.filter(({ full }) => full)).toHaveLength(4);
    expect(ranges.some(({ pk }) => membersOf(pk) !== undefined)).toBe(true);
    expect(Math.max(...[...allHot.values()].map((walked) => walked.count))).toBeGreaterThan(50);

    await compactBlocks({ chainId, fromBlock: 1, toBlock: 4, store, partEntries: 3 });
    await compactBlocks({ chainId, fromBlock: 5, toBlock: COLD_TO, store });
    // The TTL removes a block's items one by one: half of them gone, the other half still there.
    await writeItems({ delete: compacted.filter((_, index) => index % 2 === 0) });
    useColdStore(store);
    expect(await walkAll()).toEqual(allHot);
  }, 120_000);

  it('walks the same entries with all of them gone', async () => {
    await writeItems({ delete: compacted.filter((_, index) => index % 2 === 1) });
    const left = new Set((await tableSnapshot(table.name)).map((item) => keyId(item as unknown as ItemKey)));
    expect(compacted.some((key) => left.has(keyId(key)))).toBe(false);
    let partsRead = 0;
    const walked = new Map<string, Walked>();
    for (const range of ranges) {
      for (const { name, input } of walksOf(range)) {
        walked.set(`${range.pk} ${name}`, await walk(input));
        partsRead += reads.length;
      }
    }
    expect(walked).toEqual(allHot);
    expect(partsRead).toBeGreaterThan(0);
  }, 120_000);

  it("finds a transaction's items by key in their parts, in two round trips where its first part holds them", async () => {
    // All compacted items gone (the test before); blocks 1-4 in parts of 3 items (a partition of more in
    // several parts: its later parts found by their pointers' Query), 5-8 in default parts (one a partition).
    const keys = compacted.filter((key) => isTransactionPartition(key.pk));
    expect(keys.length).toBeGreaterThan(50);
    expect(plain(await batchGetItems(keys))).toEqual(plain(hotLookups));
    const depths: number[] = [];
    for (const key of keys.filter((candidate) => candidate.sk === 'TX')) {
      reads.length = 0;
      latency = MEASURED_LATENCY_MS;
      const measured = await roundTripsInSequence(
        () =>
          observingTable(
            () => sleep(latency),
            () => getItem(key),
          ),
        reads,
      );
      latency = 0;
      expect(plain(measured.result), key.pk).toEqual(plain(hotLookups.get(keyId(key))));
      depths.push(measured.depth);
    }
    // The item and its first part's pointer in one BatchGetItem, then the part: two round trips. A
    // record in a later part of its partition: the pointer's Query first, three.
    expect(Math.max(...depths)).toBeLessThanOrEqual(3);
    expect(depths.filter((depth) => depth === 2).length).toBeGreaterThan(depths.length / 2);
  }, 120_000);

  it('reads the table alone when the tier is off', async () => {
    useColdStore(undefined);
    const { pk } = ranges.find(({ pk, full }) => full && membersOf(pk) === undefined)!;
    const { count } = await walk({
      KeyConditionExpression: '#pk = :pk',
      ExpressionAttributeNames: { '#pk': 'pk' },
      ExpressionAttributeValues: { ':pk': pk },
    });
    expect(count).toBeLessThan(allHot.get(`${pk} newest first, no Limit`)!.count);
    useColdStore(store);
  });
});
