// Embedded smoke of uploads (SQLite, in-process queue, local files): the upload flow over real
// HTTP on a listening server, with the library's search (LIKE with its escape on SQLite) and delete.
import test from 'ava';
import { startGateway, newAccount } from '../helpers/gateway.ts';
import type { TestGateway, Account } from '../helpers/gateway.ts';
import { freePort } from '../helpers/processes.ts';

const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');
let gw: TestGateway;
let acct: Account;
let base = '';

test.before(async () => {
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  gw = await startGateway({ db: 'sqlite', queue: 'memory', env: { PORT: String(port), HOST: '127.0.0.1', PUBLIC_URL: base } });
  await gw.server.start();
  acct = await newAccount(gw);
});
test.after.always(async () => {
  await gw?.stop();
});

test('embedded: upload over HTTP, register, find by search, serve, delete', async (t) => {
  const auth = { 'x-api-key': acct.liveKey };
  const addr = await (await fetch(`${base}/app/get_file_upload_url?filename=${encodeURIComponent('100% cat.png')}`, { headers: auth })).json() as { upload_url: string; file_url: string; headers: Record<string, string> };
  t.true(addr.upload_url.startsWith(`${base}/uploads/`));
  const put = await fetch(addr.upload_url, { method: 'PUT', headers: addr.headers, body: PNG });
  t.is(put.status, 200);
  t.is((await fetch(addr.upload_url, { method: 'PUT', headers: addr.headers, body: PNG })).status, 409);

  const created = await fetch(`${base}/app/media-library`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify({ url: addr.file_url, media_type: 'image' }) });
  t.is(created.status, 200);
  const asset = await created.json() as { id: number; size_bytes: number };
  t.is(asset.size_bytes, PNG.length);

  const found = await (await fetch(`${base}/app/media-library?search=${encodeURIComponent('100%')}`, { headers: auth })).json() as { items: Array<{ id: number }>; total: number };
  t.deepEqual(found.items.map((i) => i.id), [asset.id]);
  const none = await (await fetch(`${base}/app/media-library?search=${encodeURIComponent('1_0')}`, { headers: auth })).json() as { total: number };
  t.is(none.total, 0, '_ is not a wildcard');

  const served = await fetch(addr.file_url);
  t.is(served.status, 200);
  t.deepEqual(Buffer.from(await served.arrayBuffer()), PNG);

  t.is((await fetch(`${base}/app/media-library/${asset.id}`, { method: 'DELETE', headers: auth })).status, 200);
  t.is((await fetch(addr.file_url)).status, 404);
});
