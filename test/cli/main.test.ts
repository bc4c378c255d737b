// The `mediagate` CLI run as a real process (the bin's own file, on this Node) against a gateway
// listening on a port, on MariaDB and RabbitMQ with a worker: no mock of the gateway.
import test from 'ava';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { newAccount, startGateway } from '../helpers/gateway.ts';
import type { Account, TestGateway } from '../helpers/gateway.ts';
import { uniqueName } from '../helpers/services.ts';
import { finished, freePort } from '../helpers/processes.ts';
import type { Finished } from '../helpers/processes.ts';

const ROOT = path.resolve(import.meta.dirname, '..', '..');
const BIN = path.join(ROOT, (JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { bin: Record<string, string> }).bin.mediagate!);
const MODEL = 'canvas-v1-fast-text-to-image';

let gw: TestGateway;
let baseUrl: string;
let dir: string;

type Run = Finished;

function cli(args: string[], opts: { env?: Record<string, string>; stdin?: string; config?: string } = {}): Promise<Run> {
  return finished(spawn(process.execPath, [BIN, ...args], {
    env: { PATH: process.env.PATH ?? '', HOME: dir, MEDIAGATE_BASE_URL: baseUrl, MEDIAGATE_CONFIG: opts.config ?? path.join(dir, 'none.json'), ...opts.env },
    stdio: ['pipe', 'pipe', 'pipe'],
  }), opts.stdin ?? '');
}

async function registered(credit: number): Promise<{ account: Account; email: string }> {
  const account = await newAccount(gw, credit);
  const row = await gw.app.db('users').where({ id: account.userId }).first<{ email: string }>();
  return { account, email: row!.email };
}

test.before(async () => {
  const port = await freePort();
  // PUBLIC_URL is where output URLs point: the listening gateway itself, so --download can fetch them
  gw = await startGateway({ worker: true, env: { PORT: String(port), HOST: '127.0.0.1', PUBLIC_URL: `http://127.0.0.1:${port}` } });
  await gw.server.start();
  baseUrl = gw.server.info.uri;
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mg-cli-'));
});

test.after.always(async () => {
  await gw?.stop();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

test.serial('auth login with nothing but stdin piped in reads the email and the password from its first two lines', async (t) => {
  const { email } = await registered(0);
  const config = path.join(dir, uniqueName('cfg'), 'config.json');
  const login = await cli(['auth', 'login'], { stdin: `${email}\ncorrect horse battery\n`, config });
  t.is(login.code, 0, login.stderr);
  t.regex(login.stdout, /Signed in as/);
  t.truthy((JSON.parse(fs.readFileSync(config, 'utf8')) as { api_key: string }).api_key);
});

test.serial('auth login stores the key in a 0600 file; whoami and logout use it; logout revokes the key', async (t) => {
  const { email } = await registered(0);
  const config = path.join(dir, uniqueName('cfg'), 'config.json');
  const login = await cli(['auth', 'login', '--email', email, '--password-stdin'], { stdin: 'correct horse battery\n', config });
  t.is(login.code, 0, login.stderr);
  t.regex(login.stdout, /Signed in as/);
  t.is(fs.statSync(config).mode & 0o777, 0o600);
  t.is(fs.statSync(path.dirname(config)).mode & 0o777, 0o700);
  const stored = JSON.parse(fs.readFileSync(config, 'utf8')) as { api_key: string; key_id: number };
  t.truthy(stored.api_key);
  t.false(login.stdout.includes(stored.api_key), 'the key is not printed');

  const whoami = await cli(['auth', 'whoami', '--json'], { config });
  t.is(whoami.code, 0, whoami.stderr);
  t.is((JSON.parse(whoami.stdout) as { email: string }).email, email);

  const logout = await cli(['auth', 'logout'], { config });
  t.is(logout.code, 0, logout.stderr);
  t.false(fs.existsSync(config));
  // the key itself is revoked, not only forgotten
  const after = await cli(['auth', 'whoami'], { env: { MEDIAGATE_API_KEY: stored.api_key } });
  t.is(after.code, 3);
});

/** `auth login` into `config`; the key it stored. */
async function loginInto(config: string, email: string): Promise<{ run: Run; stored: { api_key: string; key_id: number; base_url: string } }> {
  const run = await cli(['auth', 'login', '--email', email, '--password-stdin'], { stdin: 'correct horse battery\n', config });
  return { run, stored: JSON.parse(fs.readFileSync(config, 'utf8')) as { api_key: string; key_id: number; base_url: string } };
}

test.serial('auth login again revokes the key it replaces on the same gateway, even another account\'s', async (t) => {
  const { email } = await registered(0);
  const config = path.join(dir, uniqueName('cfg'), 'config.json');
  const first = await loginInto(config, email);
  t.is(first.run.code, 0, first.run.stderr);
  const second = await loginInto(config, email);
  t.is(second.run.code, 0, second.run.stderr);
  t.is(second.run.stderr, '');
  t.not(second.stored.api_key, first.stored.api_key);
  // the replaced key no longer works; the new one does
  t.is((await cli(['auth', 'whoami'], { env: { MEDIAGATE_API_KEY: first.stored.api_key } })).code, 3);
  t.is((await cli(['auth', 'whoami'], { config })).code, 0);

  // signing in as another account on the same gateway revokes the first account's key all the same
  const other = await registered(0);
  const third = await loginInto(config, other.email);
  t.is(third.run.code, 0, third.run.stderr);
  t.is(third.run.stderr, '');
  t.is((await cli(['auth', 'whoami'], { env: { MEDIAGATE_API_KEY: second.stored.api_key } })).code, 3);
  const whoami = await cli(['auth', 'whoami', '--json'], { config });
  t.is((JSON.parse(whoami.stdout) as { email: string }).email, other.email);
});

test.serial('auth login again keeps its success when the replaced key cannot be revoked, with a warning; another gateway\'s key is left alone', async (t) => {
  const { email } = await registered(0);
  const config = path.join(dir, uniqueName('cfg'), 'config.json');
  const first = await loginInto(config, email);
  t.is(first.run.code, 0, first.run.stderr);
  // already revoked elsewhere (the dashboard, another machine)
  t.is((await cli(['keys', 'revoke', String(first.stored.key_id)], { config })).code, 0);
  const second = await loginInto(config, email);
  t.is(second.run.code, 0, second.run.stderr);
  t.regex(second.run.stdout, /Signed in as/);
  t.regex(second.run.stderr, new RegExp(`warning: the previous key \\(id ${first.stored.key_id}\\) could not be revoked`));
  t.is((await cli(['auth', 'whoami'], { config })).code, 0);

  // a key stored for another gateway is not this gateway's to revoke: nothing is sent anywhere about it
  const other = await otherGateway();
  t.teardown(() => other.close());
  fs.writeFileSync(config, JSON.stringify({ base_url: other.url, api_key: 'mg_live_the_other_gateways', key_id: 7 }));
  const third = await loginInto(config, email);
  t.is(third.run.code, 0, third.run.stderr);
  t.is(third.run.stderr, '');
  t.is(other.seen.length, 0);
  t.is(third.stored.base_url, baseUrl);
});

test.serial('auth logout whose key cannot be revoked still signs out, with a warning', async (t) => {
  const { email } = await registered(0);
  const config = path.join(dir, uniqueName('cfg'), 'config.json');
  const login = await loginInto(config, email);
  t.is(login.run.code, 0, login.run.stderr);
  t.is((await cli(['keys', 'revoke', String(login.stored.key_id)], { config })).code, 0);
  const logout = await cli(['auth', 'logout'], { config });
  t.is(logout.code, 0, logout.stderr);
  t.regex(logout.stdout, /^Signed out\.$/m);
  t.regex(logout.stderr, new RegExp(`warning: the stored key \\(id ${login.stored.key_id}\\) could not be revoked`));
  t.false(fs.existsSync(config));
});

test.serial('a wrong password exits 3 and stores nothing; no key at all exits 3 with a hint', async (t) => {
  const { email } = await registered(0);
  const config = path.join(dir, uniqueName('cfg'), 'config.json');
  const login = await cli(['auth', 'login', '--email', email, '--password-stdin'], { stdin: 'wrong password here\n', config });
  t.is(login.code, 3);
  t.false(fs.existsSync(config));
  const none = await cli(['balance']);
  t.is(none.code, 3);
  t.regex(none.stderr, /auth login/);
});

test.serial('models list and show read the catalog; an unknown slug exits 5', async (t) => {
  const list = await cli(['models', 'list', '--json']);
  t.is(list.code, 0, list.stderr);
  const models = JSON.parse(list.stdout) as Array<{ slug: string; available: boolean }>;
  t.true(models.some((m) => m.slug === MODEL && m.available));
  const table = await cli(['models', 'list', '--category', 'text-to-image']);
  t.regex(table.stdout, new RegExp(`^${MODEL}\\s+text-to-image`, 'm'));
  const show = await cli(['models', 'show', MODEL]);
  t.is(show.code, 0, show.stderr);
  t.regex(show.stdout, /prompt \(string, required/);
  t.regex(show.stdout, /width \(integer/);
  const unknown = await cli(['models', 'show', 'no-such-model']);
  t.is(unknown.code, 5);
  const badFilter = await cli(['models', 'list', '--category', 'nonsense']);
  t.is(badFilter.code, 8);
});

test.serial('run waits for the outputs, types k=v by the schema, and downloads them', async (t) => {
  const { account } = await registered(1000);
  const out = path.join(dir, uniqueName('out'));
  const run = await cli(['run', MODEL, '-p', 'a red fox', 'width=64', 'height=64', 'num_images=2', '--download', out, '--json'], { env: { MEDIAGATE_API_KEY: account.liveKey } });
  t.is(run.code, 0, run.stderr);
  const result = JSON.parse(run.stdout) as { status: string; outputs: string[]; files: string[]; price: number };
  t.is(result.status, 'completed');
  t.is(result.outputs.length, 2);
  t.is(result.price, 8);
  t.is(result.files.length, 2);
  for (const f of result.files) t.deepEqual([...fs.readFileSync(f).subarray(1, 4)], [...Buffer.from('PNG')]);
  // without --json: one output URL per line, nothing else on stdout, no progress when piped
  const plain = await cli(['run', MODEL, '-p', 'a blue fox', 'width=64', 'height=64'], { env: { MEDIAGATE_API_KEY: account.liveKey } });
  t.is(plain.code, 0, plain.stderr);
  t.regex(plain.stdout.trim(), /^https?:\/\/\S+\.png$/);
  t.is(plain.stderr, '');
});

test.serial('run --no-wait prints the id; predictions wait and get follow it; cancelling a finished one exits 10', async (t) => {
  const { account } = await registered(1000);
  const env = { MEDIAGATE_API_KEY: account.liveKey };
  const submit = await cli(['run', MODEL, '-p', 'later', 'width=64', 'height=64', '--no-wait'], { env });
  t.is(submit.code, 0, submit.stderr);
  const id = submit.stdout.trim();
  t.regex(id, /^[0-9a-f-]{8,}/);
  const wait = await cli(['predictions', 'wait', id, '--json'], { env });
  t.is(wait.code, 0, wait.stderr);
  t.is((JSON.parse(wait.stdout) as { status: string }).status, 'completed');
  const get = await cli(['predictions', 'get', id], { env });
  t.is(get.code, 0);
  t.regex(get.stdout, new RegExp(`^${id}: completed`));
  const cancel = await cli(['predictions', 'cancel', id], { env });
  t.is(cancel.code, 10);
  // another account's id is not found
  const other = await registered(0);
  const foreign = await cli(['predictions', 'get', id], { env: { MEDIAGATE_API_KEY: other.account.liveKey } });
  t.is(foreign.code, 5);
});

test.serial('exit codes: validation 8 (an unknown field, a mistyped value, a refused value), credit 6, usage 2', async (t) => {
  const { account } = await registered(0);
  const env = { MEDIAGATE_API_KEY: account.liveKey };
  const unknownField = await cli(['run', MODEL, '-p', 'x', 'colour=red'], { env });
  t.is(unknownField.code, 8);
  t.regex(unknownField.stderr, /no input "colour"/);
  const mistyped = await cli(['run', MODEL, '-p', 'x', 'width=wide'], { env });
  t.is(mistyped.code, 8);
  const refused = await cli(['run', MODEL, '-p', 'x', 'width=99999', '--json'], { env });
  t.is(refused.code, 8);
  t.is((JSON.parse(refused.stdout) as { status: number }).status, 422);
  const broke = await cli(['run', MODEL, '-p', 'x', 'width=64', 'height=64'], { env });
  t.is(broke.code, 6);
  t.is((await cli(['frobnicate'], { env })).code, 2);
  t.is((await cli(['run'], { env })).code, 2);
  t.is((await cli(['keys', 'list', '--no-such-flag'], { env })).code, 2);
});

test.serial('keys create (sandbox) shows the key once; list and revoke; balance', async (t) => {
  const { account } = await registered(250);
  const env = { MEDIAGATE_API_KEY: account.liveKey };
  const created = await cli(['keys', 'create', '--name', 'ci', '--sandbox', '--json'], { env });
  t.is(created.code, 0, created.stderr);
  const key = JSON.parse(created.stdout) as { key: string; id: number };
  t.truthy(key.key);
  const list = await cli(['keys', 'list'], { env });
  t.regex(list.stdout, new RegExp(`^${key.id}\\s+ci\\s+\\S+\\s+sandbox`, 'm'));
  t.false(list.stdout.includes(key.key), 'list never shows a secret');
  // the sandbox key runs a model at no cost
  const run = await cli(['run', MODEL, '-p', 'sandbox', '--json'], { env: { MEDIAGATE_API_KEY: key.key } });
  t.is(run.code, 0, run.stderr);
  t.is((JSON.parse(run.stdout) as { price: number }).price, 0);
  const revoke = await cli(['keys', 'revoke', String(key.id)], { env });
  t.is(revoke.code, 0, revoke.stderr);
  t.is((await cli(['balance'], { env: { MEDIAGATE_API_KEY: key.key } })).code, 3);
  const balance = await cli(['balance', '--json'], { env });
  t.like(JSON.parse(balance.stdout), { balance: 250, held: 0 });
});

/** A stand-in for another gateway: records the headers of every request, answers a balance. */
async function otherGateway(): Promise<{ url: string; seen: http.IncomingHttpHeaders[]; close(): Promise<void> }> {
  const seen: http.IncomingHttpHeaders[] = [];
  const server = http.createServer((req, res) => {
    seen.push(req.headers);
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ balance: 0, held: 0, unit: 'credits' }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}`, seen, close: () => new Promise((resolve) => { server.close(() => resolve()); }) };
}

test.serial('the stored key goes only to the gateway it was issued by: another --base-url or MEDIAGATE_BASE_URL gets no key', async (t) => {
  const { email } = await registered(0);
  const config = path.join(dir, uniqueName('cfg'), 'config.json');
  const login = await cli(['auth', 'login', '--email', email, '--password-stdin'], { stdin: 'correct horse battery\n', config });
  t.is(login.code, 0, login.stderr);
  const stored = JSON.parse(fs.readFileSync(config, 'utf8')) as { api_key: string };
  const other = await otherGateway();
  t.teardown(() => other.close());
  for (const how of [{ args: ['--base-url', other.url], env: {} as Record<string, string> }, { args: [], env: { MEDIAGATE_BASE_URL: other.url } }]) {
    const r = await cli([...how.args, 'balance'], { config, env: how.env });
    t.is(r.code, 3, r.stderr);
    t.true(r.stderr.includes(baseUrl) && r.stderr.includes(other.url), r.stderr);
  }
  t.false(other.seen.some((h) => JSON.stringify(h).includes(stored.api_key)), 'the key never reached the other server');
  // the gateway it came from still gets it; MEDIAGATE_API_KEY goes wherever it is sent
  t.is((await cli(['balance'], { config })).code, 0);
  const explicit = await cli(['--base-url', other.url, 'balance'], { config, env: { MEDIAGATE_API_KEY: 'mg_live_for_the_other_one' } });
  t.is(explicit.code, 0, explicit.stderr);
  t.is(other.seen.at(-1)!['x-api-key'], 'mg_live_for_the_other_one');
});

test.serial('a redirect from the gateway is not followed: the key never reaches the address it names', async (t) => {
  const other = await otherGateway();
  t.teardown(() => other.close());
  // a base URL whose server sends every request on to another origin (a moved domain, a proxy's rule)
  const redirector = http.createServer((req, res) => {
    res.writeHead(307, { location: `${other.url}${req.url}` }).end();
  });
  await new Promise<void>((resolve) => redirector.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => { redirector.close(() => resolve()); }));
  const moved = `http://127.0.0.1:${(redirector.address() as { port: number }).port}`;
  const key = 'mg_live_only_for_the_first_address';
  for (const args of [['balance'], ['predictions', 'wait', 'abc', '--timeout', '5']]) {
    const r = await cli(['--base-url', moved, ...args], { env: { MEDIAGATE_API_KEY: key } });
    t.is(r.code, 1, `${args.join(' ')}: ${r.stderr}`);
    t.regex(r.stderr, /redirect/, args.join(' '));
    t.true(r.stderr.includes(other.url), `the answer names where it was sent: ${r.stderr}`);
  }
  t.false(other.seen.some((h) => JSON.stringify(h).includes(key)), 'the key never reached the other origin');
});

test.serial('a key or password about to go over plain http to another machine is warned about on stderr; https and this machine are not', async (t) => {
  const keyOverHttp = await cli(['--base-url', 'http://gateway.invalid', 'balance'], { env: { MEDIAGATE_API_KEY: 'mg_live_not_a_key' } });
  t.is(keyOverHttp.code, 1);
  t.regex(keyOverHttp.stderr, /warning: http:\/\/gateway\.invalid is plain http: your API key is sent unencrypted/);
  t.is(keyOverHttp.stdout, '');
  const passwordOverHttp = await cli(['--base-url', 'http://gateway.invalid', 'auth', 'login', '--email', 'a@example.com', '--password-stdin'], { stdin: 'correct horse battery\n' });
  t.regex(passwordOverHttp.stderr, /warning: .*your password is sent unencrypted/);
  for (const base of ['https://gateway.invalid', baseUrl, 'http://localhost:9']) {
    const r = await cli(['--base-url', base, 'balance'], { env: { MEDIAGATE_API_KEY: 'mg_live_not_a_key' } });
    t.false(r.stderr.includes('unencrypted'), `${base}: ${r.stderr}`);
  }
  // nothing to protect, nothing said (the catalog is public)
  t.false((await cli(['--base-url', 'http://gateway.invalid', 'models', 'list'])).stderr.includes('unencrypted'));
});

test.serial('--download names files from the prediction id as text only: an id from the server cannot place a file outside the directory', async (t) => {
  // a gateway that answers a prediction id made of path steps
  const id = '../../escaped';
  const server = http.createServer((req, res) => {
    if (req.url!.startsWith('/file.png')) return void res.writeHead(200, { 'content-type': 'image/png' }).end('png');
    const p = { id, model: MODEL, status: 'completed', outputs: [`http://127.0.0.1:${(server.address() as { port: number }).port}/file.png`], error: null, urls: { get: '' }, created_at: null, completed_at: null };
    if (req.url!.includes('/stream')) return void res.writeHead(200, { 'content-type': 'text/event-stream' }).end(`data: ${JSON.stringify(p)}\n\n`);
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(p));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => { server.close(() => resolve()); }));
  const root = fs.mkdtempSync(path.join(dir, 'dl-'));
  const target = path.join(root, 'a', 'b');
  const r = await cli(['--base-url', `http://127.0.0.1:${(server.address() as { port: number }).port}`, 'predictions', 'wait', 'x', '--download', target], { env: { MEDIAGATE_API_KEY: 'mg_live_not_a_key' } });
  t.is(r.code, 0, r.stderr);
  t.false(fs.existsSync(path.join(root, 'escaped-0.png')), 'nothing written outside the directory');
  t.deepEqual(fs.readdirSync(target).length, 1);
  t.true(path.dirname(r.stdout.trim()) === target, r.stdout);
});

test.serial('an unreachable gateway exits 1 with a sentence', async (t) => {
  const r = await cli(['models', 'list'], { env: { MEDIAGATE_BASE_URL: 'http://127.0.0.1:9' } });
  t.is(r.code, 1);
  t.regex(r.stderr, /cannot reach the gateway at http:\/\/127\.0\.0\.1:9/);
});

test.serial('quote, predictions list and transactions read the price rule, the history and the ledger', async (t) => {
  const { account } = await registered(1000);
  const env = { MEDIAGATE_API_KEY: account.liveKey };
  const quoted = await cli(['quote', MODEL, '-p', 'fox', 'num_images=2', '--json'], { env });
  t.is(quoted.code, 0, quoted.stderr);
  t.like(JSON.parse(quoted.stdout), { cost: 8, balance: 1000, affordable: true });
  const run = await cli(['run', MODEL, '-p', 'fox', 'num_images=2', 'width=64', 'height=64', '--json'], { env });
  t.is(run.code, 0, run.stderr);
  const { id, price } = JSON.parse(run.stdout) as { id: string; price: number };
  t.is(price, 8, 'the quote is the charge');
  const list = await cli(['predictions', 'list'], { env });
  t.is(list.code, 0, list.stderr);
  t.regex(list.stdout, new RegExp(`^${id}\\s+${MODEL}\\s+completed\\s+8`, 'm'));
  const filtered = await cli(['predictions', 'list', '--status', 'failed', '--json'], { env });
  t.deepEqual((JSON.parse(filtered.stdout) as { items: unknown[] }).items, []);
  const ledger = await cli(['transactions', '--json'], { env });
  t.is(ledger.code, 0, ledger.stderr);
  const rows = (JSON.parse(ledger.stdout) as { items: Array<{ kind: string; amount: number; request_id: string | null }> }).items;
  t.true(rows.some((r) => r.kind === 'prediction' && r.amount === -8 && r.request_id === id));
});

test.serial('upload puts a local file through the upload address and prints its URL', async (t) => {
  const { account } = await registered(0);
  const file = path.join(dir, `${uniqueName('up')}.png`);
  const png = Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8cfc0f01f0005000201d2ea1e5b0000000049454e44ae426082', 'hex');
  fs.writeFileSync(file, png);
  const up = await cli(['upload', file, '--json'], { env: { MEDIAGATE_API_KEY: account.liveKey } });
  t.is(up.code, 0, up.stderr);
  const { url, bytes } = JSON.parse(up.stdout) as { url: string; bytes: number };
  t.is(bytes, png.length);
  const back = await fetch(url);
  t.is(back.status, 200);
  t.deepEqual(Buffer.from(await back.arrayBuffer()), png);
  const refused = await cli(['upload', path.join(dir, 'missing.png')], { env: { MEDIAGATE_API_KEY: account.liveKey } });
  t.is(refused.code, 2);
});

test.serial('upload declares the file\'s size: a file over its media type\'s limit is refused before any address is issued', async (t) => {
  const { account } = await registered(0);
  const file = path.join(dir, `${uniqueName('big')}.png`);
  fs.writeFileSync(file, Buffer.alloc(20 * 1024 * 1024 + 1));
  try {
    const up = await cli(['upload', file], { env: { MEDIAGATE_API_KEY: account.liveKey } });
    t.is(up.code, 8, up.stderr);
    t.regex(up.stderr, /at most 20971520 bytes; this file has 20971521/);
    // on S3-compatible storage the declared size is what lets the store refuse a larger PUT itself
    t.is((await gw.app.db('uploads').where({ user_id: account.userId }).count({ n: '*' }).first())!.n, 0, 'no upload address was issued');
  } finally {
    fs.rmSync(file, { force: true });
  }
});

test.serial('upload refuses a file over its limit before reading it: one larger than memory takes is refused by its declared size', async (t) => {
  const { account } = await registered(0);
  const file = path.join(dir, `${uniqueName('huge')}.png`);
  // sparse: 3 GiB on disk costs nothing, but is more than one read into memory can take
  fs.closeSync(fs.openSync(file, 'w'));
  fs.truncateSync(file, 3 * 1024 ** 3);
  try {
    const up = await cli(['upload', file], { env: { MEDIAGATE_API_KEY: account.liveKey } });
    t.is(up.code, 8, up.stderr);
    t.regex(up.stderr, /at most 20971520 bytes/);
  } finally {
    fs.rmSync(file, { force: true });
  }
});

test.serial('operator commands: admin grant and admin topup run with the gateway environment', async (t) => {
  const { email, account } = await registered(0);
  const env = { ...gw.env };
  const grant = await cli(['admin', 'grant', email, 'billing'], { env });
  t.is(grant.code, 0, grant.stderr);
  t.is((await gw.app.db('users').where({ id: account.userId }).first()).role, 'billing');
  const topup = await cli(['admin', 'topup', email, '750', '--reason', 'goodwill'], { env });
  t.is(topup.code, 0, topup.stderr);
  t.regex(topup.stdout, /\+750 credits, balance 750/);
  const balance = await cli(['balance', '--json'], { env: { MEDIAGATE_API_KEY: account.liveKey } });
  t.like(JSON.parse(balance.stdout), { balance: 750 });
  t.is((await cli(['admin', 'topup', email, '750'], { env })).code, 2, 'a reason is required');
  t.is((await cli(['admin', 'topup', 'nobody@example.com', '5', '--reason', 'x'], { env })).code, 5);
});
