/**
 * A local S3 for tests and bench scripts: s3rver on 127.0.0.1 (a free port), its files in a temporary
 * directory, one bucket made, and the AWS SDK's S3 client pointed at it (path-style addressing).
 * `close` stops the server and removes its files.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import S3rver from 's3rver';

export interface LocalS3 {
  endpoint: string;
  bucket: string;
  client: S3Client;
  /** The server's own account, which it checks every request's access key against. */
  credentials: { accessKeyId: string; secretAccessKey: string };
  close(): Promise<void>;
}

export async function startLocalS3(bucket: string): Promise<LocalS3> {
  const directory = await mkdtemp(path.join(os.tmpdir(), 'local-s3-'));
  const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory });
  const { port } = await server.run();
  const endpoint = `http://127.0.0.1:${port}`;
  const credentials = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };
  const client = new S3Client({ endpoint, forcePathStyle: true, region: 'us-east-1', credentials });
  await client.send(new CreateBucketCommand({ Bucket: bucket }));
  return {
    endpoint,
    bucket,
    client,
    credentials,
    async close() {
      client.destroy();
      await server.close();
      await rm(directory, { recursive: true, force: true });
    },
  };
}
