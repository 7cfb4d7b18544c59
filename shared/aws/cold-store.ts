/**
 * The cold history's object store (docs/decisions/cold-history.md): the compactor writes shard objects
 * of compressed range parts with the AWS SDK's S3 client, and reads them back, as the API routes do,
 * with one ranged GET each (shared/aws/cold-part-reader.ts: the routes' bundles carry no S3 client).
 * S3 in AWS; locally and in the tests any S3-compatible server on 127.0.0.1 (`endpoint`, path-style).
 *
 * Objects are written once under a key that names their content (the compactor puts a digest of the
 * bytes in it), so writing one again is harmless and a pointer never names bytes that changed.
 */
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import type { AwsCredentialIdentity } from '@smithy/types';
import { type ColdPartReader, coldPartReader } from './cold-part-reader';

export interface ColdStore extends ColdPartReader {
  /** Writes `body` under `key` (the same key always holds the same bytes). */
  put(key: string, body: Uint8Array): Promise<void>;
}

export interface S3ColdStoreOptions {
  bucket: string;
  region?: string;
  /** An S3-compatible endpoint (local runs and tests); path-style addressing. */
  endpoint?: string;
  /** Fixed credentials (a local server's); the SDK's default provider otherwise. */
  credentials?: AwsCredentialIdentity;
}

export function s3ColdStore(options: S3ColdStoreOptions): ColdStore {
  const region = options.region ?? process.env.AWS_REGION ?? 'us-east-1';
  const client = new S3Client({
    region,
    ...(options.endpoint ? { endpoint: options.endpoint, forcePathStyle: true } : {}),
    ...(options.credentials ? { credentials: options.credentials } : {}),
  });
  const credentials = options.credentials;
  const reader = coldPartReader({
    bucket: options.bucket,
    region,
    endpoint: options.endpoint,
    credentials: credentials && (async () => credentials),
  });
  return {
    async put(key, body) {
      await client.send(new PutObjectCommand({ Bucket: options.bucket, Key: key, Body: body, ContentType: 'application/octet-stream' }));
    },
    read: (key, offset, length) => reader.read(key, offset, length),
  };
}
