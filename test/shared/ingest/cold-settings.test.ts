/**
 * The cold tier's settings (shared/ingest/cold-settings.ts, shared/ingest/config.ts): when a history
 * item expires from the table, and how the ingest, the backfill workers and the manifests' retention
 * read COLD_AFTER_DAYS and COLD_MARGIN_DAYS.
 */
import { describe, expect, it } from 'vitest';
import { loadBackfillConfig } from '../../../shared/ingest/backfill-config';
import { checkColdHistory, historyItemTtl } from '../../../shared/ingest/cold-settings';
import { coldHistoryOfEnv, loadIngestConfig } from '../../../shared/ingest/config';
import { loadColdJobConfig } from '../../../shared/ingest/cold-job-config';

const DAY = 86_400;
const TIER = { afterDays: 30, marginDays: 14 };
const BLOCK = 1_790_000_000;
/** Written the block's own minute (ms). */
const AT_ONCE = (BLOCK + 60) * 1000;

describe("a history item's expiry with the tier on", () => {
  it('is the window and the margin past its block, for history written as it happens', () => {
    expect(historyItemTtl(BLOCK, TIER, undefined, AT_ONCE)).toBe(BLOCK + 44 * DAY);
    // A batch written again after a restart, hours later, writes the same.
    expect(historyItemTtl(BLOCK, TIER, undefined, AT_ONCE + 5 * 3_600_000)).toBe(BLOCK + 44 * DAY);
  });

  it('keeps an own expiry within the window (a zero-value call kept 7 days), gives way past it', () => {
    expect(historyItemTtl(BLOCK, TIER, BLOCK + 7 * DAY, AT_ONCE)).toBe(BLOCK + 7 * DAY);
    expect(historyItemTtl(BLOCK, TIER, BLOCK + 30 * DAY, AT_ONCE)).toBe(BLOCK + 30 * DAY);
    expect(historyItemTtl(BLOCK, TIER, BLOCK + 31 * DAY, AT_ONCE)).toBe(BLOCK + 44 * DAY);
    expect(historyItemTtl(BLOCK, TIER, BLOCK + 90 * DAY, AT_ONCE)).toBe(BLOCK + 44 * DAY);
  });

  it('leaves history written after its window (a backfill) the margin and a day from the day it is written, the same all that day, a day later the next', () => {
    const written = (BLOCK + 400 * DAY + 3_600) * 1000;
    const day = Math.floor(written / 1000 / DAY) * DAY;
    expect(historyItemTtl(BLOCK, TIER, undefined, written)).toBe(day + 15 * DAY);
    expect(historyItemTtl(BLOCK, TIER, undefined, written + 5 * 3_600_000)).toBe(day + 15 * DAY);
    expect(historyItemTtl(BLOCK, TIER, undefined, written + 10 * 3_600_000)).toBe(day + 16 * DAY);
    // 20 days late: the block's own expiry (44 days) comes later than the written day's (20 + 15), and counts.
    expect(historyItemTtl(BLOCK, TIER, undefined, (BLOCK + 20 * DAY) * 1000)).toBe(BLOCK + 44 * DAY);
  });

  it('refuses settings that are not whole days, 1 or more', () => {
    expect(checkColdHistory(undefined)).toBeUndefined();
    expect(checkColdHistory(TIER)).toEqual(TIER);
    for (const bad of [
      { afterDays: 0, marginDays: 14 },
      { afterDays: 30, marginDays: 0 },
      { afterDays: 1.5, marginDays: 14 },
    ])
      expect(() => checkColdHistory(bad)).toThrow(/whole numbers of days/);
  });
});

describe('COLD_AFTER_DAYS and COLD_MARGIN_DAYS', () => {
  const ingest = { DEPOSIT_EVENTS_QUEUE_URL: 'https://sqs.us-east-1.amazonaws.com/1/q.fifo' };
  const backfill = { CHAIN_RPC_PARAMETERS: '8453=/rpc/8453' };

  it('leave the tier off unless the window is set; the margin is 14 days by default', () => {
    expect(loadIngestConfig(ingest).coldHistory).toBeUndefined();
    expect(loadIngestConfig({ ...ingest, COLD_AFTER_DAYS: '30' }).coldHistory).toEqual(TIER);
    expect(loadIngestConfig({ ...ingest, COLD_AFTER_DAYS: '60', COLD_MARGIN_DAYS: '7' }).coldHistory).toEqual({
      afterDays: 60,
      marginDays: 7,
    });
    // The backfill workers and the CLI read the same (their items must be the ingest's).
    expect(loadBackfillConfig({ ...backfill, COLD_AFTER_DAYS: '30' }).coldHistory).toEqual(TIER);
    expect(loadBackfillConfig(backfill).coldHistory).toBeUndefined();
    expect(coldHistoryOfEnv({ COLD_AFTER_DAYS: '30' })).toEqual(TIER);
    for (const bad of ['0', '-1', '2.5', 'month'])
      expect(() => loadIngestConfig({ ...ingest, COLD_AFTER_DAYS: bad })).toThrow(/COLD_AFTER_DAYS/);
    expect(() => loadIngestConfig({ ...ingest, COLD_AFTER_DAYS: '30', COLD_MARGIN_DAYS: '0' })).toThrow(/COLD_MARGIN_DAYS/);
  });

  it('keep manifests at least as long as the history they list (the job reads them), and forever stays forever', () => {
    expect(loadIngestConfig({ ...ingest, COLD_AFTER_DAYS: '30' }).manifestRetentionDays).toBe(44);
    expect(loadIngestConfig({ ...ingest, COLD_AFTER_DAYS: '30', INGEST_MANIFEST_RETENTION_DAYS: '60' }).manifestRetentionDays).toBe(60);
    expect(loadIngestConfig({ ...ingest, COLD_AFTER_DAYS: '30', INGEST_MANIFEST_RETENTION_DAYS: '0' }).manifestRetentionDays).toBe(0);
    expect(loadIngestConfig(ingest).manifestRetentionDays).toBe(7);
  });
});

describe("the cold history job's settings", () => {
  it('need the bucket and the window; the span, groups and allowance have defaults', () => {
    expect(loadColdJobConfig({ COLD_BUCKET: 'chain-cold', COLD_AFTER_DAYS: '30' })).toEqual({
      bucket: 'chain-cold',
      afterSeconds: 30 * DAY,
      spanBlocks: 1800,
      rangeGroups: 16,
      spanAllowanceMs: 300_000,
    });
    expect(
      loadColdJobConfig({ COLD_BUCKET: 'chain-cold', COLD_AFTER_DAYS: '30', COLD_STORE_ENDPOINT: 'http://127.0.0.1:4569' }).endpoint,
    ).toBe('http://127.0.0.1:4569');
    expect(() => loadColdJobConfig({ COLD_AFTER_DAYS: '30' })).toThrow(/COLD_BUCKET/);
    expect(() => loadColdJobConfig({ COLD_BUCKET: 'Not_A_Bucket', COLD_AFTER_DAYS: '30' })).toThrow(/COLD_BUCKET/);
    expect(() => loadColdJobConfig({ COLD_BUCKET: 'chain-cold' })).toThrow(/COLD_AFTER_DAYS/);
  });
});
