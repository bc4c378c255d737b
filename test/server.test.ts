// Slow and malformed requests over real sockets (node:net): a body trickled in answers 408
// after PAYLOAD_TIMEOUT_MS, logged below error, on every route that reads one (raw-body routes
// too, which never get the part that came; an upload only when its body stops arriving or is
// past its deadline, and one that keeps arriving is not cut at the 30 s answer deadline), and
// a Content-Length over a route's limit is 413 at once; errors of Node's HTTP parser (malformed request
// line, oversized headers) answer a JSON body; a body without Content-Type is 415; a crashed
// handler is logged by the app alone.
// SQLite, in-process queue, a listening server on an ephemeral port.
import test from 'ava';
import net from 'node:net';
import { Writable } from 'node:stream';
import type { Readable } from 'node:stream';
import type { Request } from '@hapi/hapi';
import pino from 'pino';
import { startGateway, newAccount } from './helpers/gateway.ts';
import type { Account, TestGateway } from './helpers/gateway.ts';
import { createClient } from './helpers/oauth.ts';
import type { CreatedClient } from './helpers/oauth.ts';
import { EXPECTATION_DETAIL, MISSING_HOST_DETAIL, SERVER_TIMEOUT_DETAIL } from '../plugins/responses.ts';
import { uploadDeadlineMs } from '../lib/uploads.ts';

let gw: TestGateway;
let port: number;
/** accounts of the tests below that need one: [OAuth, upload stalls, upload sizes, 415] */
const accounts: Account[] = [];
let oauthClient: CreatedClient;
let slow: TestGateway;
let slowAccount: Account;
const slowLines: Array<{ level: number; msg: string }> = [];
type Line = { level: number; msg: string } & Record<string, unknown>;
const lines: Line[] = [];
let onLine: ((line: Line) => void) | undefined;
test.before(async () => {
  const sink = new Writable({ write(chunk, _enc, done) { const line = JSON.parse(String(chunk)) as Line; lines.push(line); onLine?.(line); done(); } });
  gw = await startGateway({ db: 'sqlite', queue: 'memory', env: { PORT: '0', HOST: '127.0.0.1', PAYLOAD_TIMEOUT_MS: '300' }, log: pino({ level: 'debug' }, sink) });
  await gw.server.start();
  port = gw.server.info.port as number;
  // Before any test, one at a time: one of them holds every registration until a body times out,
  // and an injected body still unread after PAYLOAD_TIMEOUT_MS (300) is cut like a slow one.
  for (let i = 0; i < 4; i++) accounts.push(await newAccount(gw));
  oauthClient = await createClient(gw, accounts[0]!.session, ['account:read', 'generate:read']);
  // The long upload's gateway, with the default PAYLOAD_TIMEOUT_MS (10 s), started here too: a
  // start-up while the tests run holds the event loop long enough to cut their 300 ms bodies.
  slow = await startGateway({ db: 'sqlite', queue: 'memory', env: { PORT: '0', HOST: '127.0.0.1' }, log: pino({ level: 'info' }, new Writable({ write(chunk, _enc, done) { slowLines.push(JSON.parse(String(chunk)) as Line); done(); } })) });
  await slow.server.start();
  slowAccount = await newAccount(slow);
});
test.after.always(async () => {
  await Promise.all([gw?.stop(), slow?.stop()]);
});

interface RawResponse { status: number; headers: Record<string, string>; body: string }

/** Writes `head` (then `trickle`, one byte every 50 ms, while the socket is open) and reads the whole answer until the server closes. */
function raw(head: string, trickle = ''): Promise<RawResponse> {
  return rawTo(port, head, trickle, 50);
}

/** raw() to another gateway's port, the trickle one byte every `everyMs`; `written` gets the socket once `head` is written. */
function rawTo(toPort: number, head: string, trickle: string, everyMs: number, written?: (socket: net.Socket) => void): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(toPort, '127.0.0.1');
    const chunks: Buffer[] = [];
    let timer: NodeJS.Timeout | undefined;
    socket.on('data', (c) => chunks.push(c));
    // the server closing while the trickle still writes: the answer is what was read
    socket.on('error', (err: NodeJS.ErrnoException) => { if (err.code !== 'EPIPE' && err.code !== 'ECONNRESET') reject(err); });
    socket.on('close', () => {
      clearInterval(timer);
      // an interim 100 Continue (a request with Expect: 100-continue) before the answer
      const text = Buffer.concat(chunks).toString('utf8').replace(/^HTTP\/1\.1 100 Continue\r\n\r\n/, '');
      const [headPart = '', body = ''] = text.split('\r\n\r\n', 2) as [string?, string?];
      const [statusLine = '', ...headerLines] = headPart.split('\r\n');
      const headers = Object.fromEntries(headerLines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body });
    });
    socket.write(head);
    written?.(socket);
    let i = 0;
    if (trickle) timer = setInterval(() => { if (socket.writable && i < trickle.length) socket.write(trickle[i++]!); }, everyMs);
  });
}

test('a body sent byte by byte answers 408 {"detail"} after the payload timeout, logged below error', async (t) => {
  lines.length = 0;
  const body = JSON.stringify({ email: 'slow@example.com', password: 'x'.repeat(200) });
  const res = await raw(`POST /auth/login HTTP/1.1\r\nHost: gw\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`, body);
  t.is(res.status, 408);
  t.regex(res.headers['content-type'] ?? '', /application\/json/);
  t.deepEqual(JSON.parse(res.body), { detail: 'request body not received in time', code: 'request_timeout' });
  t.true(lines.some((l) => l.msg === 'request body not received in time' && l.level < 50 && l.path === '/auth/login'));
  t.false(lines.some((l) => l.level >= 50), JSON.stringify(lines.filter((l) => l.level >= 50)));
});

test('a slow body to a path with no route also answers 408 after the payload timeout', async (t) => {
  const body = 'x'.repeat(100);
  const res = await raw(`POST /no/such/route HTTP/1.1\r\nHost: gw\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`, body);
  t.is(res.status, 408);
  t.deepEqual(JSON.parse(res.body), { detail: 'request body not received in time', code: 'request_timeout' });
});

test('a body that times out before anything reads it (authentication still running) also answers 408', async (t) => {
  // Holds /auth/register in onPreAuth until the payload timer has fired: no sleeps, an event.
  const timedOut = new Promise<void>((resolve) => { onLine = (l) => { if (l.msg === 'request body not received in time') resolve(); }; });
  t.teardown(() => { onLine = undefined; });
  let serverTimedOut = false;
  gw.server.events.on({ name: 'request', channels: 'internal' }, (request, event) => {
    // this request's own (another test times a route out on purpose)
    if (request.path === '/auth/register' && event.tags.includes('timeout')) serverTimedOut = true;
  });
  gw.server.ext('onPreAuth', async (request, h) => {
    if (request.path === '/auth/register') await timedOut;
    return h.continue;
  });
  const body = JSON.stringify({ email: 'held@example.com', password: 'a long enough password' });
  // announces more than it sends: the body never completes on its own
  const res = await raw(`POST /auth/register HTTP/1.1\r\nHost: gw\r\nContent-Type: application/json\r\nContent-Length: ${body.length + 1000}\r\n\r\n`, body);
  t.is(res.status, 408, res.body);
  t.deepEqual(JSON.parse(res.body), { detail: 'request body not received in time', code: 'request_timeout' });
  // answered by the payload timeout, not by hapi's 30 s server timeout (which logs a 'timeout' event)
  t.false(serverTimedOut);
});

test('a malformed request line answers 400 with a JSON body', async (t) => {
  const res = await raw('THIS IS NOT HTTP\r\n\r\n');
  t.is(res.status, 400);
  t.regex(res.headers['content-type'] ?? '', /application\/json/);
  t.deepEqual(JSON.parse(res.body), { detail: 'malformed HTTP request', code: 'invalid_input' });
});

test('an HTTP/1.1 request without Host answers 400 with a JSON body (Node\'s own answer had none); HTTP/1.0 needs no Host', async (t) => {
  const body = JSON.stringify({ email: 'nobody@example.com', password: 'whatever password' });
  for (const head of [
    'GET /livez HTTP/1.1\r\n\r\n',
    'GET /livez HTTP/1.1\r\nHost:\r\n\r\n',
    `POST /auth/login HTTP/1.1\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
  ]) {
    const res = await raw(head);
    t.is(res.status, 400, head);
    t.regex(res.headers['content-type'] ?? '', /application\/json/);
    t.deepEqual(JSON.parse(res.body), { detail: MISSING_HOST_DETAIL, code: 'invalid_input' });
    t.is(res.headers.connection, 'close');
    t.truthy(res.headers['x-request-id']);
  }
  const old = await raw('GET /livez HTTP/1.0\r\n\r\n');
  t.is(old.status, 200, old.body);
  t.false(lines.some((l) => l.level >= 50), JSON.stringify(lines.filter((l) => l.level >= 50)));
});

test('an Expect other than 100-continue answers 417 with a JSON body (Node\'s own answer had none); 100-continue still goes through', async (t) => {
  const body = JSON.stringify({ email: 'nobody@example.com', password: 'whatever password' });
  const res = await raw(`POST /auth/login HTTP/1.1\r\nHost: gw\r\nExpect: 999-xyz\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`);
  t.is(res.status, 417, res.body);
  t.regex(res.headers['content-type'] ?? '', /application\/json/);
  t.deepEqual(JSON.parse(res.body), { detail: EXPECTATION_DETAIL, code: 'invalid_input' });
  t.is(res.headers.connection, 'close');
  t.truthy(res.headers['x-request-id']);
  t.true(lines.some((l) => l.msg === 'malformed request refused' && l.status === 417 && l.level < 50));
  const cont = await raw(`POST /auth/login HTTP/1.1\r\nHost: gw\r\nConnection: close\r\nExpect: 100-continue\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`);
  t.is(cont.status, 401, cont.body);
  t.false(lines.some((l) => l.level >= 50), JSON.stringify(lines.filter((l) => l.level >= 50)));
});

test('oversized headers answer 431 with a JSON body', async (t) => {
  const res = await raw(`GET /health HTTP/1.1\r\nHost: gw\r\nX-Big: ${'a'.repeat(64 * 1024)}\r\n\r\n`);
  t.is(res.status, 431);
  t.deepEqual(JSON.parse(res.body), { detail: 'request header fields too large', code: 'headers_too_large' });
});

test('a body without Content-Type is 415; a bodyless POST without it is not refused', async (t) => {
  const body = JSON.stringify({ email: 'nobody@example.com', password: 'whatever password' });
  const res = await raw(`POST /auth/login HTTP/1.1\r\nHost: gw\r\nConnection: close\r\nContent-Length: ${body.length}\r\n\r\n${body}`);
  t.is(res.status, 415);
  const detail = (JSON.parse(res.body) as { detail: Array<{ loc: string[]; type: string }> }).detail;
  t.deepEqual(detail[0]?.loc, ['body']);
  t.is(detail[0]?.type, 'content_type');
  const acct = accounts[3]!;
  const logout = await raw(`POST /auth/logout HTTP/1.1\r\nHost: gw\r\nConnection: close\r\nAuthorization: Bearer ${acct.session}\r\n\r\n`);
  t.true(logout.status < 300, `${logout.status} ${logout.body}`);
});

const TIMED_OUT = { detail: 'request body not received in time', code: 'request_timeout' };

test('a slow body to a route that reads it without parsing (the OAuth token endpoint) answers 408; the token endpoint never gets the part that came', async (t) => {
  // The raw body is handed to oidc-provider: a body cut short must fail, never reach it as if it
  // were whole. Cut after the client's credentials this one would ask a token for every scope the
  // client has (a token request without `scope` gets them all).
  const client = oauthClient;
  const credentials = `grant_type=client_credentials&client_id=${encodeURIComponent(client.client_id)}&client_secret=${encodeURIComponent(client.client_secret)}`;
  const scope = '&scope=account:read';
  const tokens = async () => (await gw.app.db('oauth_provider_records').where({ kind: 'ClientCredentials' }).select('payload'))
    .filter((r: { payload: string }) => r.payload.includes(client.client_id)).length;
  const head = `POST /oauth/token HTTP/1.1\r\nHost: gw\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: ${credentials.length + scope.length}\r\n\r\n`;
  // the credentials at once, then the scope one byte per 50 ms: past PAYLOAD_TIMEOUT_MS (300)
  const started = Date.now();
  const res = await raw(head + credentials, scope);
  t.is(res.status, 408, res.body);
  t.regex(res.headers['content-type'] ?? '', /application\/json/);
  t.deepEqual(JSON.parse(res.body), TIMED_OUT);
  t.true(Date.now() - started >= 250, 'not before the payload timeout');
  t.is(await tokens(), 0, 'no token was issued for the part of the body that came');
  t.true(lines.some((l) => l.msg === 'request body not received in time' && l.level < 50 && l.path === '/oauth/token'));
  t.false(lines.some((l) => l.level >= 50 && l.path === '/oauth/token'));
  // the whole body in time: oidc-provider's own answer, with the scope asked for
  const whole = await raw(`${head.replace('HTTP/1.1\r\n', 'HTTP/1.1\r\nConnection: close\r\n')}${credentials}${scope}`);
  t.is(whole.status, 200, whole.body);
  t.is((JSON.parse(whole.body) as { scope?: string }).scope, 'account:read');
  t.is(await tokens(), 1);
});

test('a body that stops short on a route that reads its raw bytes (the Stripe and provider webhooks) answers 408 after the payload timeout', async (t) => {
  // announced 100 bytes, sent 2: until now no answer for 30 s, then 503 "no answer in time" and a warning
  for (const path of ['/api/v1/payment-webhooks/stripe', '/api/v1/upstream-webhooks/replicate/pred1.abc']) {
    const started = Date.now();
    const res = await raw(`POST ${path} HTTP/1.1\r\nHost: gw\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{}`);
    const took = Date.now() - started;
    t.is(res.status, 408, `${path}: ${res.body}`);
    t.deepEqual(JSON.parse(res.body), TIMED_OUT, path);
    t.true(took >= 250, `${path}: answered after ${took} ms, before the payload timeout`);
    t.true(took < 10_000, `${path}: answered after ${took} ms`);
  }
  t.true(lines.some((l) => l.msg === 'request body not received in time' && l.level < 50 && l.path === '/api/v1/payment-webhooks/stripe'));
  t.false(lines.some((l) => l.level >= 50 && typeof l.path === 'string' && l.path.startsWith('/api/v1/')), JSON.stringify(lines.filter((l) => l.level >= 50)));
  t.false(lines.some((l) => l.msg.startsWith('no answer within the server timeout') && typeof l.path === 'string' && l.path.startsWith('/api/v1/')));
});

test.serial('a body that came in time is not cut because the event loop was busy when its timer came due', async (t) => {
  // The rest of the body is in the socket 100 ms after the headers, within PAYLOAD_TIMEOUT_MS
  // (300), but this process is busy until 450 ms: its timers run before the loop reads sockets
  // again, so the payload timer found the body short and answered 408 for a body that had come.
  const body = JSON.stringify({ email: 'nobody@example.com', password: 'whatever password' });
  const head = `POST /auth/login HTTP/1.1\r\nHost: gw\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`;
  const res = await rawTo(port, head + body.slice(0, 5), '', 50, (socket) => {
    // written after this turn's reads (setImmediate), then busy: the next turn runs the payload
    // timer, due by then, before it reads the socket
    setTimeout(() => setImmediate(() => {
      socket.write(body.slice(5));
      const until = Date.now() + 350;
      while (Date.now() < until) { /* busy: the event loop reads nothing */ }
    }), 100);
  });
  t.is(res.status, 401, res.body);
  // serial: before the other tests, which the busy loop would hold too
  t.false(lines.some((l) => l.msg === 'request body not received in time' && l.path === '/auth/login'));
});

/** A fresh upload address (local storage: the gateway's own PUT /uploads/<token>) and its path. */
async function uploadAddress(key: string, filename = 'cat.png', on: TestGateway = gw): Promise<string> {
  const res = await on.server.inject({ method: 'GET', url: `/app/get_file_upload_url?filename=${filename}`, headers: { 'x-api-key': key } });
  if (res.statusCode !== 200) throw new Error(res.payload);
  return new URL((JSON.parse(res.payload) as { upload_url: string }).upload_url).pathname;
}

test('an upload whose body stops arriving answers 408 and leaves the address usable; one that keeps arriving, however slowly, is not cut', async (t) => {
  const acct = accounts[1]!;
  const path = await uploadAddress(acct.liveKey);
  const started = Date.now();
  const stalled = await raw(`PUT ${path} HTTP/1.1\r\nHost: gw\r\nContent-Type: image/png\r\nContent-Length: 100\r\n\r\nxx`);
  const took = Date.now() - started;
  t.is(stalled.status, 408, stalled.body);
  t.deepEqual(JSON.parse(stalled.body), TIMED_OUT);
  t.true(took >= 250 && took < 10_000, `answered after ${took} ms`);
  t.true(lines.some((l) => l.msg === 'request body not received in time' && l.level < 50 && l.path === '/uploads/{token}'));
  // a body still arriving is not the client stalling: 20 bytes at one per 50 ms, past PAYLOAD_TIMEOUT_MS (300)
  const body = 'z'.repeat(20);
  const slow = await raw(`PUT ${path} HTTP/1.1\r\nHost: gw\r\nConnection: close\r\nContent-Type: image/png\r\nContent-Length: ${body.length}\r\n\r\n`, body);
  t.is(slow.status, 200, slow.body);
  t.like(JSON.parse(slow.body), { size_bytes: 20 });
  t.false(lines.some((l) => l.level >= 50 && l.path === '/uploads/{token}'));
});

test('an upload whose Content-Length is over every limit answers 413 on the header, without waiting for the body', async (t) => {
  const acct = accounts[2]!;
  const path = await uploadAddress(acct.liveKey);
  const huge = await raw(`PUT ${path} HTTP/1.1\r\nHost: gw\r\nContent-Type: image/png\r\nContent-Length: 999999999999\r\n\r\nxx`);
  t.is(huge.status, 413, huge.body);
  t.like(JSON.parse(huge.body), { code: 'payload_too_large' });
  // over the image limit only (20 MiB): the upload's own 413, as before
  const over = await raw(`PUT ${path} HTTP/1.1\r\nHost: gw\r\nContent-Type: image/png\r\nContent-Length: ${21 * 1024 * 1024}\r\n\r\nxx`);
  t.is(over.status, 413, over.body);
  t.regex((JSON.parse(over.body) as { detail: string }).detail, /image uploads may be at most/);
  // neither used the address up
  const ok = await raw(`PUT ${path} HTTP/1.1\r\nHost: gw\r\nConnection: close\r\nContent-Type: image/png\r\nContent-Length: 2\r\n\r\nxx`);
  t.is(ok.status, 200, ok.body);
});

test('a Content-Length over a route\'s body limit answers 413 on the header, on every route, without waiting for the body', async (t) => {
  // MAX_BODY_BYTES (1 MiB by default) announced and more, a few bytes sent: hapi's own 413 waited
  // for the whole body, so these answered the payload timeout's 408 instead
  const declared = 2 * 1024 * 1024;
  const cases: Array<[string, string, string]> = [
    ['POST', '/auth/login', 'application/json'],
    ['POST', '/oauth/token', 'application/x-www-form-urlencoded'],
    ['POST', '/api/v1/payment-webhooks/stripe', 'application/json'],
    ['POST', '/api/v1/canvas-v1-fast-text-to-image', 'application/json'],
    ['POST', '/v1/chat/completions', 'application/json'],
    ['DELETE', '/app/delete_api_keys/1', 'application/json'],
  ];
  for (const [method, path, type] of cases) {
    const res = await raw(`${method} ${path} HTTP/1.1\r\nHost: gw\r\nContent-Type: ${type}\r\nContent-Length: ${declared}\r\n\r\n{"`);
    const what = `${method} ${path}: ${res.body}`;
    t.is(res.status, 413, what);
    t.regex(res.headers['content-type'] ?? '', /application\/json/, what);
    t.is(res.headers.connection, 'close', what);
    const body = JSON.parse(res.body) as { code?: string; detail?: string; error?: { code: string; message: string } };
    // the OpenAI-compatible routes answer in OpenAI's body
    const [code, detail] = path.startsWith('/v1/') ? [body.error?.code, body.error?.message] : [body.code, body.detail];
    t.is(code, 'payload_too_large', what);
    t.is(detail, `request body too large: this route takes at most 1048576 bytes, and the Content-Length header announces ${declared}`, what);
    // answered on the header, not by the payload timeout
    t.false(lines.some((l) => l.msg === 'request body not received in time' && l.path === path), what);
  }
  t.false(lines.some((l) => l.level >= 50), JSON.stringify(lines.filter((l) => l.level >= 50)));
  // a body within the limit still reaches the route
  const body = JSON.stringify({ email: 'nobody@example.com', password: 'whatever password' });
  const ok = await raw(`POST /auth/login HTTP/1.1\r\nHost: gw\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`);
  t.is(ok.status, 401, ok.body);
});

test('a large body for no route (an unknown path, or a method its path does not take) answers 404 or 405 on the header, without waiting for the body', async (t) => {
  // hapi drained the whole announced body before its 404: here 2 MiB announced, a few bytes sent
  const cases: Array<[string, string, number]> = [['POST', '/nothing/at/all', 404], ['PUT', '/v1/nothing/here', 404], ['POST', '/api/v1/models', 405], ['PATCH', '/dashboard/x', 405]];
  for (const [method, path, status] of cases) {
    const res = await raw(`${method} ${path} HTTP/1.1\r\nHost: gw\r\nContent-Type: application/json\r\nContent-Length: ${2 * 1024 * 1024}\r\n\r\n{"`);
    const what = `${method} ${path}: ${res.body}`;
    t.is(res.status, status, what);
    t.is(res.headers.connection, 'close', what);
    t.regex(res.headers['content-type'] ?? '', /application\/json/, what);
    t.false(lines.some((l) => l.msg === 'request body not received in time' && l.path === path), what);
  }
  // a small body there is still read and answered 404 on an open connection, as before
  const small = await raw(`POST /nothing/at/all HTTP/1.1\r\nHost: gw\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}`);
  t.is(small.status, 404, small.body);
  t.like(JSON.parse(small.body), { code: 'not_found' });
});

test('a method a known path does not take is 405 method_not_allowed with Allow; an unknown path stays 404', async (t) => {
  const key = { 'x-api-key': accounts[0]!.liveKey };
  const cases: Array<[string, string, string]> = [
    ['DELETE', '/account/balance', 'GET, HEAD'],
    ['GET', '/api/v1/canvas-v1-fast-text-to-image', 'POST'],
    ['PUT', '/app/teams', 'GET, HEAD, POST'],
  ];
  for (const [method, url, allow] of cases) {
    const res = await gw.server.inject({ method, url, headers: key });
    t.is(res.statusCode, 405, `${method} ${url}: ${res.payload}`);
    t.deepEqual(JSON.parse(res.payload), { detail: `${method} is not allowed on ${url}; it takes ${allow}`, code: 'method_not_allowed' });
    t.is(res.headers.allow, allow);
  }
  const unknown = await gw.server.inject({ method: 'DELETE', url: '/nothing/at/all', headers: key });
  t.is(unknown.statusCode, 404);
  t.is(unknown.headers.allow, undefined);
  // the OpenAI-compatible routes answer it in OpenAI's body
  const openai = await gw.server.inject({ method: 'GET', url: '/v1/chat/completions', headers: key });
  t.is(openai.statusCode, 405, openai.payload);
  t.is(openai.headers.allow, 'POST');
});

test('an upload that keeps arriving for longer than the server\'s 30 s answer deadline succeeds', async (t) => {
  // a gateway of its own with the default PAYLOAD_TIMEOUT_MS (10 s): one byte a second for 36 s,
  // never a 10 s gap. The server's answer deadline (30 s) cut it with 503 "may still complete".
  const path = await uploadAddress(slowAccount.liveKey, 'long.png', slow);
  const body = 'v'.repeat(36);
  const res = await rawTo(slow.server.info.port as number, `PUT ${path} HTTP/1.1\r\nHost: gw\r\nConnection: close\r\nContent-Type: image/png\r\nContent-Length: ${body.length}\r\n\r\n`, body, 1000);
  t.is(res.status, 200, res.body);
  t.like(JSON.parse(res.body), { size_bytes: body.length });
  t.false(slowLines.some((l) => l.level >= 40), JSON.stringify(slowLines.filter((l) => l.level >= 40)));
});

test('an upload may take as long as its size at the slowest rate allowed (at least 5 minutes): the server\'s deadlines and Node\'s outlast the longest', (t) => {
  t.is(uploadDeadlineMs(20), 5 * 60_000);
  t.is(uploadDeadlineMs(20 * 1024 * 1024), 5 * 60_000);
  t.is(uploadDeadlineMs(500 * 1024 * 1024), 5120_000);
  const longest = uploadDeadlineMs(500 * 1024 * 1024);
  const route = gw.server.table().find((r) => r.path === '/uploads/{token}')!;
  const timeout = route.settings.timeout as { server: number; socket: number };
  t.true(timeout.server > longest && timeout.socket > timeout.server, JSON.stringify(timeout));
  t.true(gw.server.listener.requestTimeout > longest, String(gw.server.listener.requestTimeout));
  // the announced size picks the deadline; without one, the largest limit
  const deadline = route.settings.app!.payloadDeadlineMs!;
  t.is(deadline({ headers: { 'content-length': String(100 * 1024 * 1024) } } as unknown as Request), 1024_000);
  t.is(deadline({ headers: {} } as unknown as Request), longest);
});

test('a body past its route\'s deadline answers 408 saying how long it may take, even while it keeps arriving', async (t) => {
  // a route of this test's own with the upload route's settings and a 600 ms deadline
  gw.server.route({
    method: 'PUT', path: '/test/deadline',
    options: {
      payload: { output: 'stream', parse: false, timeout: false },
      app: { payloadTimeout: 'idle', payloadDeadlineMs: () => 600 },
      // reads the body as the upload route does, without destroying the request (and its socket) on its error
      handler: (request) => new Promise((resolve, reject) => {
        const req = request.payload as Readable;
        req.on('data', () => {});
        req.once('end', () => resolve({ whole: true }));
        req.once('error', reject);
      }),
    },
  });
  // one byte every 50 ms for 1.5 s: never idle for PAYLOAD_TIMEOUT_MS (300), past the deadline
  const body = 'd'.repeat(30);
  const res = await raw(`PUT /test/deadline HTTP/1.1\r\nHost: gw\r\nContent-Type: application/octet-stream\r\nContent-Length: ${body.length}\r\n\r\n`, body);
  t.is(res.status, 408, res.body);
  t.deepEqual(JSON.parse(res.body), { detail: 'request body not received in time: the whole body may take at most 1 s', code: 'request_timeout' });
  t.true(lines.some((l) => l.msg === 'request body not received in time' && l.level < 50 && l.path === '/test/deadline' && l.deadlineMs === 600));
});

test('a handler slower than the payload timeout, after the whole body arrived, is not cut', async (t) => {
  // the timer is cleared when the body ends; holding the request past PAYLOAD_TIMEOUT_MS (300) after that must not answer 408
  gw.server.ext('onPreHandler', async (request, h) => {
    if (request.path === '/auth/login' && request.headers['x-test-hold'] === '1') await new Promise((r) => setTimeout(r, 500));
    return h.continue;
  });
  const body = JSON.stringify({ email: 'held-handler@example.com', password: 'not the password' });
  const res = await raw(`POST /auth/login HTTP/1.1\r\nHost: gw\r\nConnection: close\r\nX-Test-Hold: 1\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`);
  t.not(res.status, 408, res.body);
  t.is(res.status, 401, res.body);
});

test('a log line names a callback route by its template, never the token its address holds', async (t) => {
  gw.server.route({ method: 'GET', path: '/test/slow-callback/{provider}/{token}', options: { timeout: { server: 100 } }, handler: async () => { await new Promise((r) => setTimeout(r, 400)); return { late: true }; } });
  const token = 'pred123.c2VjcmV0LW1hYy1vZi10aGUtY2FsbGJhY2s';
  const res = await gw.server.inject({ method: 'GET', url: `/test/slow-callback/replicate/${token}` });
  t.is(res.statusCode, 503, res.payload);
  t.true(lines.some((l) => l.level === 40 && l.msg.startsWith('no answer within the server timeout') && l.path === '/test/slow-callback/{provider}/{token}'));
  t.false(lines.some((l) => JSON.stringify(l).includes(token)));
});

test('a request the server does not answer in time gets 503 saying it may still complete (retry only with the same Idempotency-Key), logged as a warning', async (t) => {
  // hapi's server timeout (30 s on every route, server.ts) answered by the errors plugin; a route of this test's own with a short one
  gw.server.route({ method: 'GET', path: '/test/slow', options: { timeout: { server: 100 } }, handler: async () => { await new Promise((r) => setTimeout(r, 400)); return { late: true }; } });
  const res = await gw.server.inject({ method: 'GET', url: '/test/slow' });
  t.is(res.statusCode, 503, res.payload);
  const body = JSON.parse(res.payload) as { detail: string; code: string };
  t.is(body.code, 'unavailable');
  t.is(body.detail, SERVER_TIMEOUT_DETAIL);
  t.regex(body.detail, /may still complete.*same Idempotency-Key/);
  t.true(lines.some((l) => l.level === 40 && l.msg.startsWith('no answer within the server timeout') && l.path === '/test/slow'));
});

test('a handler that crashes is logged once, as JSON on the app\'s logger, never by hapi on the console with its stack', async (t) => {
  // a gateway of its own: the other tests check that nothing here logs an error
  const own: Line[] = [];
  const sink = new Writable({ write(chunk, _enc, done) { own.push(JSON.parse(String(chunk)) as Line); done(); } });
  const crashing = await startGateway({ db: 'sqlite', queue: 'memory', log: pino({ level: 'info' }, sink) });
  t.teardown(() => crashing.stop());
  crashing.server.route({ method: 'GET', path: '/test-only/crash', handler: () => (undefined as unknown as { x: () => string }).x() });
  const printed: unknown[][] = [];
  const consoleError = console.error;
  console.error = (...args: unknown[]) => { printed.push(args); };
  let res;
  try {
    res = await crashing.server.inject('/test-only/crash');
  } finally {
    console.error = consoleError;
  }
  t.is(res.statusCode, 500);
  t.deepEqual(JSON.parse(res.payload), { detail: 'internal server error', code: 'internal' });
  t.deepEqual(printed, [], 'nothing printed to the console');
  t.is(own.filter((l) => l.level >= 50 && l.msg === 'request failed').length, 1, 'the app logged it');
});
