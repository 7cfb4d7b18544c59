/**
 * The cold history's object store (docs/decisions/cold-history.md): the compactor writes shard objects
 * of compressed range parts, and a reader fetches one part with a ranged GET. S3 in AWS; locally and in
 * the tests any S3-compatible server on 127.0.0.1 (`endpoint`, path-style addressing).
 *
 * Objects are written once under a key that names their content (the compactor puts a digest of the
 * bytes in it), so writing one again is harmless and a pointer never names bytes that changed.
 */
import { GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';

export interface ColdStore {
  /** Writes `body` under `key` (the same key always holds the same bytes). */
  put(key: string, body: Uint8Array): Promise<void>;
  /** `length` bytes of the object `key` from `offset` (one ranged GET). */
  read(key: string, offset: number, length: number): Promise<Uint8Array>;
}

export interface S3ColdStoreOptions {
  bucket: string;
  region?: string;
  /** An S3-compatible endpoint (local runs and tests); path-style addressing. */
  endpoint?: string;
  /** A client of the caller's (its credentials, retries); one is made otherwise. */
  client?: S3Client;
}

export function s3ColdStore(options: S3ColdStoreOptions): ColdStore {
  const client =
    options.client ??
    new S3Client({
      region: options.region ?? process.env.AWS_REGION ?? 'us-east-1',
      ...(options.endpoint ? { endpoint: options.endpoint, forcePathStyle: true } : {}),
    });
  return {
    async put(key, body) {
      await client.send(new PutObjectCommand({ Bucket: options.bucket, Key: key, Body: body, ContentType: 'application/octet-stream' }));
    },
    async read(key, offset, length) {
      if (!(Number.isInteger(offset) && offset >= 0 && Number.isInteger(length) && length > 0)) {
        throw new Error(`cold store: bad byte range ${offset}+${length} of ${key}`);
      }
      const answer = await client.send(
        new GetObjectCommand({ Bucket: options.bucket, Key: key, Range: `bytes=${offset}-${offset + length - 1}` }),
      );
      if (!answer.Body) throw new Error(`cold store: no body for ${key}`);
      const bytes = await answer.Body.transformToByteArray();
      if (bytes.length !== length) throw new Error(`cold store: ${key} gave ${bytes.length} bytes at ${offset}, ${length} asked`);
      return bytes;
    },
  };
}
