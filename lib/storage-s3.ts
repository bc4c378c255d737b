// Output files and uploads on an S3-compatible bucket (AWS S3, MinIO, Cloudflare R2, Ceph, …),
// chosen by STORAGE_URL=s3://bucket[/prefix] (README "Storage"). Every API process then serves
// every output: /files/<key> answers with a redirect to a short-lived presigned GET (plugins/files.ts),
// so stored URLs stay on PUBLIC_URL and stay capability URLs, whatever the bucket's own policy.
// Uploads get a presigned PUT with the content type (and the size, when the client gave it) bound
// into the signature: the store refuses a PUT that sends others.
import fs from 'node:fs/promises';
import { createReadStream } from 'node:fs';
import {
  DeleteObjectCommand, DeleteObjectsCommand, GetObjectCommand, HeadObjectCommand, ListObjectsV2Command, PutObjectCommand, S3Client,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { assertPredictionId, createLocalStorage, isUploadKey } from './storage.ts';
import type { Storage } from './storage.ts';
import type { S3StorageConfig } from './storage-s3-url.ts';

/** How long one S3 call may wait; the SDK's own defaults wait forever. */
export interface S3Timeouts {
  /** to open the connection (DNS and TLS included) */
  connectionMs: number;
  /** of silence on an open connection, no byte sent or received: a slow upload that moves is not cut */
  idleMs: number;
  /** tries of one call, the SDK's retries included (each gets both waits again) */
  maxAttempts: number;
}

// A store that accepts the connection and never answers would otherwise hold a worker's save (its
// prediction stays `processing`, its hold kept), an API request, or shutdown behind retention.
// Worst case of one call: per attempt 5 s to connect, then 30 s of silence (the SDK starts
// watching a wait of 6 s or more up to 3 s late, still within the 35 s), so 3 x 35 s plus the
// SDK's backoff between attempts (under 0.2 s, 3 s after a throttling answer): under 2 minutes.
// No whole-request limit (the SDK's requestTimeout): it would count an upload's transfer time too,
// and cut a large output on a slow link.
export const S3_TIMEOUTS: S3Timeouts = { connectionMs: 5_000, idleMs: 30_000, maxAttempts: 3 };

/**
 * `localDir` keeps only temporary downloads (adapters write there before save() uploads them);
 * the sandbox's samples stay local files too (plugins/files.ts serves them from the repository).
 * `timeouts`: the production S3_TIMEOUTS unless a test passes short ones.
 */
export function createS3Storage(cfg: S3StorageConfig, localDir: string, publicUrl: string, timeouts: S3Timeouts = S3_TIMEOUTS): Storage {
  const client = new S3Client({
    region: cfg.region,
    forcePathStyle: cfg.forcePathStyle,
    // A timed-out attempt fails with a TimeoutError, which the SDK retries up to maxAttempts (not
    // an upload from a file: a stream cannot be sent again) and then throws like any store failure.
    requestHandler: { connectionTimeout: timeouts.connectionMs, socketTimeout: timeouts.idleMs },
    maxAttempts: timeouts.maxAttempts,
    ...(cfg.endpoint ? { endpoint: cfg.endpoint } : {}),
    ...(cfg.accessKeyId && cfg.secretAccessKey ? { credentials: { accessKeyId: cfg.accessKeyId, secretAccessKey: cfg.secretAccessKey } } : {}),
    // No checksum of an unknown body in presigned PUTs (the SDK would sign the empty body's CRC),
    // and none forced on stores that do not implement the flexible checksums.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
  const Bucket = cfg.bucket;
  const objectKey = (key: string) => (cfg.prefix ? `${cfg.prefix}/${key}` : key);
  const local = createLocalStorage(localDir, publicUrl);

  /**
   * Deletes these objects (their full keys), at most 1000 a request. A store can answer 200 and
   * still refuse some keys: that is a failure (retention then keeps the prediction's files listed
   * and tries again on its next run), not a removal.
   */
  async function deleteObjects(keys: readonly string[]): Promise<void> {
    for (let i = 0; i < keys.length; i += 1000) {
      const batch = keys.slice(i, i + 1000);
      const done = await client.send(new DeleteObjectsCommand({ Bucket, Delete: { Objects: batch.map((Key) => ({ Key })), Quiet: true } }));
      const refused = done.Errors ?? [];
      if (refused.length > 0) throw new Error(`the store kept ${refused.length} of ${batch.length} objects (${refused[0]!.Code ?? 'error'}: ${refused[0]!.Message ?? ''})`);
    }
  }

  return {
    kind: 's3',
    tempDir: local.tempDir,
    removeStaleTemporary: local.removeStaleTemporary,
    url: local.url,
    sandboxKey: local.sandboxKey,
    async save(predictionId, index, file) {
      const ext = /^[a-z0-9]{1,8}$/.test(file.extension) ? file.extension : 'bin';
      const key = `outputs/${predictionId}/${index}.${ext}`;
      if (file.path !== undefined) {
        const { size } = await fs.stat(file.path);
        const body = createReadStream(file.path);
        try {
          await client.send(new PutObjectCommand({ Bucket, Key: objectKey(key), Body: body, ContentLength: size, ContentType: file.contentType }));
        } finally {
          // a timed-out upload leaves its file half read, and open
          body.destroy();
        }
        await fs.rm(file.path, { force: true });
      } else {
        await client.send(new PutObjectCommand({ Bucket, Key: objectKey(key), Body: file.data, ContentType: file.contentType }));
      }
      return key;
    },
    async removeOutputs(predictionId, keys) {
      const prefix = `outputs/${predictionId}/`;
      const mine = keys.filter((k) => k.startsWith(prefix) && !k.includes('..') && !k.includes('\\'));
      // Deleting a key that is not there succeeds in S3: "already gone counts as removed".
      await deleteObjects(mine.map(objectKey));
      return mine.length;
    },
    async removeAllOutputs(predictionId, keep = []) {
      assertPredictionId(predictionId);
      const kept = new Set(keep.map(objectKey));
      // the trailing slash keeps `outputs/ab/` from matching `outputs/abc/…`
      const prefix = objectKey(`outputs/${predictionId}/`);
      const found: string[] = [];
      let token: string | undefined;
      do {
        const page = await client.send(new ListObjectsV2Command({ Bucket, Prefix: prefix, ...(token ? { ContinuationToken: token } : {}) }));
        for (const o of page.Contents ?? []) if (o.Key?.startsWith(prefix) && !kept.has(o.Key)) found.push(o.Key);
        token = page.IsTruncated ? page.NextContinuationToken : undefined;
      } while (token);
      // listed whole first, then deleted: no page is read after its keys were deleted
      await deleteObjects(found);
      return found.length;
    },
    async stat(key) {
      try {
        const head = await client.send(new HeadObjectCommand({ Bucket, Key: objectKey(key) }));
        return { sizeBytes: head.ContentLength ?? 0, contentType: head.ContentType ?? null };
      } catch (err) {
        const status = (err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
        if (status === 404) return null;
        throw err;
      }
    },
    async removeUpload(key) {
      if (!isUploadKey(key)) return;
      await client.send(new DeleteObjectCommand({ Bucket, Key: objectKey(key) }));
    },
    async presignUpload(key, contentType, sizeBytes, expiresInSeconds) {
      const command = new PutObjectCommand({ Bucket, Key: objectKey(key), ContentType: contentType, ...(sizeBytes !== null ? { ContentLength: sizeBytes } : {}) });
      const signableHeaders = new Set(['content-type', ...(sizeBytes !== null ? ['content-length'] : [])]);
      const url = await getSignedUrl(client, command, { expiresIn: expiresInSeconds, signableHeaders });
      return { url, headers: { 'content-type': contentType } };
    },
    async presignDownload(key, expiresInSeconds) {
      return getSignedUrl(client, new GetObjectCommand({ Bucket, Key: objectKey(key) }), { expiresIn: expiresInSeconds });
    },
  };
}

