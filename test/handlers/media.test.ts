// Upload addresses and the media library on local storage (issue 10), through the real spec,
// plugins and MariaDB: the whole flow (address, PUT, register, list, serve, delete), each refusal
// of the upload route (415, 413, 409, 410, 404) and of the address (422, 413), two tenants that
// never see each other's files, a team library, the list's filters and pages, and the retention
// job removing uploads no library took after UPLOAD_RETENTION_DAYS.
import test from 'ava';
import { startGateway, newAccount } from '../helpers/gateway.ts';
import type { TestGateway, Account } from '../helpers/gateway.ts';
import { callOperation } from '../helpers/operation.ts';
import { createTeam } from '../../db/teams.ts';
import { createRetention } from '../../workers/retention.ts';

const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');
let gw: TestGateway;
let a: Account;
let b: Account;
let now = Date.now();

test.before(async () => {
  gw = await startGateway({ queue: 'memory', clock: () => now, env: { UPLOAD_MAX_BYTES_IMAGE: '1000', UPLOAD_URL_TTL_SECONDS: '600' } });
  a = await newAccount(gw);
  b = await newAccount(gw);
});
test.after.always(async () => {
  await gw?.stop();
});

interface Address { upload_url: string; file_url: string; headers: Record<string, string>; expires_at: string; max_bytes: number; content_type: string; media_type: string }
interface Asset { id: number; name: string; url: string; media_type: string; size_bytes: number | null; content_type: string | null; team_id: number | null }
interface Page { items: Asset[]; total: number; has_more: boolean; page: number; page_size: number }

async function address(as: string, filename: string, query: Record<string, string | number> = {}) {
  const res = await callOperation<Address>(gw, 'getFileUploadUrl', { as, query: { filename, ...query } });
  if (res.status !== 200) throw new Error(`getFileUploadUrl: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

const put = (url: string, body: Buffer, contentType = 'image/png') =>
  gw.server.inject({ method: 'PUT', url: new URL(url).pathname, headers: { 'content-type': contentType }, payload: body });
const get = (url: string) => gw.server.inject({ method: 'GET', url: new URL(url).pathname });

test.serial('retention removes uploads no media library took after UPLOAD_RETENTION_DAYS (30), file and row; registered and recent ones stay', async (t) => {
  const start = now;
  const unregistered = await address(a.liveKey, 'input.png');
  t.is((await put(unregistered.upload_url, PNG)).statusCode, 200);
  const registered = await address(a.liveKey, 'kept.png');
  t.is((await put(registered.upload_url, PNG)).statusCode, 200);
  t.is((await callOperation(gw, 'createMediaAsset', { as: a.session, body: { url: registered.file_url, media_type: 'image' } })).status, 200);
  const neverPut = await address(b.liveKey, 'never.png');
  now += 31 * 86_400_000;
  try {
    const recent = await address(b.liveKey, 'recent.png');
    t.is((await put(recent.upload_url, PNG)).statusCode, 200);
    // the other tests' sessions outlive this jump: only the uploads are this test's business
    const retention = createRetention({ ...gw.app, config: { ...gw.app.config, retention: { ...gw.app.config.retention, expiredGraceDays: 3650 } } });
    const counts = await retention.runOnce();
    await retention.stop();
    t.is(counts?.uploads, 2, 'the unregistered upload and the address never used');
    t.is((await get(unregistered.file_url)).statusCode, 404, 'its file is gone');
    const late = await callOperation(gw, 'createMediaAsset', { as: a.liveKey, body: { url: unregistered.file_url, media_type: 'image' } });
    t.is(late.status, 404, 'registering it afterwards finds no upload');
    const keyOf = (url: string) => new URL(url).pathname.replace('/files/', '');
    t.falsy(await gw.app.db('uploads').where({ storage_key: keyOf(neverPut.file_url) }).first(), 'an address never used goes too');
    t.is((await get(registered.file_url)).statusCode, 200, 'a media-library asset keeps its file');
    t.is((await get(recent.file_url)).statusCode, 200, 'a recent upload stays');
  } finally {
    now = start;
  }
});

test.serial('retention removes a deleted team\'s media library with its other uploads after UPLOAD_RETENTION_DAYS: no one can list or delete it any more', async (t) => {
  const start = now;
  const c = await newAccount(gw);
  const teamId = (await callOperation<{ id: number }>(gw, 'createTeam', { as: c.session, body: { name: 'Library gone' } })).body.id;
  const addr = await address(c.session, 'team-kept.png', { team_id: teamId });
  t.is((await put(addr.upload_url, PNG)).statusCode, 200);
  const asset = await callOperation<Asset>(gw, 'createMediaAsset', { as: c.session, query: { team_id: teamId }, body: { url: addr.file_url, media_type: 'image' } });
  t.is(asset.status, 200);
  const live = await callOperation<{ id: number }>(gw, 'createTeam', { as: c.session, body: { name: 'Library kept' } });
  const liveAddr = await address(c.session, 'live-kept.png', { team_id: live.body.id });
  t.is((await put(liveAddr.upload_url, PNG)).statusCode, 200);
  t.is((await callOperation(gw, 'createMediaAsset', { as: c.session, query: { team_id: live.body.id }, body: { url: liveAddr.file_url, media_type: 'image' } })).status, 200);
  t.is((await callOperation(gw, 'deleteTeam', { as: c.session, params: { team_id: teamId } })).status, 200);
  // past the job lease the test above took at 31 days
  now += 62 * 86_400_000;
  try {
    const retention = createRetention({ ...gw.app, config: { ...gw.app.config, retention: { ...gw.app.config.retention, expiredGraceDays: 3650 } } });
    t.truthy(await retention.runOnce(), 'the job ran');
    await retention.stop();
    t.is((await get(addr.file_url)).statusCode, 404, 'the deleted team\'s asset file is gone');
    t.falsy(await gw.app.db('media_assets').where({ id: asset.body.id }).first(), 'and its asset');
    t.is((await get(liveAddr.file_url)).statusCode, 200, 'a live team\'s asset keeps its file');
  } finally {
    now = start;
  }
});

test('retention leaves an upload whose address can still be used (UPLOAD_RETENTION_DAYS shorter than the address\'s life): its PUT still lands, and it goes once the address expired', async (t) => {
  let at = Date.now();
  const short = await startGateway({ queue: 'memory', clock: () => at, env: { UPLOAD_URL_TTL_SECONDS: String(7 * 86_400), UPLOAD_RETENTION_DAYS: '1' } });
  try {
    const c = await newAccount(short);
    const addr = (await callOperation<Address>(short, 'getFileUploadUrl', { as: c.liveKey, query: { filename: 'slow.png' } })).body;
    const retention = createRetention(short.app);
    at += 2 * 86_400_000;
    t.is((await retention.runOnce())?.uploads, 0, 'its address is still valid for five days');
    const up = await short.server.inject({ method: 'PUT', url: new URL(addr.upload_url).pathname, headers: { 'content-type': 'image/png' }, payload: PNG });
    t.is(up.statusCode, 200, 'the address still takes its PUT');
    at += 6 * 86_400_000;
    t.is((await retention.runOnce())?.uploads, 1, 'expired and unregistered: it goes');
    await retention.stop();
    t.is((await short.server.inject({ method: 'GET', url: new URL(addr.file_url).pathname })).statusCode, 404);
  } finally {
    await short.stop();
  }
});

test('upload, register, list, serve and delete a file on local storage', async (t) => {
  const addr = await address(a.liveKey, 'My Cat.PNG');
  t.is(addr.content_type, 'image/png');
  t.is(addr.media_type, 'image');
  t.is(addr.max_bytes, 1000);
  t.deepEqual(addr.headers, { 'content-type': 'image/png' });
  t.true(addr.upload_url.startsWith('http://gateway.test/uploads/mgu_'));
  t.regex(addr.file_url, /^http:\/\/gateway\.test\/files\/uploads\/[0-9a-f]{32}\/My-Cat\.png$/);
  t.is(new Date(addr.expires_at).getTime(), now + 600_000);
  // the token is stored hashed, never as given
  const token = new URL(addr.upload_url).pathname.split('/').pop()!;
  t.falsy(await gw.app.db('uploads').where({ token_hash: token }).first());

  t.is((await get(addr.file_url)).statusCode, 404, 'nothing is served before the PUT');
  const up = await put(addr.upload_url, PNG);
  t.is(up.statusCode, 200, up.payload);
  t.like(JSON.parse(up.payload), { file_url: addr.file_url, size_bytes: PNG.length, content_type: 'image/png' });

  const served = await get(addr.file_url);
  t.is(served.statusCode, 200);
  t.deepEqual(served.rawPayload, PNG);
  t.is(served.headers['x-content-type-options'], 'nosniff');
  t.is(served.headers['content-security-policy'], "default-src 'none'; sandbox");

  const created = await callOperation<Asset>(gw, 'createMediaAsset', { as: a.session, body: { url: addr.file_url, media_type: 'image' } });
  t.is(created.status, 200);
  t.like(created.body, { name: 'My Cat.PNG', url: addr.file_url, media_type: 'image', content_type: 'image/png', size_bytes: PNG.length, team_id: null });
  const again = await callOperation(gw, 'createMediaAsset', { as: a.session, body: { url: addr.file_url, media_type: 'image' } });
  t.is(again.status, 409, 'an upload is one asset');

  const list = await callOperation<Page>(gw, 'listMediaAssets', { as: a.liveKey, query: { search: 'my cat' } });
  t.deepEqual(list.body.items.map((i) => i.id), [created.body.id]);

  const del = await callOperation(gw, 'deleteMediaAsset', { as: a.liveKey, params: { asset_id: created.body.id } });
  t.deepEqual(del.body, { id: created.body.id, deleted: true });
  t.is((await get(addr.file_url)).statusCode, 404, 'deleting the asset removed the file');
  t.is((await callOperation(gw, 'deleteMediaAsset', { as: a.liveKey, params: { asset_id: created.body.id } })).status, 404);
});

test('a file name with dots inside ("my..cat.png") uploads, serves, registers, and its delete removes the file', async (t) => {
  const addr = await address(a.liveKey, 'my..cat.png');
  t.regex(addr.file_url, /\/files\/uploads\/[0-9a-f]{32}\/my\.\.cat\.png$/);
  const up = await put(addr.upload_url, PNG);
  t.is(up.statusCode, 200, up.payload);
  t.deepEqual((await get(addr.file_url)).rawPayload, PNG);
  const asset = await callOperation<Asset>(gw, 'createMediaAsset', { as: a.liveKey, body: { url: addr.file_url, media_type: 'image' } });
  t.is(asset.status, 200);
  t.is((await callOperation(gw, 'deleteMediaAsset', { as: a.liveKey, params: { asset_id: asset.body.id } })).status, 200);
  t.is((await get(addr.file_url)).statusCode, 404, 'deleting the asset removed the file');
});

test.serial('the upload route refuses another content type (415), a larger body (413), a second PUT (409), an expired address (410), an unknown one (404)', async (t) => {
  const addr = await address(a.liveKey, 'x.png');
  const wrongType = await put(addr.upload_url, PNG, 'image/jpeg');
  t.is(wrongType.statusCode, 415);
  t.is(JSON.parse(wrongType.payload).code, 'unsupported_media_type');
  const tooBig = await put(addr.upload_url, Buffer.alloc(1001));
  t.is(tooBig.statusCode, 413);
  t.is(JSON.parse(tooBig.payload).code, 'payload_too_large');
  // a refused body does not use the address up
  t.is((await put(addr.upload_url, PNG)).statusCode, 200);
  const second = await put(addr.upload_url, PNG);
  t.is(second.statusCode, 409);
  t.is(JSON.parse(second.payload).code, 'conflict');

  const late = await address(a.liveKey, 'late.png');
  now += 600_000;
  try {
    const expired = await put(late.upload_url, PNG);
    t.is(expired.statusCode, 410);
    t.is(JSON.parse(expired.payload).code, 'gone');
  } finally {
    now -= 600_000;
  }
  const unknown = await gw.server.inject({ method: 'PUT', url: `/uploads/mgu_${'A'.repeat(43)}`, headers: { 'content-type': 'image/png' }, payload: PNG });
  t.is(unknown.statusCode, 404);
  t.is((await gw.server.inject({ method: 'PUT', url: '/uploads/nonsense', headers: { 'content-type': 'image/png' }, payload: PNG })).statusCode, 404);
});

test.serial('a full disk while an upload arrives is 503 to retry, never a 500, and the address stays usable', async (t) => {
  const addr = await address(a.liveKey, 'full.png');
  const storage = gw.app.storage as { writeUpload?: typeof gw.app.storage.writeUpload };
  const write = storage.writeUpload;
  storage.writeUpload = async () => {
    throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
  };
  try {
    const full = await put(addr.upload_url, PNG);
    t.is(full.statusCode, 503, full.payload);
    t.is(JSON.parse(full.payload).code, 'unavailable');
  } finally {
    storage.writeUpload = write;
  }
  t.is((await put(addr.upload_url, PNG)).statusCode, 200, 'the address was not used up');
});

test('a declared size is held to: over the limit at once 413, another length on the PUT refused', async (t) => {
  const over = await callOperation(gw, 'getFileUploadUrl', { as: a.liveKey, query: { filename: 'big.png', size_bytes: 1001 } });
  t.is(over.status, 413);
  const addr = await address(a.liveKey, 'exact.png', { size_bytes: PNG.length });
  t.is((await put(addr.upload_url, Buffer.concat([PNG, PNG]))).statusCode, 400);
  t.is((await put(addr.upload_url, PNG)).statusCode, 200);
});

test('an unknown, missing or forbidden extension is 422 naming the filename', async (t) => {
  for (const filename of ['tool.exe', 'page.html', 'vector.svg', 'noextension', '.png.']) {
    const res = await callOperation<{ detail: Array<{ loc: string[] }> }>(gw, 'getFileUploadUrl', { as: a.liveKey, query: { filename } });
    t.is(res.status, 422, filename);
    t.deepEqual(res.body.detail[0]!.loc, ['query', 'filename']);
  }
  for (const [filename, type] of [['clip.MP4', 'video/mp4'], ['song.mp3', 'audio/mpeg'], ['a.jpeg', 'image/jpeg']] as const) {
    t.is((await address(a.liveKey, filename)).content_type, type);
  }
});

test('two tenants: nothing of one is visible to, registrable or deletable by the other', async (t) => {
  const addr = await address(a.liveKey, 'private.png');
  t.is((await put(addr.upload_url, PNG)).statusCode, 200);
  const theirs = await callOperation(gw, 'createMediaAsset', { as: b.liveKey, body: { url: addr.file_url, media_type: 'image' } });
  t.is(theirs.status, 404, 'another owner\'s upload cannot be registered');
  const mine = await callOperation<Asset>(gw, 'createMediaAsset', { as: a.liveKey, body: { url: addr.file_url, media_type: 'image' } });
  t.is(mine.status, 200);
  const listB = await callOperation<Page>(gw, 'listMediaAssets', { as: b.liveKey, query: { search: 'private' } });
  t.deepEqual(listB.body.items, []);
  t.is(listB.body.total, 0);
  t.is((await callOperation(gw, 'deleteMediaAsset', { as: b.liveKey, params: { asset_id: mine.body.id } })).status, 404);
  t.is((await get(addr.file_url)).statusCode, 200, 'still there after the stranger\'s delete');
  const foreignPrediction = await callOperation(gw, 'createMediaAsset', { as: b.liveKey, body: { url: 'https://cdn.example.com/x.png', media_type: 'image', request_id: 'nope' } });
  t.is(foreignPrediction.status, 404);
  t.is((await callOperation(gw, 'createMediaAsset', { as: b.liveKey, body: { url: `${addr.file_url.replace(/[^/]+$/, '')}other.png`, media_type: 'image' } })).status, 404);
});

test('an asset\'s URL is an http or https address: javascript:, data: and other schemes are 422, nothing stored', async (t) => {
  for (const url of ['javascript:alert(document.domain)', 'JavaScript:void(0)', 'data:text/html,%3Cscript%3Ealert(1)%3C/script%3E', 'data:image/png;base64,iVBORw0KGgo=', 'vbscript:x', 'file:///etc/passwd']) {
    const res = await callOperation<{ code: string; detail: Array<{ loc: string[] }> }>(gw, 'createMediaAsset', { as: b.liveKey, body: { url, media_type: 'image', name: 'not a file' } });
    t.is(res.status, 422, url);
    t.deepEqual(res.body.detail[0]!.loc, ['body', 'url'], url);
  }
  t.is((await gw.app.db('media_assets').where({ name: 'not a file' }).count<{ n: number }[]>({ n: '*' }))[0]!.n, 0);
  // an address elsewhere is still a reference, over http or https
  for (const url of ['https://cdn.example.com/cat.png', 'http://cdn.example.com/cat.png']) {
    t.is((await callOperation(gw, 'createMediaAsset', { as: b.liveKey, body: { url, media_type: 'image' } })).status, 200, url);
  }
});

test('a team library: team_id assets are the team\'s, not the member\'s personal ones; a stranger gets 404', async (t) => {
  const c = await newAccount(gw);
  const teamId = (await createTeam(gw.app.db, c.userId, 'Studio', Date.now())).id;
  const addr = await address(c.session, 'team.png', { team_id: teamId });
  t.is((await put(addr.upload_url, PNG)).statusCode, 200);
  const personal = await callOperation(gw, 'createMediaAsset', { as: c.session, body: { url: addr.file_url, media_type: 'image' } });
  t.is(personal.status, 404, 'a team upload is not the member\'s personal one');
  const asset = await callOperation<Asset>(gw, 'createMediaAsset', { as: c.session, query: { team_id: teamId }, body: { url: addr.file_url, media_type: 'image' } });
  t.is(asset.status, 200);
  t.is(asset.body.team_id, teamId);
  t.deepEqual((await callOperation<Page>(gw, 'listMediaAssets', { as: c.session })).body.items, []);
  t.deepEqual((await callOperation<Page>(gw, 'listMediaAssets', { as: c.session, query: { team_id: teamId } })).body.items.map((i) => i.id), [asset.body.id]);
  t.is((await callOperation(gw, 'listMediaAssets', { as: b.session, query: { team_id: teamId } })).status, 404);
  t.is((await callOperation(gw, 'deleteMediaAsset', { as: b.session, params: { asset_id: asset.body.id }, query: { team_id: teamId } })).status, 404);
});

test('an upload address of a team deleted since takes no file: 404 as an unknown address, and nothing is stored', async (t) => {
  const c = await newAccount(gw);
  const teamId = (await callOperation<{ id: number }>(gw, 'createTeam', { as: c.session, body: { name: 'Gone' } })).body.id;
  const addr = await address(c.session, 'late.png', { team_id: teamId });
  const personal = await address(c.session, 'mine.png');
  t.is((await callOperation(gw, 'deleteTeam', { as: c.session, params: { team_id: teamId } })).status, 200);
  const late = await put(addr.upload_url, PNG);
  t.is(late.statusCode, 404, late.payload);
  t.is(JSON.parse(late.payload).detail, 'upload address not found');
  t.is((await get(addr.file_url)).statusCode, 404);
  t.is((await put(personal.upload_url, PNG)).statusCode, 200, 'the member\'s personal address still works');
});

test('the list filters by media type and by name or URL, pages newest first, and refuses bad pages', async (t) => {
  const d = await newAccount(gw);
  const refs = [
    ['sunset.png', 'image'], ['beach_50%.jpg', 'image'], ['intro.mp4', 'video'], ['theme.mp3', 'audio'], ['logo.webp', 'image'],
  ] as const;
  const ids: number[] = [];
  for (const [name, mediaType] of refs) {
    const res = await callOperation<Asset>(gw, 'createMediaAsset', { as: d.liveKey, body: { url: `https://cdn.example.com/lib/${encodeURIComponent(name)}`, media_type: mediaType } });
    t.is(res.status, 200);
    t.is(res.body.name, name, 'the name defaults to the URL\'s last segment');
    ids.push(res.body.id);
  }
  const list = (query: Record<string, string | number>) => callOperation<Page>(gw, 'listMediaAssets', { as: d.liveKey, query });
  t.deepEqual((await list({})).body.items.map((i) => i.id), [...ids].reverse());
  t.is((await list({})).body.page_size, 24);
  t.deepEqual((await list({ media_type: 'image' })).body.items.map((i) => i.name), ['logo.webp', 'beach_50%.jpg', 'sunset.png']);
  t.deepEqual((await list({ media_type: 'all' })).body.total, 5);
  t.deepEqual((await list({ search: 'SUNSET' })).body.items.map((i) => i.name), ['sunset.png']);
  t.deepEqual((await list({ search: '50%' })).body.items.map((i) => i.name), ['beach_50%.jpg'], '% matches itself');
  t.deepEqual((await list({ search: '_' })).body.items.map((i) => i.name), ['beach_50%.jpg'], '_ matches itself');
  t.deepEqual((await list({ search: 'cdn.example.com/lib' })).body.total, 5, 'the URL is searched too');
  const p1 = (await list({ page: 1, page_size: 2 })).body;
  const p3 = (await list({ page: 3, page_size: 2 })).body;
  t.deepEqual([p1.items.length, p1.has_more, p1.total], [2, true, 5]);
  t.deepEqual([p3.items.length, p3.has_more], [1, false]);
  t.deepEqual((await list({ page: 4, page_size: 2 })).body.items, [], 'a page past the end is empty');
  t.is((await list({ page: 0 })).status, 422);
  t.is((await list({ page_size: 101 })).status, 422);
  t.is((await list({ page_size: 0 })).status, 422);
  t.is((await list({ media_type: 'model3d' })).status, 422);
});

test('a sandbox key cannot name a production prediction as an asset\'s request_id: to it the prediction does not exist (404)', async (t) => {
  const c = await newAccount(gw, 1000);
  const submit = async (key: string) => {
    const res = await gw.server.inject({ method: 'POST', url: '/api/v1/canvas-v1-fast-text-to-image', headers: { 'x-api-key': key }, payload: { prompt: 'asset', width: 64, height: 64 } });
    if (res.statusCode !== 200) throw new Error(`submit: ${res.statusCode} ${res.payload}`);
    return (res.result as { request_id: string }).request_id;
  };
  const production = await submit(c.liveKey);
  const sandbox = await submit(c.testKey);
  const register = (as: string, requestId: string) => callOperation<Asset>(gw, 'createMediaAsset', { as, body: { url: 'https://cdn.example.com/linked.png', media_type: 'image', request_id: requestId } });
  const refused = await register(c.testKey, production);
  const unknown = await register(c.testKey, '0'.repeat(32));
  t.is(refused.status, 404);
  t.deepEqual(refused.body, unknown.body, 'the same answer as an id nobody has');
  t.is((await register(c.testKey, sandbox)).status, 200, 'its own sandbox prediction');
  t.is((await register(c.liveKey, production)).status, 200, 'a production key names the production prediction');
  const listed = await callOperation<Page>(gw, 'listMediaAssets', { as: c.session });
  t.is(listed.body.items.filter((x) => x.url === 'https://cdn.example.com/linked.png').length, 2, 'the refused one was not recorded');
});
