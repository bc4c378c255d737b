// Removing every output of a prediction from S3-compatible storage when there are more than one
// listing page and one delete request of them: listed page by page (continuation tokens), deleted
// at most 1000 keys a request, and a delete the store answers with per-key errors is a failure.
// s3rver (test/helpers/s3.ts) cannot serve a second page on Node 24 (its continuation tokens are
// DES-encrypted, which OpenSSL 3 refuses), so the store here is a small HTTP server of this file's
// own that answers the two calls as S3 does.
import http from 'node:http';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import test from 'ava';
import { createS3Storage } from '../../lib/storage-s3.ts';

const BUCKET = 'mediagate-test';

interface FakeS3 {
  keys: Set<string>;
  lists: number;
  deletes: number[];
  /** answer deletes with an error for every key (a store that refuses them one by one) */
  refuse: boolean;
  endpoint: string;
  close(): Promise<void>;
}

const xml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** ListObjectsV2 (pages of `pageSize`, the token being the last key) and DeleteObjects on one bucket held in memory */
async function fakeS3(keys: readonly string[], pageSize: number): Promise<FakeS3> {
  const state = { keys: new Set(keys), lists: 0, deletes: [] as number[], refuse: false };
  const server = http.createServer((req, res) => {
    const url = new URL(req.url!, 'http://s3.test');
    const bucket = url.pathname.replace(/\/$/, '') === `/${BUCKET}`;
    let body = '';
    req.on('data', (c: Buffer) => { body += c.toString('utf8'); });
    req.on('end', () => {
      res.setHeader('content-type', 'application/xml');
      if (req.method === 'GET' && bucket && url.searchParams.get('list-type') === '2') {
        state.lists++;
        const prefix = url.searchParams.get('prefix') ?? '';
        const after = url.searchParams.get('continuation-token') ?? '';
        const all = [...state.keys].filter((k) => k.startsWith(prefix) && k > after).sort();
        const page = all.slice(0, pageSize);
        const truncated = all.length > pageSize;
        res.end(`<?xml version="1.0" encoding="UTF-8"?><ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Name>${BUCKET}</Name><Prefix>${xml(prefix)}</Prefix><KeyCount>${page.length}</KeyCount><MaxKeys>${pageSize}</MaxKeys><IsTruncated>${truncated}</IsTruncated>${truncated ? `<NextContinuationToken>${xml(page.at(-1)!)}</NextContinuationToken>` : ''}${page.map((k) => `<Contents><Key>${xml(k)}</Key><Size>1</Size></Contents>`).join('')}</ListBucketResult>`);
        return;
      }
      if (req.method === 'POST' && bucket && url.searchParams.has('delete')) {
        const named = [...body.matchAll(/<Key>([^<]*)<\/Key>/g)].map((m) => m[1]!.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&'));
        state.deletes.push(named.length);
        if (state.refuse) {
          res.end(`<?xml version="1.0" encoding="UTF-8"?><DeleteResult>${named.map((k) => `<Error><Key>${xml(k)}</Key><Code>AccessDenied</Code><Message>Access Denied</Message></Error>`).join('')}</DeleteResult>`);
          return;
        }
        for (const k of named) state.keys.delete(k);
        res.end('<?xml version="1.0" encoding="UTF-8"?><DeleteResult></DeleteResult>');
        return;
      }
      res.statusCode = 400;
      res.end(`<Error><Code>NotImplemented</Code><Message>${xml(`${req.method} ${req.url}`)}</Message></Error>`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const fake = state as FakeS3;
  fake.endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  fake.close = () => new Promise((resolve) => server.close(() => resolve()));
  return fake;
}

async function storageOn(t: import('ava').ExecutionContext, fake: FakeS3) {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'mg-s3-pages-'));
  t.teardown(async () => {
    await fake.close();
    await fs.rm(dir, { recursive: true, force: true });
  });
  return createS3Storage({
    bucket: BUCKET, prefix: 'gw', endpoint: fake.endpoint, region: 'us-east-1', forcePathStyle: true, accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER',
  }, dir, 'http://gateway.test');
}

test('more outputs than a listing page and a delete request hold: every page listed, at most 1000 keys a delete, only its own', async (t) => {
  const mine = Array.from({ length: 2500 }, (_, i) => `gw/outputs/many/${String(i).padStart(4, '0')}.png`);
  const others = ['gw/outputs/many2/0.png', 'gw/outputs/man/0.png', 'outputs/many/0.png', 'gw/uploads/0123456789abcdef0123456789abcdef/many.png'];
  const fake = await fakeS3([...mine, ...others], 1000);
  const storage = await storageOn(t, fake);
  t.is(await storage.removeAllOutputs('many'), mine.length);
  t.is(fake.lists, 3, 'three pages');
  t.deepEqual(fake.deletes, [1000, 1000, 500]);
  t.deepEqual([...fake.keys].sort(), [...others].sort());
});

test('a delete the store answers with per-key errors is a failure, not a removal, for every output and for the listed ones', async (t) => {
  const fake = await fakeS3(['gw/outputs/kept/0.png', 'gw/outputs/kept/1.png'], 1000);
  fake.refuse = true;
  const storage = await storageOn(t, fake);
  await t.throwsAsync(storage.removeAllOutputs('kept'), { message: /kept 2 of 2 objects \(AccessDenied/ });
  t.is(fake.keys.size, 2);
  // so is retention's removal of a completed prediction's listed outputs: they stay listed, for its next run
  await t.throwsAsync(storage.removeOutputs('kept', ['outputs/kept/0.png', 'outputs/kept/1.png']), { message: /kept 2 of 2 objects \(AccessDenied/ });
  fake.refuse = false;
  t.is(await storage.removeOutputs('kept', ['outputs/kept/0.png', 'outputs/kept/1.png', 'outputs/other/0.png']), 2);
  t.is(fake.keys.size, 0);
});
