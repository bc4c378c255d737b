// A real S3-compatible server for tests (s3rver: objects on disk in a temp dir, on a free port),
// with one bucket, and the gateway environment that points STORAGE_URL at it. s3rver checks that a
// request is signed by a known key but does not verify SigV4 signatures (so a presigned PUT's bound
// headers are checked in the URL, and the gateway's own checks at registration are what refuse).
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import S3rver from 's3rver';
import { CreateBucketCommand, HeadObjectCommand, S3Client } from '@aws-sdk/client-s3';

export interface TestS3 {
  endpoint: string;
  bucket: string;
  client: S3Client;
  /** the gateway's environment for this bucket */
  env: Record<string, string>;
  /** size of an object, or null when the bucket does not hold it */
  head(key: string): Promise<number | null>;
  stop(): Promise<void>;
}

export async function startS3(bucket = 'mediagate-test'): Promise<TestS3> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'mg-s3-'));
  const server = new S3rver({ port: 0, address: '127.0.0.1', directory: dir, silent: true });
  const { port } = await server.run();
  const endpoint = `http://127.0.0.1:${port}`;
  // s3rver's built-in account
  const credentials = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };
  const client = new S3Client({ endpoint, region: 'us-east-1', forcePathStyle: true, credentials });
  await client.send(new CreateBucketCommand({ Bucket: bucket }));
  return {
    endpoint,
    bucket,
    client,
    env: {
      STORAGE_URL: `s3://${bucket}?endpoint=${encodeURIComponent(endpoint)}&region=us-east-1`,
      STORAGE_S3_ACCESS_KEY_ID: credentials.accessKeyId,
      STORAGE_S3_SECRET_ACCESS_KEY: credentials.secretAccessKey,
    },
    async head(key) {
      try {
        return (await client.send(new HeadObjectCommand({ Bucket: bucket, Key: key }))).ContentLength ?? 0;
      } catch (err) {
        if ((err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode === 404) return null;
        throw err;
      }
    },
    async stop() {
      client.destroy();
      await server.close();
      await fs.rm(dir, { recursive: true, force: true });
    },
  };
}
