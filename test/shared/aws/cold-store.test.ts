/**
 * The cold store (shared/aws/cold-store.ts) against a local S3 (s3rver on 127.0.0.1) through the AWS
 * SDK's S3 client: a ranged read gives exactly the bytes asked for, and a range it cannot give whole
 * is an error, never fewer bytes.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalS3, type LocalS3 } from '../../../scripts/lib/local-s3';
import { s3ColdStore, type ColdStore } from '../../../shared/aws/cold-store';

let s3: LocalS3;
let store: ColdStore;

beforeAll(async () => {
  s3 = await startLocalS3('cold-store-test');
  store = s3ColdStore({ bucket: s3.bucket, endpoint: s3.endpoint, credentials: s3.credentials });
});

afterAll(async () => {
  await s3?.close();
});

describe('the cold store', () => {
  it('reads back any byte range of an object it wrote', async () => {
    const body = randomBytes(300_000);
    await store.put('cold/1/a', body);
    for (const [offset, length] of [
      [0, 2], // (s3rver answers `bytes=0-0` with the whole object; the store refuses that, as the next test shows)
      [0, 300_000],
      [123_457, 65_536],
      [299_999, 1],
    ] as const) {
      expect(Buffer.from(await store.read('cold/1/a', offset, length)).equals(body.subarray(offset, offset + length))).toBe(true);
    }
  });

  it('refuses a range it cannot give whole', async () => {
    await store.put('cold/1/b', randomBytes(1_000));
    await expect(store.read('cold/1/b', 990, 20)).rejects.toThrow('gave 10 bytes');
    await expect(store.read('cold/1/b', -1, 5)).rejects.toThrow('bad byte range');
    await expect(store.read('cold/1/b', 0, 0)).rejects.toThrow('bad byte range');
    await expect(store.read('cold/1/missing', 0, 5)).rejects.toThrow();
  });
});
