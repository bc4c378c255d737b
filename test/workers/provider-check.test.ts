// `npm run providers:check` (workers/provider-check.ts): the check function in-process against
// nocked providers (third-party HTTP), and the command as a real process against a local HTTP
// server standing in for both providers through their base-URL variables (nock cannot reach
// another process): its table and its exit code.
import test from 'ava';
import nock from 'nock';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { checkProviders, exitCodeOf, formatChecks, providersOfSpec } from '../../workers/provider-check.ts';
import { loadSpecDocument } from '../../spec/load.ts';

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..', '..');
const OPENAI = 'https://api.openai.test';
const REPLICATE = 'https://api.replicate.test';
const adapters = new Map([['openai', 'openai-compatible'], ['replicate', 'replicate'], ['lumen', 'http-json']]);

test.before(() => {
  nock.disableNetConnect();
  nock.enableNetConnect(/127\.0\.0\.1|localhost/);
});
test.afterEach.always(() => nock.cleanAll());
test.after.always(() => nock.enableNetConnect());

test.serial('one authenticated call per configured provider: ok, a refused key, a provider down, unconfigured and uncheckable ones', async (t) => {
  nock(OPENAI).get('/v1/models').matchHeader('authorization', 'Bearer sk-good').reply(200, { object: 'list', data: [{ id: 'gpt-image-1', object: 'model' }] });
  nock(REPLICATE).get('/v1/account').reply(401, { title: 'Unauthenticated', detail: 'You did not pass a valid authentication token', status: 401 });
  const rows = await checkProviders(new Map([
    ['openai', { url: `${OPENAI}/v1`, key: 'sk-good' }],
    ['replicate', { url: `${REPLICATE}/v1`, key: 'r8_bad_token' }],
    ['lumen', { url: 'https://lumen.test' }],
  ]), adapters);
  const by = Object.fromEntries(rows.map((r) => [r.provider, r]));
  t.like(by.openai, { configured: true, result: 'ok' });
  t.true(by.openai!.latencyMs! >= 0);
  t.like(by.replicate, { configured: true, result: 'error' });
  t.regex(by.replicate!.detail, /refused the gateway's credentials \(HTTP 401\)/);
  t.like(by.lumen, { configured: true, result: 'not checked' });
  t.is(exitCodeOf(rows), 1);
  const table = formatChecks(rows);
  t.false(table.includes('r8_bad_token') || table.includes('sk-good') || table.includes('api.replicate.test'), 'no key or URL in the table');

  nock(REPLICATE).get('/v1/account').reply(503, 'upstream connect error');
  const down = await checkProviders(new Map([['replicate', { url: `${REPLICATE}/v1`, key: 'r8_x' }]]), adapters);
  t.like(down.find((r) => r.provider === 'replicate'), { result: 'error' });
  t.like(down.find((r) => r.provider === 'openai'), { configured: false, result: '-', detail: 'set UPSTREAM_OPENAI_KEY' });
  t.is(exitCodeOf(down), 1);
  t.is(exitCodeOf(down.filter((r) => r.result !== 'error')), 0);
});

test.serial('fal is checked on its Platform API with its "Key" scheme, WaveSpeed on its balance; a refusal inside WaveSpeed\'s 200 envelope is an error', async (t) => {
  const WAVESPEED = 'https://api.wavespeed.test/api/v3';
  const fal = nock('https://api.fal.ai').get('/v1/models').query({ limit: '1' }).matchHeader('authorization', 'Key fal-id:fal-secret')
    .reply(200, { models: [{ endpoint_id: 'fal-ai/flux/dev' }], has_more: true, next_cursor: 'x' });
  const ws = nock(WAVESPEED).get('/balance').matchHeader('authorization', 'Bearer ws-good').reply(200, { code: 200, message: 'success', data: { balance: 156.78 } });
  const fa = new Map([['fal', 'fal'], ['wavespeed', 'wavespeed']]);
  const rows = await checkProviders(new Map([
    ['fal', { url: 'https://queue.fal.run', key: 'fal-id:fal-secret' }],
    ['wavespeed', { url: WAVESPEED, key: 'ws-good' }],
  ]), fa);
  t.like(rows.find((r) => r.provider === 'fal'), { adapter: 'fal', configured: true, result: 'ok' });
  t.like(rows.find((r) => r.provider === 'wavespeed'), { adapter: 'wavespeed', configured: true, result: 'ok' });
  t.true(fal.isDone() && ws.isDone());
  t.is(exitCodeOf(rows), 0);

  nock('https://api.fal.ai').get('/v1/models').query(true).reply(401, { detail: 'Invalid API key' });
  nock(WAVESPEED).get('/balance').reply(200, { code: 401, message: 'invalid authentication', data: null });
  const bad = await checkProviders(new Map([
    ['fal', { url: 'https://queue.fal.run', key: 'fal-id:wrong' }],
    ['wavespeed', { url: WAVESPEED, key: 'ws-wrong' }],
  ]), new Map());
  t.like(bad.find((r) => r.provider === 'fal'), { adapter: 'fal', result: 'error', detail: 'upstream "fal" refused the gateway\'s credentials (HTTP 401)' });
  t.like(bad.find((r) => r.provider === 'wavespeed'), { adapter: 'wavespeed', result: 'error', detail: 'upstream "wavespeed" refused the gateway\'s credentials (HTTP 401)' });
  t.is(exitCodeOf(bad), 1);
  t.false(formatChecks(bad).includes('ws-wrong') || formatChecks(bad).includes('fal-id:wrong'));

  nock(WAVESPEED).get('/balance').reply(503, 'busy');
  const down = await checkProviders(new Map([['wavespeed', { url: WAVESPEED, key: 'ws-good' }]]), fa);
  t.like(down.find((r) => r.provider === 'wavespeed'), { result: 'error' });
  t.like(down.find((r) => r.provider === 'fal'), { configured: false, result: '-', detail: 'set UPSTREAM_FAL_KEY' });
});

test('the spec names every provider with its adapter, in both x-model forms', (t) => {
  const found = providersOfSpec(loadSpecDocument(path.join(ROOT, 'spec', 'v1')) as never);
  t.is(found.get('replicate'), 'replicate');
  t.is(found.get('openai'), 'openai-compatible');
  t.is(found.get('veloce'), 'http-json');
});

/** A local stand-in for OpenAI (/openai/v1/models) and Replicate (/replicate/v1/account) that accepts one key each. */
async function standIn(keys: { openai: string; replicate: string }) {
  const server = http.createServer((req, res) => {
    const auth = req.headers.authorization;
    if (req.url === '/openai/v1/models') {
      if (auth === `Bearer ${keys.openai}`) res.writeHead(200, { 'content-type': 'application/json' }).end('{"object":"list","data":[]}');
      else res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":{"message":"Incorrect API key provided","type":"invalid_request_error","code":"invalid_api_key"}}');
      return;
    }
    if (req.url === '/replicate/v1/account') {
      if (auth === `Bearer ${keys.replicate}`) res.writeHead(200, { 'content-type': 'application/json' }).end('{"type":"organization","username":"acme","name":"Acme"}');
      else res.writeHead(401, { 'content-type': 'application/json' }).end('{"detail":"Invalid token.","status":401}');
      return;
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

function runCommand(env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['workers/provider-check.ts'], { cwd: ROOT, env: { PATH: process.env.PATH ?? '', ...env } }, (err, stdout, stderr) => {
      resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

test('the command prints the table and exits 0 when every configured provider answers, 1 when one fails', async (t) => {
  const server = await standIn({ openai: 'sk-standin-good', replicate: 'r8_standin_good' });
  t.teardown(() => server.close());
  const base = { UPSTREAM_OPENAI_URL: `${server.url}/openai/v1`, UPSTREAM_REPLICATE_URL: `${server.url}/replicate/v1` };

  const good = await runCommand({ ...base, UPSTREAM_OPENAI_KEY: 'sk-standin-good', UPSTREAM_REPLICATE_KEY: 'r8_standin_good' });
  t.is(good.code, 0, good.stderr);
  const lines = good.stdout.trim().split('\n');
  t.regex(lines[0]!, /^provider\s+adapter\s+configured\s+result\s+latency\s+detail$/);
  t.regex(good.stdout, /^openai\s+openai-compatible\s+yes\s+ok\s+\d+ ms/m);
  t.regex(good.stdout, /^replicate\s+replicate\s+yes\s+ok\s+\d+ ms/m);
  t.regex(good.stdout, /^veloce\s+http-json\s+no\s+-\s+-\s+set UPSTREAM_VELOCE_URL$/m);

  const bad = await runCommand({ ...base, UPSTREAM_OPENAI_KEY: 'sk-standin-good', UPSTREAM_REPLICATE_KEY: 'r8_standin_wrong' });
  t.is(bad.code, 1);
  t.regex(bad.stdout, /^replicate\s+replicate\s+yes\s+error\s+\d+ ms\s+upstream "replicate" refused the gateway's credentials \(HTTP 401\)$/m);
  t.false(bad.stdout.includes('r8_standin_wrong'));
  t.false(bad.stdout.includes(server.url));

  const none = await runCommand({});
  t.is(none.code, 0, 'nothing configured: nothing failed');
  t.regex(none.stdout, /^openai\s+openai-compatible\s+no\s+-\s+-\s+set UPSTREAM_OPENAI_KEY$/m);
});
