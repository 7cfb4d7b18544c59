/**
 * Zero-value calls kept for a while only, or not at all (shared/ingest/zero-value-calls.ts; issue 27,
 * lever 11; Blockscout's own trade). On a real anvil: DemoSplitter pays one recipient 1 wei and another
 * nothing (a value call and a zero-value call) and moves an ERC-20 for its caller (transferFrom: a
 * zero-value call to the token). Ingested three times, into a table each: by default every internal
 * transaction is stored, without a `ttl`; with 30 days the zero-value calls' copies expire 30 days after
 * their block and nothing else does; with 0 they are not stored; in all three the rest is the same.
 */
import { storedEntriesOf } from '../../../shared/table/buckets';
import { parseEther, type Address } from 'viem';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startAnvil, type Anvil } from '../../../scripts/lib/anvil';
import { loadContracts } from '../../../scripts/lib/contracts';
import { createChainClient } from '../../../shared/chain/client';
import { loadBackfillConfig } from '../../../shared/ingest/backfill-config';
import { loadIngestConfig } from '../../../shared/ingest/config';
import { ingestRange } from '../../../shared/ingest/ingest';
import { checkZeroValueCallsRetention, isZeroValueCall, zeroValueCallStorage } from '../../../shared/ingest/zero-value-calls';
import { expandInternalTransaction } from '../../../shared/table/compact';
import { TABLE } from '../../../shared/table/definition';
import { isHistoryRange } from '../../../shared/table/cold-parts';
import type { InternalTransactionRecord } from '../../../shared/table/records';
import { inTable, tableSnapshot, useTestTable } from '../../support/table';
import { demoAccounts, demoWallet } from './support/demo-wallet';
import { publicClient } from './support/truth';

const table = useTestTable('zero-value-calls');
const CHAIN_ID = 31337;
const DAY = 86_400;
const [, alice, bob] = demoAccounts.map((account) => account.address);
let anvil: Anvil;

type Item = Record<string, unknown> & { pk: string; sk: string };
const COLD_HISTORY = { afterDays: 30, marginDays: 14 };
const ingest = (zeroValueCallsRetentionDays?: number, coldHistory?: typeof COLD_HISTORY) =>
  ingestRange({
    chainId: CHAIN_ID,
    client: createChainClient(anvil.rpcUrl),
    log: { info: () => undefined, warn: () => undefined },
    traceMethod: 'callTracer',
    ...(zeroValueCallsRetentionDays === undefined ? {} : { zeroValueCallsRetentionDays }),
    ...(coldHistory === undefined ? {} : { coldHistory }),
  });
const internal = (items: Item[]) => items.filter((item) => /#ITX#(to|from)$/.test(item.pk));
const record = (item: Item) => expandInternalTransaction(item) as InternalTransactionRecord;

let kept: Item[];
let expiring: Item[];
let dropped: Item[];
/** With the cold tier on (30 days and a margin of 14): retention 7 days (within the window), and 60 (past it). */
let tierWithin: Item[];
let tierPast: Item[];
let timestamps: Map<number, number>;

beforeAll(async () => {
  const [started, artifacts] = await Promise.all([startAnvil({ chainId: CHAIN_ID }), loadContracts()]);
  anvil = started;
  const chain = demoWallet(anvil, artifacts, CHAIN_ID, 'zero-value-calls');
  const [splitter, token] = [await chain.deploy('DemoSplitter'), await chain.deploy('DemoToken')];
  await chain.call(
    splitter,
    'DemoSplitter',
    'split',
    [
      [alice, bob],
      [1n, 0n],
    ],
    0,
    1n,
  );
  await chain.call(token, 'DemoToken', 'mint', [demoAccounts[0]!.address, parseEther('10')]);
  await chain.call(token, 'DemoToken', 'approve', [splitter, parseEther('10')]);
  await chain.call(splitter, 'DemoSplitter', 'distributeToken', [token, [alice, bob] as Address[], [parseEther('1'), parseEther('2')]]);
  const head = await chain.headNumber();
  timestamps = new Map();
  for (let number = 0; number <= head; number += 1)
    timestamps.set(number, Number((await publicClient(anvil.rpcUrl).getBlock({ blockNumber: BigInt(number) })).timestamp));

  await ingest();
  // Internal transactions' block buckets (table/buckets.ts) as their entries.
  kept = (await tableSnapshot(table.name)).flatMap((item) => storedEntriesOf(item)) as Item[];
  expiring = (await inTable(`${table.name}-30`, async () => {
    await ingest(30);
    return (await tableSnapshot(`${table.name}-30`)).flatMap((item) => storedEntriesOf(item));
  })) as Item[];
  dropped = (await inTable(`${table.name}-0`, async () => {
    await ingest(0);
    return (await tableSnapshot(`${table.name}-0`)).flatMap((item) => storedEntriesOf(item));
  })) as Item[];
  tierWithin = (await inTable(`${table.name}-tier-7`, async () => {
    await ingest(7, COLD_HISTORY);
    return (await tableSnapshot(`${table.name}-tier-7`)).flatMap((item) => storedEntriesOf(item));
  })) as Item[];
  tierPast = (await inTable(`${table.name}-tier-60`, async () => {
    await ingest(60, COLD_HISTORY);
    return (await tableSnapshot(`${table.name}-tier-60`)).flatMap((item) => storedEntriesOf(item));
  })) as Item[];
}, 120_000);

afterAll(async () => {
  await anvil?.stop();
});

describe('through the real ingest', () => {
  test('by default every internal transaction is stored, none with a ttl: the value call, the zero-value calls', () => {
    const calls = internal(kept).map(record);
    expect(calls.some((call) => call.type === 'call' && call.value === '1')).toBe(true);
    // split's zero-value payment to bob and distributeToken's two transferFrom calls.
    expect(calls.filter((call) => isZeroValueCall(call)).length).toBeGreaterThanOrEqual(3 * 2);
    expect(kept.filter((item) => TABLE.ttlAttribute in item && !item.pk.includes('#WROTE#')).map((item) => item.pk)).toEqual([]);
  });

  test('30 days: only the zero-value calls’ copies carry a ttl, their block’s timestamp + 30 days; all else is as by default', () => {
    // Entries by key; the manifests list the blocks' bucket keys, and the expiring entries have buckets of their own.
    const strip = (items: Item[]) =>
      items
        .filter((item) => item.kind !== 'manifest')
        .map(({ [TABLE.ttlAttribute]: _ttl, ...rest }) => rest)
        .sort((a, b) => `${a.pk}\n${a.sk}`.localeCompare(`${b.pk}\n${b.sk}`));
    expect(strip(expiring)).toEqual(strip(kept));
    for (const item of internal(expiring)) {
      const call = record(item);
      if (isZeroValueCall(call)) expect(item[TABLE.ttlAttribute]).toBe(timestamps.get(call.blockNumber)! + 30 * DAY);
      else expect(item).not.toHaveProperty(TABLE.ttlAttribute);
    }
  });

  test('the setting changed and the blocks ingested again (repair): exactly the table a clean ingest with the new setting writes', async () => {
    // Without the zero-value calls a range's entries are bucketed otherwise (table/buckets.ts): the earlier
    // write's buckets that the new one does not make are deleted, as the blocks' stored manifests list them.
    const name = `${table.name}-changed`;
    const changed = await inTable(name, async () => {
      await ingest();
      await ingestRange({
        chainId: CHAIN_ID,
        client: createChainClient(anvil.rpcUrl),
        log: { info: () => undefined, warn: () => undefined },
        traceMethod: 'callTracer',
        zeroValueCallsRetentionDays: 0,
        from: 0,
        repair: true,
      });
      return tableSnapshot(name);
    });
    expect(changed).toEqual(await tableSnapshot(`${table.name}-0`));
  });

  test('with the cold tier: every history item expires 44 days past its block, a retention within the window stays, one past it gives way', () => {
    const strip = (items: Item[]) =>
      items.map(({ [TABLE.ttlAttribute]: _ttl, ...rest }) => rest).sort((a, b) => `${a.pk}\n${a.sk}`.localeCompare(`${b.pk}\n${b.sk}`));
    // The same items as with the retention alone, their expiries aside.
    expect(strip(tierWithin)).toEqual(strip(expiring));
    const times = [...timestamps.values()];
    const [first, last] = [Math.min(...times), Math.max(...times)];
    for (const [items, retention] of [
      [tierWithin, 7],
      [tierPast, 44],
    ] as const) {
      for (const item of items) {
        if (item.kind === 'manifest') {
          // Kept as long as the history: the compaction job reads them.
          expect(item[TABLE.ttlAttribute]).toBeGreaterThanOrEqual(first + 44 * DAY);
        } else if (/#ITX#(to|from)$/.test(item.pk) && isZeroValueCall(record(item))) {
          expect(item[TABLE.ttlAttribute]).toBe(timestamps.get(record(item).blockNumber)! + retention * DAY);
        } else if (isHistoryRange(item.pk)) {
          expect(item[TABLE.ttlAttribute], `${item.pk} ${item.sk}`).toBeGreaterThanOrEqual(first + 44 * DAY);
          expect(item[TABLE.ttlAttribute], `${item.pk} ${item.sk}`).toBeLessThanOrEqual(last + 44 * DAY);
        } else {
          expect(item, `${item.pk} ${item.sk}`).not.toHaveProperty(TABLE.ttlAttribute);
        }
      }
    }
    expect(internal(tierPast).filter((item) => isZeroValueCall(record(item))).length).toBeGreaterThanOrEqual(6);
  });

  test('0: the zero-value calls are not stored; the value call and everything else are', () => {
    const zero = (item: Item) => /#ITX#(to|from)$/.test(item.pk) && isZeroValueCall(record(item));
    const key = (item: Item) => `${item.pk}\n${item.sk}`;
    const rest = kept.filter((item) => !zero(item));
    expect(
      internal(dropped)
        .map(record)
        .every((call) => !isZeroValueCall(call)),
    ).toBe(true);
    expect(internal(dropped).length).toBeGreaterThan(0);
    // Every item but the zero-value calls' copies (and the manifests, which list what was written).
    const manifests = (item: Item) => item.pk.includes('#WROTE#');
    expect(dropped.filter((item) => !manifests(item)).map(key)).toEqual(rest.filter((item) => !manifests(item)).map(key));
  });
});

test('the setting: unset keeps, 0 drops, N days expire from the block; creations and value calls are always kept', () => {
  const at = { blockTimestamp: 1_700_000_000 };
  expect(zeroValueCallStorage({ ...at, type: 'call', value: '0' }, undefined)).toEqual({ kind: 'kept' });
  expect(zeroValueCallStorage({ ...at, type: 'call', value: '0' }, 0)).toEqual({ kind: 'dropped' });
  expect(zeroValueCallStorage({ ...at, type: 'call', value: '0' }, 7)).toEqual({ kind: 'expires', ttl: 1_700_000_000 + 7 * DAY });
  expect(zeroValueCallStorage({ ...at, type: 'call', value: '5' }, 0)).toEqual({ kind: 'kept' });
  expect(zeroValueCallStorage({ ...at, type: 'create', value: '0' }, 0)).toEqual({ kind: 'kept' });
  expect(zeroValueCallStorage({ ...at, type: 'selfdestruct', value: '0' }, 0)).toEqual({ kind: 'kept' });
  expect(() => checkZeroValueCallsRetention(-1)).toThrow(/whole number of days/);
  expect(() => checkZeroValueCallsRetention(1.5)).toThrow(/whole number of days/);
  const env = { DEPOSIT_EVENTS_QUEUE_URL: 'https://sqs.us-east-1.amazonaws.com/1/q.fifo' };
  expect(loadIngestConfig(env).zeroValueCallsRetentionDays).toBeUndefined();
  expect(loadIngestConfig({ ...env, INGEST_ZERO_VALUE_CALLS_RETENTION_DAYS: '30' }).zeroValueCallsRetentionDays).toBe(30);
  expect(loadIngestConfig({ ...env, INGEST_ZERO_VALUE_CALLS_RETENTION_DAYS: '0' }).zeroValueCallsRetentionDays).toBe(0);
  expect(() => loadIngestConfig({ ...env, INGEST_ZERO_VALUE_CALLS_RETENTION_DAYS: 'forever' })).toThrow(
    /INGEST_ZERO_VALUE_CALLS_RETENTION_DAYS/,
  );
  // The backfill worker Lambda reads the same setting (its staged items must be the ingest's).
  const backfill = { CHAIN_RPC_PARAMETERS: '8453=/rpc/8453' };
  expect(loadBackfillConfig(backfill).zeroValueCallsRetentionDays).toBeUndefined();
  expect(loadBackfillConfig({ ...backfill, INGEST_ZERO_VALUE_CALLS_RETENTION_DAYS: '30' }).zeroValueCallsRetentionDays).toBe(30);
});
