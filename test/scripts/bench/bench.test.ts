/**
 * The benchmark suite's pure pieces on a tiny scale (the suite itself, `npm run bench`, is not part of
 * `npm test`): the measurement helpers, the budgets, the cost model, the report files, and the
 * synthetic chain of the dataset through the real ingest (derive, items, state) into a test table.
 */
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTestTable } from '../../support/table';
import type { ColdResult } from '../../../scripts/bench/cold';
import type { HttpResult, RequestResult } from '../../../scripts/bench/http';
import { ACTORS, bloomOf, SyntheticChain, type ChainSpec } from '../../../scripts/bench/dataset/chain';
import { startDemoChain } from '../../support/demo-chain';
import { datasetSpec } from '../../../scripts/bench/dataset/spec';
import type { FollowResult } from '../../../scripts/bench/follow';
import { coldBudgets, followBudgets, httpBudgets, ingestBudgets, loadBudgets } from '../../../scripts/bench/lib/budgets';
import { captureWrite, distinctChunks, emptyCapture, floorInput } from '../../../scripts/bench/lib/floor-writes';
import { blockLags, dbStage, percentileOf, rpcStage, stageTimes } from '../../../scripts/bench/lib/stages';
import { costModel, ingestInputs } from '../../../scripts/bench/lib/cost';
import {
  minimumReadUnits,
  percentile,
  recordsOf,
  roundTrips,
  wastedReads,
  waves,
  type RecordedCall,
} from '../../../scripts/bench/lib/measure';
import { buildReport, writeReport } from '../../../scripts/bench/lib/report';
import {
  expiringStoredNote,
  familyMarkdown,
  familyOf,
  heldBytesPerTransaction,
  itemSize,
  perUnit,
  recordWriteCommand,
  WriteLedger,
} from '../../../scripts/bench/lib/write-families';

useTestTable('bench');

const call = (command: string, start: number, end: number, more: Partial<RecordedCall> = {}): RecordedCall => ({
  command,
  start,
  end,
  scanned: 0,
  returned: 0,
  keysRequested: 0,
  keysFound: 0,
  itemBytes: [],
  ...more,
});

describe('measurement helpers', () => {
  it('counts round trips in sequence, parallel calls as one', () => {
    const merge = [call('QueryCommand', 0, 10), call('QueryCommand', 1, 9), call('BatchGetItemCommand', 11, 20)];
    expect(roundTrips(merge)).toBe(2);
    expect(waves(merge).map((wave) => wave.length)).toEqual([2, 1]);
    expect(roundTrips([call('BatchGetItemCommand', 0, 5), call('QueryCommand', 6, 8), call('BatchGetItemCommand', 9, 12)])).toBe(3);
    expect(roundTrips([])).toBe(0);
  });

  it('counts wasted reads, the read-unit minimum and the records of a response', () => {
    const page = call('QueryCommand', 0, 1, { scanned: 51, returned: 51, itemBytes: Array(51).fill(1000) });
    const details = call('BatchGetItemCommand', 2, 3, { keysRequested: 27, keysFound: 1, itemBytes: [500] });
    expect(wastedReads([page, details], 50)).toBe(1);
    // page 20 of page-number paging: 21 x 50 read for 50
    expect(wastedReads([call('QueryCommand', 0, 1, { scanned: 1050, returned: 1050 })], 50)).toBe(1000);
    // 50 records of 1000 B: 50,000 B = 13 x 4 KB, 6.5 units eventually consistent
    expect(minimumReadUnits([page, details], 50)).toBe(6.5);
    expect(recordsOf(200, { items: [1, 2, 3], next_page_params: null })).toBe(3);
    expect(recordsOf(200, { meta: {}, data: [], aggregations: [[{ n: 1 }, { n: 2 }], [{ n: 3 }]] })).toBe(3);
    expect(recordsOf(200, { success: true, collections: [1, 2] })).toBe(2);
    expect(recordsOf(200, { data: { type: 'block', blocks: [1], transactions: [], events: [2], address: '' } })).toBe(2);
    expect(recordsOf(201, { success: true, data: { id: 'x', attributes: [] } })).toBe(1);
    expect(recordsOf(404, { error: 'no' })).toBe(0);
    expect(percentile([5, 1, 4, 2, 3], 50)).toBe(3);
    expect(percentile([5, 1, 4, 2, 3], 99)).toBe(5);
  });
});

const request = (id: string, more: Partial<RequestResult> = {}): RequestResult => ({
  id,
  routeId: 'ListAddressTokenTransfers',
  kind: 'list',
  mix: true,
  method: 'GET',
  url: '/x',
  status: 200,
  records: 50,
  calls: { QueryCommand: 1, BatchGetItemCommand: 1 },
  callCount: 2,
  roundTrips: 2,
  itemsRead: 52,
  itemsReturnedByDynamo: 52,
  readUnits: 10,
  writeUnits: 0,
  itemsReadPerRecord: 1.04,
  wastedReads: 1,
  wastedAllowance: 7,
  minimumReadUnits: 4,
  missingBatchGetKeys: 0,
  scans: 0,
  handlerMs: { p50: 12, p99: 20, n: 20 },
  directMs: { p50: 10, p99: 15, n: 20 },
  handlerOverDirect: 1.2,
  detail: [],
  ...more,
});

const httpResult = (requests: RequestResult[]): HttpResult => ({
  dataset: {
    scale: 0.01,
    key: 'k',
    dir: '.bench/x',
    builtThisRun: false,
    buildSeconds: 1,
    generation: { seconds: 1, chains: [], collectionsSeconds: 0, ordersSeconds: 0, ingestWriteUnitsPerTransaction: 70 },
    chains: [],
    collections: 1,
    orders: 1,
  },
  settings: { reps: 20, secondsPerRequest: 8, transport: 'dispatch' },
  seconds: 1,
  requests,
  depth: [
    {
      name: 'E3',
      first: 'a',
      deep: 'b',
      pageReached: 200,
      pageWanted: 200,
      firstReadUnits: 10,
      deepReadUnits: 11,
      deepStatus: 200,
      ratio: 1.1,
    },
    {
      name: 'I5c',
      first: 'c',
      deep: 'd',
      pageReached: null,
      pageWanted: 1999,
      firstReadUnits: 5,
      deepReadUnits: null,
      deepStatus: 400,
      ratio: null,
    },
  ],
  mixReadUnitsPerPage: 10,
});

describe('write cost by item family', () => {
  it('names the family of every key the ingest writes', () => {
    const a = '0x' + 'a'.repeat(40);
    const h = '0x' + 'b'.repeat(64);
    const cases: [string, string, string][] = [
      ['C#1#BLOCKS', '000000000001', 'N1 block (BLOCKS)'],
      [`C#1#TX#${h}`, 'TX', 'N2 transaction (TX#h / TX)'],
      [`C#1#TX#${h}`, 'TT#000001#0000', 'N10 token transfer (TX#h / TT#)'],
      [`C#1#A#${a}#TX#all`, '000000000001#000000', 'X4 transactions (A#a#TX#all)'],
      [`C#1#A#${a}#TX#from`, '000000000001#000000', 'X4 transactions (A#a#TX#to|from)'],
      [`C#1#A#${a}#TT#to#ERC-20`, 'x', 'X3/N9 transfers (A#a#TT#to|from#standard)'],
      [`C#1#A#${a}#TT#all#ALL`, 'x', 'X3/N9 transfers (A#a#TT#all#ALL)'],
      [`C#1#A#${a}#TT#all#TOKEN#${a}`, 'x', 'X3/N9 transfers by token (A#a#TT#all#TOKEN#t)'],
      [`C#1#A#${a}`, `BAL#${a}#-`, 'G3 balance (A#a / BAL#)'],
      [`C#1#A#${a}`, 'COIN', 'X9 coin balance (A#a / COIN)'],
      [`C#1#A#${a}`, 'BALCOUNT', 'X10 balance counts (A#a / BALCOUNT)'],
      [`C#1#TT#${a}`, '000000000001#000001#0000', 'N8 transfers of a token (TT#token)'],
      [`C#1#TT#${a}#ID#12345`, '000000000001#000001#0000', 'N16 transfers of one NFT (TT#token#ID#id)'],
      [`C#1#A#${a}#NFT`, `1#${a}#${'9'.repeat(78)}`, 'G4 NFT holding (A#a#NFT)'],
      [`C#1#CALLS#${a}#0xa9059cbb#FROM#${a}`, 'x', 'N3 calls by sender (CALLS#c#sel#FROM#a)'],
      [`C#1#WROTE#000000000001`, '0000', 'G2 manifest (WROTE)'],
      ['CHAINS', '000000000001', 'N13 chain registry (CHAINS)'],
      ['NAME#b10', 'CHAINS', 'N11 name across chains (NAME#n / CHAINS)'],
      ['SEEK#C#1#TT#0xabc', '0000000001', 'N15 seek chunks (SEEK#<range>)'],
      ['C#1#SOMETHING#12345', 'x', 'other: SOMETHING#n | x'],
    ];
    for (const [pk, sk, id] of cases) expect(familyOf(pk, sk).id, pk).toBe(id);
  });

  it("prices a moved or dropped GSI key as DynamoDB does: the old index entry's delete, then the new one's put", () => {
    const ledger = new WriteLedger();
    const key = { pk: 'C#1#A#0xa', sk: 'BAL#0xt#-' };
    const at = (value: string) => ({ ...key, value, gsi2pk: 'C#1#HOLDERS#0xt', gsi2sk: `-#${value}#0xa` });
    const put = (item: Record<string, unknown>) => recordWriteCommand(ledger, 'PutItem', { Item: item });
    put(at('5')); // a new entry: 1 put on the index
    put({ ...at('5'), updatedAtBlock: 9 }); // the same index key: gsi2 projects only keys, so nothing to write
    put(at('7')); // the index key moves: the old entry deleted, the new one put
    recordWriteCommand(ledger, 'DeleteItem', { Key: key }); // the item and its index entry deleted
    const gsi = new Map(ledger.report([]).rows.map((row) => [row.family, row])).get('GSI gsi2: G3 balance (A#a / BAL#)');
    expect(gsi).toMatchObject({ puts: 2, deletes: 2, writeUnits: 4 });
  });

  it('prices X1 as the gsi3 entries of the balance items (key moves included), with no listing family of its own', () => {
    const ledger = new WriteLedger();
    const key = { pk: 'C#1#A#0xa', sk: 'BAL#0xt#-' };
    const gsi3pk = 'C#1#A#0xa#BALS#ERC-20';
    const at = (value: string) => ({
      ...key,
      value,
      gsi2pk: 'C#1#HOLDERS#0xt',
      gsi2sk: `-#${value}#0xa`,
      gsi3pk,
      gsi3sk: `${value}#4#T#0xt#-`,
    });
    const transact = (item: Record<string, unknown>) =>
      recordWriteCommand(ledger, 'TransactWriteItems', { TransactItems: [{ Put: { Item: item } }] });
    transact(at('5')); // new: one entry on each index
    transact({ ...at('5'), tokenName: 'T' }); // the same keys: the indexes hold only keys, nothing written
    transact(at('7')); // both keys move: the old entries deleted, the new ones put
    recordWriteCommand(ledger, 'TransactWriteItems', { TransactItems: [{ Delete: { Key: key } }] });
    const rows = ledger.report([at('9')]).rows;
    const byFamily = new Map(rows.map((row) => [row.family, row]));
    expect(byFamily.get('GSI gsi3: X1 balance listing (G3 balance)')).toMatchObject({
      group: 'GSI',
      puts: 2,
      deletes: 2,
      writeUnits: 4,
      itemsStored: 1,
      // An entry stores the table's and the index's keys, not the item (its value, its gsi2 keys).
      bytesStored: itemSize({ pk: key.pk, sk: key.sk, gsi3pk, gsi3sk: '9#4#T#0xt#-' }) + 100,
    });
    expect(byFamily.get('GSI gsi2: G3 balance (A#a / BAL#)')).toMatchObject({
      puts: 2,
      deletes: 2,
      writeUnits: 4,
      bytesStored: itemSize({ pk: key.pk, sk: key.sk, gsi2pk: 'C#1#HOLDERS#0xt', gsi2sk: '-#9#0xa' }) + 100,
    });
    // The balance's own writes, transactional; nothing else is written for X1.
    expect(byFamily.get('G3 balance (A#a / BAL#)')).toMatchObject({ puts: 3, deletes: 1, writeUnits: 8 });
    expect(rows.map((row) => row.family).filter((family) => family.startsWith('X1') || family.includes('BALS'))).toEqual([]);
  });

  it('prices puts, transactional writes, updates, deletes and GSI copies, and adds up stored bytes', () => {
    const ledger = new WriteLedger();
    const big = { pk: 'C#1#BLOCKS', sk: '000000000001', gsi1pk: 'C#1#BLOCKTIME', gsi1sk: 't', blob: 'x'.repeat(1500) };
    const small = { pk: 'C#1#A#0xa#TX#all', sk: '000000000001#000000', hash: '0xb' };
    recordWriteCommand(ledger, 'BatchWriteItem', { RequestItems: { t: [{ PutRequest: { Item: big } }, { PutRequest: { Item: small } }] } });
    const balance = { pk: 'C#1#A#0xa', sk: 'BAL#0xt#-', value: '5' };
    recordWriteCommand(ledger, 'TransactWriteItems', {
      TransactItems: [{ Put: { Item: balance } }, { Delete: { Key: { pk: 'C#1#A#0xa#NFT', sk: 'old' } } }],
    });
    recordWriteCommand(ledger, 'UpdateItem', { Key: { pk: 'C#1#ADDR#0xt', sk: 'ADDR' } });
    const report = ledger.report([big, small, balance, { pk: 'C#1#ADDR#0xt', sk: 'ADDR', holders: 2 }]);
    const byFamily = new Map(report.rows.map((row) => [row.family, row]));
    expect(byFamily.get('N1 block (BLOCKS)')).toMatchObject({ puts: 1, writeUnits: 2, itemsStored: 1 });
    expect(byFamily.get('GSI gsi1: N1 block (BLOCKS)')).toMatchObject({ puts: 1, writeUnits: 2, itemsStored: 1, group: 'GSI' });
    expect(byFamily.get('X4 transactions (A#a#TX#all)')).toMatchObject({ writeUnits: 1, bytesWritten: itemSize(small) });
    expect(byFamily.get('G3 balance (A#a / BAL#)')).toMatchObject({ writeUnits: 2, transactionalWriteUnits: 2 });
    expect(byFamily.get('G4 NFT holding (A#a#NFT)')).toMatchObject({ deletes: 1, writeUnits: 2, itemsStored: 0 });
    expect(byFamily.get('X7 address / token (ADDR#a)')).toMatchObject({ updates: 1, writeUnits: 1, itemsStored: 1 });
    expect(report.totals.writeUnits).toBe(2 + 2 + 1 + 2 + 2 + 1);
    expect(report.totals.bytesStored).toBe(
      [big, small, balance, { pk: 'C#1#ADDR#0xt', sk: 'ADDR', holders: 2 }].reduce((sum, item) => sum + itemSize(item) + 100, 0) +
        itemSize(big) +
        100,
    );
    const figures = perUnit(report, 2, 1);
    expect(figures.totals.writeUnitsPerTx).toBe(5);
    expect(figures.totals.writeUnitsPerLog).toBe(10);
    expect(familyMarkdown(figures)).toContain('| **total** |');
    expect(report.totals.expiringBytesStored).toBe(0);
    expect(expiringStoredNote(figures)).toBe('');
  });

  it('counts apart the stored bytes of items with a TTL (the manifests, held 7 days), within the stored bytes', () => {
    const ledger = new WriteLedger();
    const manifest = { pk: 'C#1#WROTE#000000000001', sk: '0000', kind: 'manifest', packed: new Uint8Array(300), ttl: 1_700_604_800 };
    const kept = { pk: 'C#1#WROTE#000000000002', sk: '0000', kind: 'manifest', packed: new Uint8Array(300) };
    const block = { pk: 'C#1#BLOCKS', sk: '000000000001', blob: 'x'.repeat(200) };
    recordWriteCommand(ledger, 'BatchWriteItem', {
      RequestItems: { t: [{ PutRequest: { Item: manifest } }, { PutRequest: { Item: kept } }, { PutRequest: { Item: block } }] },
    });
    const report = ledger.report([manifest, kept, block]);
    const row = report.rows.find((entry) => entry.family === 'G2 manifest (WROTE)')!;
    expect(row.bytesStored).toBe(itemSize(manifest) + itemSize(kept) + 200);
    expect(row.expiringBytesStored).toBe(itemSize(manifest) + 100);
    expect(report.totals.expiringBytesStored).toBe(itemSize(manifest) + 100);
    expect(report.groups.bookkeeping?.expiringBytesStored).toBe(itemSize(manifest) + 100);
    const figures = perUnit(report, 2, 1);
    expect(figures.expiringRetentionDays).toBe(7);
    expect(figures.totals.expiringBytesStoredPerTx).toBe(Math.round((itemSize(manifest) + 100) / 2));
    expect(expiringStoredNote(figures)).toBe(
      ` (of which ${(figures.totals.expiringBytesStoredPerTx / 1024).toFixed(2)} KB are manifests held 7 days: TTL)`,
    );
    expect(figures.expiringBytesStoredPerTxByDays).toEqual({ 7: Math.round((itemSize(manifest) + 100) / 2) });
  });

  it('holds each family’s items with a TTL as long as it says: the manifests 7 days, zero-value calls kept 30 days their 30 (issue 35)', () => {
    const ledger = new WriteLedger({ retentionDaysOf: (family) => (family.id.startsWith('X5 ') ? 30 : 7) });
    const manifest = { pk: 'C#1#WROTE#000000000001', sk: '0000', kind: 'manifest', packed: new Uint8Array(300), ttl: 1_700_604_800 };
    const call = {
      pk: `C#1#A#0x${'ab'.repeat(20)}#ITX#to`,
      sk: '000000000001#000000#000001',
      kind: 'bucket',
      e: new Uint8Array(500),
      ttl: 1_703_000_000,
    };
    const kept = {
      pk: `C#1#A#0x${'ab'.repeat(20)}#ITX#from`,
      sk: '000000000001#000000#000002',
      kind: 'internalTransaction',
      d: new Uint8Array(90),
    };
    recordWriteCommand(ledger, 'BatchWriteItem', {
      RequestItems: { t: [manifest, call, kept].map((Item) => ({ PutRequest: { Item } })) },
    });
    const report = ledger.report([manifest, call, kept]);
    expect(report.expiringByDays).toEqual({ 7: itemSize(manifest) + 100, 30: itemSize(call) + 100 });
    expect(report.totals.expiringBytesStored).toBe(itemSize(manifest) + 100 + itemSize(call) + 100);
    const figures = perUnit(report, 1, 1);
    expect(figures.expiringBytesStoredPerTxByDays).toEqual({ 7: itemSize(manifest) + 100, 30: itemSize(call) + 100 });
    expect(expiringStoredNote(figures)).toContain(`${((itemSize(call) + 100) / 1024).toFixed(2)} KB 30 days`);
    // A year held: the kept bytes 365 days, each expiring part its own days.
    const stored = figures.totals.bytesStoredPerTx;
    expect(
      heldBytesPerTransaction({ storedBytesPerTransaction: stored, expiringBytesByDays: figures.expiringBytesStoredPerTxByDays }, 365),
    ).toBe(365 * (itemSize(kept) + 100) + 7 * (itemSize(manifest) + 100) + 30 * (itemSize(call) + 100));
    // Within a shorter history, no part is held longer than it.
    expect(
      heldBytesPerTransaction({ storedBytesPerTransaction: stored, expiringBytesByDays: figures.expiringBytesStoredPerTxByDays }, 10),
    ).toBe(10 * (itemSize(kept) + 100) + 7 * (itemSize(manifest) + 100) + 10 * (itemSize(call) + 100));
  });
});

describe('ingest throughput and follow figures', () => {
  it('names the stage of a JSON-RPC request and of a table call', () => {
    expect(rpcStage([{ method: 'eth_getBlockByNumber', params: ['0x1', true] }, { method: 'eth_getBlockReceipts' }])).toBe('fetch');
    expect(rpcStage([{ method: 'eth_getBlockByNumber', params: ['0x1', false] }])).toBe('headChecks');
    expect(rpcStage([{ method: 'debug_traceBlockByNumber' }, { method: 'eth_call' }])).toBe('chainReads');
    const frame = (name: string, file = 'shared/ingest/ingest.ts') => `    at ${name} (/repo/${file}:1:1)`;
    expect(dbStage('UpdateCommand', [frame('updateCursor', 'shared/ingest/manifest.ts'), frame('moveCursor')].join('\n'))).toBe('cursor');
    expect(dbStage('QueryCommand', frame('<anonymous>', 'shared/ingest/range-positions.ts'))).toBe('positions');
    expect(dbStage('BatchWriteCommand', frame('writeManifest', 'shared/ingest/manifest.ts'))).toBe('manifests');
    expect(dbStage('QueryCommand', frame('x', 'shared/orders/deposits.ts'))).toBe('listeners');
    expect(dbStage('TransactWriteCommand', frame('async StateWriter.setBalance', 'shared/ingest/state.ts'))).toBe('stateWrites');
    expect(dbStage('BatchWriteCommand', frame('ChainIngest.writeBatch'))).toBe('itemWrites');
    expect(dbStage('BatchGetCommand', frame('ChainIngest.writeBatch'))).toBe('tableReads');
  });

  it('charges each instant to one stage: the writer inside a batch, the fetch or the poll between', () => {
    const times = stageTimes(
      [
        { stage: 'fetch', start: 0, end: 30 }, // the writer waits for it until 10, then it runs beside the batch
        { stage: 'itemWrites', start: 12, end: 20 },
        { stage: 'tableReads', start: 15, end: 25 },
        { stage: 'cursor', start: 32, end: 34 },
      ],
      [{ start: 10, end: 30 }],
      0,
      40,
    );
    expect(times).toMatchObject({ fetchWait: 10, derive: 2 + 5, itemWrites: 8, tableReads: 5, cursor: 2, idle: 2 + 6, fetch: 0 });
    expect(Object.values(times).reduce((sum, ms) => sum + ms, 0)).toBe(40);
  });

  it('measures each block from its mining to the cursor move past it, in seconds and in blocks mined meanwhile', () => {
    const mined = [0, 2000, 4000, 6000].map((at, index) => ({ number: 10 + index, minedAt: at }));
    const lags = blockLags(mined, [
      { blockNumber: 10, at: 1500 },
      { blockNumber: 12, at: 4500 }, // 11 and 12 in one batch
    ]);
    expect(lags.map((lag) => [lag.seconds, lag.blocks])).toEqual([
      [1.5, 0],
      [2.5, 1],
      [0.5, 0],
      [null, null],
    ]);
    // After the last mined block the beat goes on: done 4.5 s after the last (6000) is 2 beats of 2 s late.
    expect(blockLags(mined, [{ blockNumber: 13, at: 10_500 }], 2000).map((lag) => lag.blocks)).toEqual([5, 4, 3, 2]);
    expect(percentileOf([0, 0, 1, 5], 50)).toBe(0);
    expect(percentileOf([0, 0, 1, 5], 99)).toBe(5);
  });

  it('turns the captured writes into an empty-table floor: repeats kept, never twice a key in one BatchWriteItem', () => {
    const item = (pk: string, sk = 'S', extra: Record<string, unknown> = {}) => ({ pk, sk, ...extra });
    const capture = emptyCapture();
    captureWrite(capture, 'BatchWriteCommand', {
      RequestItems: {
        t: [{ PutRequest: { Item: item('a') } }, { PutRequest: { Item: item('b') } }, { DeleteRequest: { Key: item('z') } }],
      },
    });
    captureWrite(capture, 'TransactWriteCommand', {
      TransactItems: [{ Put: { Item: item('a', 'S', { v: 2 }) } }, { Update: { Key: item('c') } }, { Delete: { Key: item('y') } }],
    });
    captureWrite(capture, 'UpdateCommand', { Key: item('gone') });
    captureWrite(capture, 'PutCommand', { Item: item('d') });
    const input = floorInput(capture, [item('a', 'S', { v: 2 }), item('b'), item('c', 'S', { final: true }), item('d')], 2);
    expect(input.counts).toEqual({ puts: 4, updatesAsPuts: 1, updatesOfItemsGone: 1, deletes: 2 });
    for (const chunk of input.chunks) expect(new Set(chunk.map((entry) => entry.pk)).size).toBe(chunk.length);
    expect(input.chunks.flat().map((entry) => entry.pk)).toEqual(['a', 'b', 'a', 'd', 'c']);
    expect(input.chunks.flat().find((entry) => entry.pk === 'c')).toMatchObject({ final: true });
    const many = distinctChunks(
      [...Array.from({ length: 30 }, (_, i) => item(`k${i}`)), ...Array.from({ length: 5 }, () => item('hot'))],
      25,
    );
    expect(many.map((chunk) => chunk.length)).toEqual([25, 6, 1, 1, 1, 1]);
    for (const chunk of many) expect(new Set(chunk.map((entry) => entry.pk)).size).toBe(chunk.length);
  });

  it('budgets the ingest against its slowest unavoidable stage, the CPU floor included; the local follow lag is a figure only', () => {
    const ratio = {
      ingestOverRawFetch: 4,
      ingestOverSlowestStage: 1.25,
      slowestStage: 'table floor',
      slowestStageSeconds: 20,
      target: 1.3,
    };
    // 25 s of ingest against a 20 s table floor.
    expect(ingestBudgets({ ratio })[0]).toMatchObject({ value: 1.25, budget: 1.3, pass: true });
    // The CPU the ingest, the table and the node used over 2 cores: 24 s, the binding stage.
    const cpu = { ingestProcessSeconds: 11, wallSecondsAtLeast: 24, cores: 2 };
    const withCpu = ingestBudgets({ ratio: { ...ratio, ingestOverSlowestStage: 1.5 }, cpu, chain: { transactions: 5500 } })[0]!;
    expect(withCpu).toMatchObject({ value: 1.25, pass: true });
    expect(withCpu.note).toMatch(/CPU floor \(24 s on 2 cores\); the ingest's own CPU 2\.00 ms per transaction/);
    expect(ingestBudgets({ ratio: { ingestOverRawFetch: 1, target: 1.5 } })[0]).toMatchObject({ value: null, pass: false });
    const follow = {
      lag: { blocks: { p50: 0, p99: 80, max: 80 }, seconds: { p50: 1, p99: 3, max: 3 }, notDone: 0, perBlock: [] },
    } as unknown as FollowResult;
    expect(followBudgets(follow)).toEqual([]);
  });
});

describe('budgets, cost model and report', () => {
  it('evaluates every budget of a request and the suite', () => {
    const budgets = httpBudgets(
      httpResult([
        request('good', { queries: 1, queryItemsRead: 51, maxParallelQueries: 1, pageSize: 50, chains: 1 }),
        request('amplified', {
          roundTrips: 3,
          queries: 2,
          queryItemsRead: 500,
          maxParallelQueries: 8,
          pageSize: 50,
          chains: 1,
          handlerMs: { p50: 20, p99: 30, n: 20 },
        }),
        request('bounded sort', { queries: 1, queryItemsRead: 900, maxParallelQueries: 1, pageSize: 50, chains: 1, boundedRead: 1001 }),
        request('bounded sort past its bound', { status: 422, queries: 1, queryItemsRead: 1001, boundedRead: 1001, chains: 1 }),
        request('aggregate', { kind: 'aggregate', itemsRead: 10_000, status: 400, error: 'narrow the range', chains: 1 }),
        request('distinct', { kind: 'aggregate', itemsRead: 4000, boundedRead: 10_001, chains: 1 }),
        // The run of 2026-11-27 03:17: the bound's 10,001 items plus the chain registry's 5, re-read as the
        // container's cache of it expired: the range read kept its bound.
        request('by day past its bound', {
          kind: 'aggregate',
          status: 400,
          itemsRead: 10_006,
          registryItemsRead: 5,
          boundedRead: 10_001,
          chains: 1,
        }),
        request('by day read past its bound', {
          kind: 'aggregate',
          status: 400,
          itemsRead: 10_007,
          registryItemsRead: 5,
          boundedRead: 10_001,
          chains: 1,
        }),
        request('bounded list with the registry', {
          status: 422,
          queries: 2,
          queryItemsRead: 1006,
          registryItemsRead: 5,
          boundedRead: 1001,
          chains: 1,
        }),
        request('scan', { kind: 'single', scans: 1, calls: { ScanCommand: 1 } }),
        // The webhook test ping of an unreachable receiver (the run of 2026-11-29 16:06): its time is the send's.
        request('ping', {
          kind: 'single',
          handlerMs: { p50: 3.46, p99: 3005.4, n: 20 },
          directMs: { p50: 1.92, p99: 4.11, n: 20 },
          egressTimeoutMs: 3000,
        }),
        request('ping past its timeout', { kind: 'single', handlerMs: { p50: 3.4, p99: 3200, n: 20 }, egressTimeoutMs: 3000 }),
      ]),
    );
    const byName = new Map(budgets.map((budget) => [budget.name, budget]));
    for (const budget of budgets) expect(Object.keys(budget)).toEqual(expect.arrayContaining(['name', 'value', 'budget', 'pass']));
    expect(byName.get('round trips in sequence: good')?.pass).toBe(true);
    expect(byName.get('round trips in sequence: amplified')).toMatchObject({ value: 3, budget: 2, pass: false });
    // Issue 27's read rules: Queries x (page + 1) items, 6 Queries in parallel per chain.
    expect(byName.get('items read: good')).toMatchObject({ value: 51, budget: 51, pass: true });
    expect(byName.get('items read: amplified')).toMatchObject({ value: 500, budget: 102, pass: false });
    expect(byName.get('Queries in parallel per chain: amplified')).toMatchObject({ value: 8, budget: 6, pass: false });
    expect(byName.get('items read: bounded sort')).toMatchObject({ value: 900, budget: 1001, pass: true });
    expect(byName.get('items read: bounded sort past its bound')).toMatchObject({
      pass: true,
      note: expect.stringMatching(/answered 422/),
    });
    // Retired as budgets (figures of each request): wasted reads, read units over the minimum, missing keys.
    expect([...byName.keys()].some((name) => /^(wasted reads|read units|BatchGetItem keys not found):/.test(name))).toBe(false);
    // 1.3 x 10 ms + 60 us x 50 records = 16 ms.
    expect(byName.get('handler p50 (ms) against 1.3 x direct + 60 us per record: good')).toMatchObject({
      value: 12,
      budget: 16,
      pass: true,
    });
    expect(byName.get('handler p50 (ms) against 1.3 x direct + 60 us per record: amplified')).toMatchObject({ value: 20, pass: false });
    // A route that sends out is held to its send's timeout, not to the table's time.
    expect(byName.has('handler p50 (ms) against 1.3 x direct + 60 us per record: ping')).toBe(false);
    expect(byName.get("handler p99 (ms) within its send's timeout: ping")).toMatchObject({ value: 3005.4, pass: true });
    expect(byName.get("handler p99 (ms) within its send's timeout: ping")?.budget).toBeCloseTo(3055.34);
    expect(byName.get("handler p99 (ms) within its send's timeout: ping past its timeout")).toMatchObject({ value: 3200, pass: false });
    expect(byName.get('aggregate items read: aggregate')).toMatchObject({ value: null, budget: 100, pass: false });
    expect(byName.get('aggregate items read: distinct')).toMatchObject({ value: 4000, budget: 10_001, pass: true });
    expect(byName.get('aggregate items read: by day past its bound')).toMatchObject({ value: 10_001, budget: 10_001, pass: true });
    expect(byName.get('aggregate items read: by day read past its bound')).toMatchObject({ value: 10_002, pass: false });
    expect(byName.get('items read: bounded list with the registry')).toMatchObject({ value: 1001, budget: 1001, pass: true });
    expect(byName.get('page cost at depth: b / a')).toMatchObject({ value: 1.1, pass: true });
    expect(byName.get('page cost at depth: d / c')).toMatchObject({ value: null, pass: false });
    expect(byName.get('Scan calls over every request')).toMatchObject({ value: 1, pass: false });

    const cold = {
      routes: { medianOverEmptyMs: 50 },
      bundles: [
        { handler: 'a.ts', kind: 'route', importMs: { overEmpty: 40 } },
        { handler: 'b.ts', kind: 'route', importMs: { overEmpty: 90 } },
        { handler: 'job.ts', kind: 'job', importMs: { overEmpty: 500 } },
      ],
    } as unknown as ColdResult;
    // Against the floor of the same run: median <= 1.75 x floor, each <= 2.15 x floor.
    const floored = coldBudgets({ ...cold, sdkFloor: { bytes: 1, overEmptyMs: 30 } } as ColdResult);
    expect(floored.map((budget) => [budget.budget, budget.pass])).toEqual([
      [52.5, true],
      [64.5, true],
      [64.5, false],
    ]);
    // The same bundles on a host twice as slow: the floor and every import double, the verdicts stay.
    const slower = coldBudgets({
      routes: { medianOverEmptyMs: 100 },
      bundles: cold.bundles.map((bundle) => ({ ...bundle, importMs: { overEmpty: 2 * bundle.importMs.overEmpty } })),
      sdkFloor: { bytes: 1, overEmptyMs: 60 },
    } as unknown as ColdResult);
    expect(slower.map((budget) => budget.pass)).toEqual(floored.map((budget) => budget.pass));
    expect(coldBudgets({ ...cold, sdkFloor: { bytes: 1, overEmptyMs: 50 } } as ColdResult).map((budget) => budget.pass)).toEqual([
      true,
      true,
      true,
    ]);
    expect(loadBudgets({ errors: 0, rssAfterSettleOverStart: 1.25, phases: [] }).map((budget) => budget.pass)).toEqual([true, false]);
  });

  it('prices writes, reads and storage per day', () => {
    const inputs = ingestInputs({
      chain: { transactions: 1000 },
      ingest: { dynamo: { tableWcu: 30_000, gsiWcuEstimate: 1000, averageItemBytes: 900 } },
      tableFloor: { items: 20_000 },
    });
    expect(inputs).toEqual({ writeUnitsPerTransaction: 31, storedBytesPerTransaction: 20_000 });
    const model = costModel({ ...inputs, readUnitsPerPage: 10, sources: { writes: 'w', storage: 's', reads: 'r' } });
    // 10M tx x 31 WCU x $0.625 / M = $193.75; 1M pages x 10 RCU x $0.125 / M = $1.25;
    // 300M tx x 20,000 B = 5,587.9 GB x $0.25 / 30 = $46.57 a day
    expect(model.perDayUsd).toEqual({ writes: 193.75, reads: 1.25, storage: 46.57, total: 241.57 });
    expect(model.perPageUsd.reads).toBeCloseTo(1.25e-6);
  });

  it('writes latest.json with every budget as { name, value, budget, pass }, latest.md and dated copies', async () => {
    const http = httpResult([request('good'), request('bad', { roundTrips: 4 })]);
    const budgets = httpBudgets(http);
    const report = buildReport({
      date: '2026-01-02T03:04:05.678Z',
      command: 'npm run bench -- --only http',
      machine: { cpus: 2, cpuModel: 'test', memoryGb: 24, node: process.version, platform: 'linux-x64' },
      seconds: { http: 1, total: 1 },
      parts: { http, cold: null, ingest: null, load: null },
      missing: {},
      cost: null,
      budgets,
    });
    expect(report.pass).toBe(false);
    const dir = await mkdtemp(path.join(os.tmpdir(), 'bench-report-'));
    try {
      await writeReport(report, dir);
      expect((await readdir(dir)).sort()).toEqual([
        'bench-2026-01-02T03-04-05Z.json',
        'bench-2026-01-02T03-04-05Z.md',
        'latest.json',
        'latest.md',
      ]);
      const latest = JSON.parse(await readFile(path.join(dir, 'latest.json'), 'utf8'));
      expect(latest.budgets.length).toBe(budgets.length);
      for (const budget of latest.budgets) {
        expect(typeof budget.name).toBe('string');
        expect(typeof budget.budget).toBe('number');
        expect(typeof budget.pass).toBe('boolean');
        expect(budget.value === null || typeof budget.value === 'number').toBe(true);
      }
      expect(latest.summary.failed).toBeGreaterThan(0);
      const md = await readFile(path.join(dir, 'latest.md'), 'utf8');
      expect(md).toContain('## Budgets');
      expect(md).toContain('round trips in sequence: bad');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('the dataset generator', () => {
  const tiny = (): ChainSpec => ({ ...datasetSpec(0.001).chains[0], chainId: 424242, transactions: 30, blocks: 3, addresses: 20 });

  it('serves a consistent chain that the real ingest writes', async () => {
    const chain = new SyntheticChain(tiny());
    expect(chain.counts.transactions).toBe(30);
    expect(chain.counts.tokenTransfers).toBeGreaterThan(30);
    const { ChainIngest } = await import('../../../shared/ingest/ingest');
    const { queryPage } = await import('../../../shared/db/operations');
    const { addressKeys } = await import('../../../shared/table/keys');
    const ingest = new ChainIngest({
      chainId: chain.spec.chainId,
      client: chain.client(),
      log: { info: () => undefined, warn: () => undefined },
    });
    const result = await ingest.ingestRange({ from: 1, to: chain.head });
    expect(result.advanced).toBe(chain.head);
    // The whale's transactions as the explorer reads them: as many as the generator sent.
    const page = await queryPage({
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': addressKeys.transactions(chain.spec.chainId, ACTORS.whale, 'all').pk },
      Select: 'COUNT',
    });
    expect(page.count).toBe(chain.counts.whaleTransactions);
  });

  it("gives a receipt the logs bloom a node gives it (anvil's receipts of the demo activity)", async () => {
    const demo = await startDemoChain({ chainId: 31337 });
    try {
      const { createPublicClient, http } = await import('viem');
      const client = createPublicClient({ transport: http(demo.anvil.rpcUrl) });
      const head = Number(await client.getBlockNumber());
      let compared = 0;
      for (let number = 1; number <= head && compared < 10; number += 1) {
        const block = await client.getBlock({ blockNumber: BigInt(number), includeTransactions: false });
        const receipts = await Promise.all(block.transactions.map((hash) => client.getTransactionReceipt({ hash })));
        for (const receipt of receipts.filter((item) => item.logs.length > 0)) {
          expect(bloomOf(receipt.logs)).toBe(receipt.logsBloom);
          compared += 1;
        }
        if (receipts.some((item) => item.logs.length > 0)) expect(bloomOf(receipts.flatMap((item) => item.logs))).toBe(block.logsBloom);
      }
      expect(compared).toBeGreaterThan(0);
    } finally {
      await demo.stop();
    }
  });

  it('answers balanceOf from the transfers it generated', async () => {
    const chain = new SyntheticChain(tiny());
    const busy = chain.facts().busyToken;
    const client = chain.client();
    const balance = await client.readContract({
      address: busy as `0x${string}`,
      abi: [
        {
          type: 'function',
          name: 'balanceOf',
          stateMutability: 'view',
          inputs: [{ name: 'a', type: 'address' }],
          outputs: [{ type: 'uint256' }],
        },
      ],
      functionName: 'balanceOf',
      args: [ACTORS.whale as `0x${string}`],
      blockNumber: BigInt(chain.head),
    });
    expect(balance).toBeGreaterThan(0n);
  });
});
