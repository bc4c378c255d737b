// CORS through real preflights (server.inject, and over real HTTP for malformed paths): CORS_ORIGINS allows the listed origins on every
// spec route, a disallowed origin gets no CORS headers (never an error), no setting means
// same-origin only, and the public documents are readable from anywhere. SQLite, in-process queue.
import test from 'ava';
import http from 'node:http';
import { startGateway, newAccount } from '../helpers/gateway.ts';
import type { TestGateway } from '../helpers/gateway.ts';
import { CORS_ALLOWED_HEADERS } from '../../plugins/cors.ts';
import { captureLog } from '../helpers/logs.ts';

const APP = 'https://app.example.com';
let gw: TestGateway;
let closed: TestGateway;
/** both listen on an ephemeral port: a malformed path is sent as its raw bytes */
const LISTEN = { PORT: '0', HOST: '127.0.0.1' };
// both gateways' error-level lines: a refused preflight leaves none
const log = captureLog('error');
test.before(async () => {
  [gw, closed] = await Promise.all([
    startGateway({ db: 'sqlite', queue: 'memory', env: { ...LISTEN, CORS_ORIGINS: `${APP}, https://*.partner.test` }, log: log.log }),
    startGateway({ db: 'sqlite', queue: 'memory', env: LISTEN, log: log.log }),
  ]);
  await Promise.all([gw.server.start(), closed.server.start()]);
});
test.after.always(async () => {
  await Promise.all([gw?.stop(), closed?.stop()]);
});

// every request header the docs tell clients to send (the spec's header parameters among them)
const REQUESTED = 'x-api-key, authorization, content-type, idempotency-key, x-request-id, x-embed-code, x-agent-embed-code, x-whitelabel-studio, max-cost, prefer, x-embed-visitor';

function preflight(target: TestGateway, url: string, method: string, origin: string, headers = REQUESTED) {
  return target.server.inject({
    method: 'OPTIONS', url,
    headers: { origin, 'access-control-request-method': method, 'access-control-request-headers': headers },
  });
}

/** A concrete URL for a spec path: each {param} becomes 1. */
const concrete = (path: string) => path.replace(/\{[^}]+\}/g, '1');

test('every spec route answers its preflight for an allowed origin, with every client header allowed', async (t) => {
  const operations = gw.app.spec.operations;
  t.true(operations.length > 50);
  for (const op of operations) {
    const res = await preflight(gw, concrete(op.path), op.method.toUpperCase(), APP);
    const where = `${op.method.toUpperCase()} ${op.path}`;
    t.is(res.statusCode, 200, where);
    t.is(res.headers['access-control-allow-origin'], APP, where);
    t.is(res.headers['access-control-allow-methods'], op.method.toUpperCase(), where);
    const allowed = String(res.headers['access-control-allow-headers']).toLowerCase().split(',');
    for (const h of REQUESTED.split(', ')) t.true(allowed.includes(h), `${where}: ${h}`);
    t.is(res.headers['access-control-allow-credentials'], undefined, where);
  }
  t.true(CORS_ALLOWED_HEADERS.length >= REQUESTED.split(', ').length);
});

test('a wildcard entry allows the origins it covers', async (t) => {
  const res = await preflight(gw, '/api/v1/canvas-v1-fast-text-to-image', 'POST', 'https://studio.partner.test');
  t.is(res.headers['access-control-allow-origin'], 'https://studio.partner.test');
});

test('a disallowed origin gets no CORS headers, on the preflight and on the request, and never an error', async (t) => {
  const pre = await preflight(gw, '/api/v1/canvas-v1-fast-text-to-image', 'POST', 'https://evil.example');
  t.true(pre.statusCode < 500);
  t.is(pre.headers['access-control-allow-origin'], undefined);
  t.is(pre.headers['access-control-allow-headers'], undefined);
  const get = await gw.server.inject({ method: 'GET', url: '/health', headers: { origin: 'https://evil.example' } });
  t.is(get.statusCode, 200);
  t.is(get.headers['access-control-allow-origin'], undefined);
});

test('a preflight asking for a code header with an empty or malformed method is hapi\'s to refuse (4xx, JSON), never a 500', async (t) => {
  // an origin CORS_ORIGINS does not allow, asking for a code header: the embed preflight (plugins/credentials.ts) looks at it
  const shop = 'https://shop.example.com';
  for (const target of [gw, closed]) {
    for (const method of ['', ' ', 'PO ST', '(POST)']) {
      for (const header of ['x-embed-code', 'x-agent-embed-code, content-type']) {
        const res = await preflight(target, '/api/v1/canvas-v1-fast-text-to-image', method, shop, header);
        const what = `${target === gw ? 'CORS_ORIGINS' : 'none'}, method ${JSON.stringify(method)}, ${header}`;
        t.is(res.statusCode, 404, what);
        t.like(JSON.parse(res.payload), { code: 'not_found' }, what);
        t.is(res.headers['access-control-allow-origin'], undefined, what);
      }
    }
    // a well-formed method still gets the embed preflight (no code allows the origin: no CORS headers)
    const post = await preflight(target, '/api/v1/canvas-v1-fast-text-to-image', 'POST', shop, 'x-embed-code');
    t.is(post.statusCode, 200);
    t.is(post.headers['access-control-allow-origin'], undefined);
  }
  t.deepEqual(log.parsed<{ level: number; method?: string }>().filter((l) => l.level >= 50 && l.method === 'options'), [], 'no error-level line');
});

/** One request over a real socket, the path sent as it is written: status, headers and body. */
function overHttp(target: TestGateway, method: string, path: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port: target.server.info.port, method, path, headers: { connection: 'close', ...headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end();
  });
}

test('a preflight for a path with a malformed %-escape gets the 400 the method itself gets (JSON), never a 500', async (t) => {
  // an escape that is no hex, and a UTF-8 sequence cut short, where a path parameter goes; the
  // OpenAI-style route answers in OpenAI's body, the others in the gateway's
  const paths: Array<[string, string]> = [
    ['GET', '/api/v1/predictions/%zz/result'],
    ['GET', '/api/v1/predictions/%E0%A4%A/result'],
    ['GET', '/v1/models/%E0%A4%A'],
    ['DELETE', '/app/teams/%zz'],
  ];
  const shop = 'https://shop.example.com';
  for (const target of [gw, closed]) {
    for (const [method, path] of paths) {
      const itself = await overHttp(target, method, path);
      t.is(itself.status, 400, `${method} ${path}: ${itself.body}`);
      // an origin CORS_ORIGINS allows (hapi's preflight), and one it does not asking for a code header (the embed preflight)
      for (const [origin, asked] of [[APP, REQUESTED], [shop, 'x-embed-code'], [shop, 'content-type']] as const) {
        const what = `${target === gw ? 'CORS_ORIGINS' : 'none'}: ${method} ${path} from ${origin} asking ${asked}`;
        const pre = await overHttp(target, 'OPTIONS', path, { origin, 'access-control-request-method': method, 'access-control-request-headers': asked });
        t.is(pre.status, 400, `${what}: ${pre.body}`);
        t.regex(String(pre.headers['content-type']), /application\/json/, what);
        t.deepEqual(JSON.parse(pre.body), JSON.parse(itself.body), what);
        t.is(pre.headers['access-control-allow-methods'], undefined, what);
      }
    }
    // the same path, well formed, still gets its preflight
    const ok = await overHttp(target, 'OPTIONS', '/api/v1/predictions/abc/result', { origin: APP, 'access-control-request-method': 'GET' });
    t.is(ok.status, 200, ok.body);
    t.is(ok.headers['access-control-allow-origin'], target === gw ? APP : undefined);
  }
  t.deepEqual(log.parsed<{ level: number }>().filter((l) => l.level >= 50), [], 'no error-level line');
});

test('a header outside the allowed list fails the preflight without CORS headers', async (t) => {
  const res = await preflight(gw, '/app/user_details', 'GET', APP, 'x-api-key, x-secret-debug');
  t.true(res.statusCode < 500);
  t.is(res.headers['access-control-allow-origin'], undefined);
});

test('actual answers carry the origin and expose the request id, back-off and cost headers, errors included', async (t) => {
  const acct = await newAccount(gw, 0);
  const ok = await gw.server.inject({ method: 'POST', url: '/api/v1/canvas-v1-fast-text-to-image', headers: { origin: APP, 'x-api-key': acct.testKey }, payload: { prompt: 'cors' } });
  t.is(ok.statusCode, 200, ok.payload);
  t.is(ok.headers['access-control-allow-origin'], APP);
  const exposed = String(ok.headers['access-control-expose-headers']).toLowerCase().split(',');
  for (const h of ['x-request-id', 'retry-after', 'x-cost', 'x-balance-remaining', 'www-authenticate', 'idempotent-replayed']) t.true(exposed.includes(h), h);
  t.true(String(ok.headers.vary).toLowerCase().includes('origin'));
  const refused = await gw.server.inject({ method: 'GET', url: '/app/user_details', headers: { origin: APP } });
  t.is(refused.statusCode, 401);
  t.is(refused.headers['access-control-allow-origin'], APP, 'a browser can read the 401 and its detail');
});

test('without CORS_ORIGINS the gateway is same-origin only: preflights and answers carry no CORS headers', async (t) => {
  const pre = await preflight(closed, '/api/v1/canvas-v1-fast-text-to-image', 'POST', APP);
  t.true(pre.statusCode < 500);
  t.is(pre.headers['access-control-allow-origin'], undefined);
  t.is(pre.headers['access-control-allow-methods'], undefined);
  const get = await closed.server.inject({ method: 'GET', url: '/health', headers: { origin: APP } });
  t.is(get.headers['access-control-allow-origin'], undefined);
});

test('the spec and the docs page are readable from any origin, with or without CORS_ORIGINS', async (t) => {
  for (const target of [gw, closed]) {
    for (const url of ['/openapi.json', '/docs', '/docs/init.js', '/docs/assets/swagger-ui.css']) {
      const res = await target.server.inject({ method: 'GET', url, headers: { origin: 'https://elsewhere.example' } });
      t.is(res.statusCode, 200, url);
      t.is(res.headers['access-control-allow-origin'], 'https://elsewhere.example', url);
    }
    const pre = await preflight(target, '/openapi.json', 'GET', 'https://elsewhere.example', 'accept');
    t.is(pre.statusCode, 200);
    t.is(pre.headers['access-control-allow-origin'], 'https://elsewhere.example');
  }
});
