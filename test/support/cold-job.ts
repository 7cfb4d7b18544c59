/**
 * The cold history job's tests' setting (test/functions/ingest/compact-cold-history*.test.ts): the job's
 * environment as the stack sets it, over a local S3, and a small Base-profile chain ingested with the tier on.
 */
import { afterAll, beforeAll } from 'vitest';
import { type LocalS3, startLocalS3 } from '../../scripts/lib/local-s3';
import { type ColdStore, s3ColdStore } from '../../shared/aws/cold-store';
import { ingestedSmallBaseChain } from './base-chain';

export const COLD_TIER = { afterDays: 30, marginDays: 14 };
export const DAY = 86_400;
/** A chain's first block's time (whole seconds) for blocks a day past the window: 31 days ago. */
export const dayPastTheWindow = (): number => Math.floor(Date.now() / 1000) - (COLD_TIER.afterDays + 1) * DAY;

/**
 * Sets the job's environment (COLD_STORE_ENDPOINT: the local S3, whose own key signs) with `more`; returns
 * what puts the process's environment back.
 */
export function setColdJobEnvironment(s3: LocalS3, bucket: string, more: Record<string, string>): () => void {
  const saved = { ...process.env };
  Object.assign(process.env, {
    COLD_BUCKET: bucket,
    COLD_STORE_ENDPOINT: s3.endpoint,
    COLD_AFTER_DAYS: String(COLD_TIER.afterDays),
    COLD_MARGIN_DAYS: String(COLD_TIER.marginDays),
    AWS_ACCESS_KEY_ID: s3.credentials.accessKeyId,
    AWS_SECRET_ACCESS_KEY: s3.credentials.secretAccessKey,
    ...more,
  });
  return () => {
    for (const name of Object.keys(process.env)) if (!(name in saved)) delete process.env[name];
    Object.assign(process.env, saved);
  };
}

/** A small Base-profile chain whose first block is at `firstTimestamp`, ingested with the tier on: its chain id. */
export async function ingestedColdChain(blocks: number, transactionsPerBlock: number, firstTimestamp: number): Promise<number> {
  const { spec } = await ingestedSmallBaseChain(blocks, transactionsPerBlock, undefined, {
    firstTimestamp,
    ingest: { coldHistory: COLD_TIER },
  });
  return spec.chainId;
}

/** The compactor's tests' setting, once set up (`useCompactorSetting`). */
export interface CompactorSetting {
  s3: LocalS3;
  store: ColdStore;
  chainId: number;
}

/**
 * A local S3 with `bucket` (the compactor's store, through the SDK's S3 client) and a small Base-profile
 * chain ingested into the file's table (useTestTable), before the file's tests; the S3 closed after them.
 */
export function useCompactorSetting(bucket: string, blocks: number, transactionsPerBlock: number): CompactorSetting {
  const setting = {} as CompactorSetting;
  beforeAll(async () => {
    setting.s3 = await startLocalS3(bucket);
    setting.store = s3ColdStore({ bucket, endpoint: setting.s3.endpoint, credentials: setting.s3.credentials });
    setting.chainId = (await ingestedSmallBaseChain(blocks, transactionsPerBlock)).spec.chainId;
  }, 120_000);
  afterAll(async () => {
    await setting.s3?.close();
  });
  return setting;
}
