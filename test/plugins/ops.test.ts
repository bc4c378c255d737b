// Operating the gateway: the request log and request ids, /metrics after a scripted run, the
// metrics token, /livez and /readyz (with RabbitMQ really unreachable), a worker's health port.
// MariaDB and RabbitMQ; the pino output is captured in-process.
import test from 'ava';
import { captureLog } from '../helpers/logs.ts';
import net from 'node:net';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { startGateway, newAccount } from '../helpers/gateway.ts';
import type { TestGateway } from '../helpers/gateway.ts';
import { AMQP_URL, deleteTopology, freshDatabase, uniqueName, waitFor } from '../helpers/services.ts';
import { startReceiver } from '../helpers/receiver.ts';
import { start } from '../../main.ts';
import { stallingRelay } from '../helpers/amqp-relay.ts';
import { QUEUE_CHECK_TIMEOUT_MS } from '../../workers/queue/amqp/topology.ts';
import { loadConfig } from '../../config.ts';
import { topics } from '../../app.ts';
import { newPredictionId } from '../../db/predictions/record.ts';

const METRICS_TOKEN = 'scrape-token-0123456789abcdef';
const MODEL = 'canvas-v1-fast-text-to-image';

type Line = Record<string, unknown> & { msg?: string; reqId?: string };

function capture() {
  const c = captureLog('info');
  return { ...c, parsed: () => c.parsed<Line>() };
}

/** The value of one sample of the exposition text, e.g. sample(text, 'x_total', { a: 'b' }). */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const have = Object.fromEntries([...(m[2] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((x) => [x[1], x[2]]));
    if (Object.entries(labels).every(([k, v]) => have[k] === v)) return Number(m[3]);
  }
  return undefined;
}

let gw: TestGateway;
let logs: ReturnType<typeof capture>;
test.before(async () => {
  logs = capture();
  gw = await startGateway({ worker: true, log: logs.log, env: { METRICS_TOKEN, WEBHOOK_ALLOW_INSECURE: 'true' } });
});
test.after.always(async () => {
  await gw?.stop();
});

const scrape = (headers: Record<string, string> = { authorization: `Bearer ${METRICS_TOKEN}` }) => gw.server.inject({ method: 'GET', url: '/metrics', headers });

// Serial: it runs before the others, whose requests would move its counters.
test.serial('a scripted run (a local model submitted, completed, its webhook delivered) shows in the metrics, and its request id is in the API, worker and webhook lines', async (t) => {
  const acct = await newAccount(gw, 50_000);
  const receiver = await startReceiver();
  try {
    const reqId = `run-${uniqueName('r')}`;
    const submit = await gw.server.inject({
      method: 'POST',
      url: `/api/v1/${MODEL}?webhook=${encodeURIComponent(receiver.url)}`,
      headers: { 'x-api-key': acct.liveKey, 'x-request-id': reqId },
      payload: { prompt: 'metrics', width: 64, height: 64 },
    });
    t.is(submit.statusCode, 200, submit.payload);
    t.is(submit.headers['x-request-id'], reqId);
    const id = (submit.result as { request_id: string }).request_id;
    await waitFor(() => receiver.received.length === 1, { what: 'the webhook' });
    const webhookLine = await waitFor(() => logs.parsed().find((l) => l.msg === 'webhook attempt' && l.reqId === reqId), { what: 'the webhook attempt line' });
    t.is(webhookLine.outcome, 'delivered');
    t.is(webhookLine.prediction, id);
    t.false('url' in webhookLine);

    const lines = logs.parsed().filter((l) => l.reqId === reqId);
    const api = lines.find((l) => l.msg === 'request completed');
    t.like(api, { method: 'POST', route: MODEL, callerId: acct.userId, res: { statusCode: 200 } });
    t.is(typeof api?.responseTime, 'number');
    t.is(typeof api?.keyId, 'number');
    t.like(lines.find((l) => l.msg === 'prediction completed'), { id, model: MODEL });

    const res = await scrape();
    t.is(res.statusCode, 200);
    t.regex(String(res.headers['content-type']), /^text\/plain; version=0\.0\.4/);
    const text = res.payload;
    t.is(sample(text, 'mediagate_predictions_total', { model: MODEL, outcome: 'submitted' }), 1);
    t.is(sample(text, 'mediagate_predictions_total', { model: MODEL, outcome: 'completed' }), 1);
    t.is(sample(text, 'mediagate_webhook_attempts_total', { outcome: 'delivered' }), 1);
    t.is(sample(text, 'mediagate_http_requests_total', { route: MODEL, method: 'POST', status: '200' }), 1);
    t.is(sample(text, 'mediagate_http_request_duration_seconds_count', { route: MODEL, method: 'POST', status: '200' }), 1);
    t.is(sample(text, 'mediagate_adapter_duration_seconds_count', { provider: 'local', outcome: 'ok' }), 1);
    t.is(sample(text, 'mediagate_adapter_errors_total'), undefined);
    t.is(sample(text, 'mediagate_queue_depth', { topic: 'predictions' }), 0);
    t.is(sample(text, 'mediagate_queue_depth', { topic: 'webhooks' }), 0);
    t.is(sample(text, 'mediagate_queue_oldest_waiting_seconds'), 0);
    t.is(sample(text, 'mediagate_worker_concurrency', { topic: 'predictions' }), 4);
    t.is(sample(text, 'mediagate_worker_in_flight', { topic: 'predictions' }), 0);
    // The ledger is read at scrape time: the wallets' sums, the charge included.
    const sums = (await gw.app.db('users').sum({ balance: 'balance', held: 'held' }).first()) as { balance: number | string; held: number | string };
    t.is(sample(text, 'mediagate_ledger_credits', { kind: 'balance' }), Number(sums.balance));
    t.is(sample(text, 'mediagate_ledger_credits', { kind: 'held' }), Number(sums.held));
    t.true(Number(sums.balance) < 50_000, 'the run was charged');
  } finally {
    await receiver.close();
  }
});

test('a request whose publish was lost is republished by the sweeper with the request id kept on its row', async (t) => {
  const acct = await newAccount(gw, 0);
  const reqId = `swept-${uniqueName('r')}`;
  // accepted a minute ago and never confirmed by the queue (the broker was down at submit)
  const at = Date.now() - 60_000;
  const id = newPredictionId(at);
  await gw.app.store.submit({ p: { id, userId: acct.userId, apiKeyId: null, model: MODEL, input: { prompt: 'lost publish', width: 64, height: 64 }, price: 0, webhookUrl: null, httpRequestId: reqId }, now: at });
  await gw.app.dispatcher.sweep();
  const done = await waitFor(() => logs.parsed().find((l) => l.msg === 'prediction completed' && l.id === id), { what: 'the completion line' });
  t.is(done.reqId, reqId);
});

test('a message without a request id (older versions) still runs; its lines have no reqId', async (t) => {
  const acct = await newAccount(gw, 0);
  const now = Date.now();
  const id = newPredictionId(now);
  await gw.app.store.submit({ p: { id, userId: acct.userId, apiKeyId: null, model: MODEL, input: { prompt: 'old message', width: 64, height: 64 }, price: 0, webhookUrl: null }, now: now });
  await gw.app.queue.publish('predictions', { id });
  const done = await waitFor(() => logs.parsed().find((l) => l.msg === 'prediction completed' && l.id === id), { what: 'the completion line' });
  t.false('reqId' in done);
});

test('/metrics refuses a missing or wrong token with 401 JSON', async (t) => {
  const attempts: Array<Record<string, string>> = [{}, { authorization: 'Bearer wrong-token-0123456789abcdef' }, { authorization: METRICS_TOKEN }];
  for (const headers of attempts) {
    const res = await scrape(headers);
    t.is(res.statusCode, 401);
    t.like(JSON.parse(res.payload), { code: 'unauthorized' });
    t.false(res.payload.includes('mediagate_'));
  }
  t.is((await scrape()).statusCode, 200);
});

test('without METRICS_TOKEN the API port serves /metrics to nobody', async (t) => {
  const bare = await startGateway({ db: 'sqlite', queue: 'memory' });
  try {
    const res = await bare.server.inject({ method: 'GET', url: '/metrics', headers: { authorization: 'Bearer anything-at-all-0123456789' } });
    t.is(res.statusCode, 401);
    t.like(JSON.parse(res.payload), { code: 'unauthorized' });
  } finally {
    await bare.stop();
  }
});

test('X-Request-Id: a plain one is kept, anything else replaced, and every answer carries one (errors and the OAuth token endpoint too)', async (t) => {
  const kept = await gw.server.inject({ method: 'GET', url: '/livez', headers: { 'x-request-id': 'abc.DEF_123:x-y' } });
  t.is(kept.headers['x-request-id'], 'abc.DEF_123:x-y');
  for (const bad of ['has space', 'x'.repeat(129), 'quote"d', 'semi;colon', '']) {
    const res = await gw.server.inject({ method: 'GET', url: '/livez', headers: { 'x-request-id': bad } });
    t.regex(String(res.headers['x-request-id']), /^[0-9a-f-]{36}$/, bad);
  }
  const answers = await Promise.all([
    gw.server.inject({ method: 'GET', url: '/no/such/route' }),
    gw.server.inject({ method: 'GET', url: '/account/balance' }),
    gw.server.inject({ method: 'POST', url: `/api/v1/${MODEL}`, headers: { 'x-api-key': 'mg_live_nope' }, payload: {} }),
    gw.server.inject({ method: 'POST', url: '/oauth/token', headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: 'grant_type=client_credentials' }),
  ]);
  // the token endpoint's own answer (oidc-provider writes it): no client authentication
  t.deepEqual(answers.map((a) => a.statusCode), [404, 401, 401, 400]);
  for (const a of answers) t.regex(String(a.headers['x-request-id']), /^[0-9a-f-]{36}$/);
  const ids = new Set(answers.map((a) => a.headers['x-request-id']));
  t.is(ids.size, answers.length, 'each request gets its own');
});

test('every request line names its route, whatever answered: a refused key, a caller, the OAuth token endpoint (written by oidc-provider)', async (t) => {
  const acct = await newAccount(gw);
  const tag = uniqueName('route');
  await gw.server.inject({ method: 'POST', url: `/api/v1/${MODEL}`, headers: { 'x-request-id': `${tag}-refused`, 'x-api-key': 'mg_live_nope' }, payload: {} });
  await gw.server.inject({ method: 'GET', url: '/account/balance', headers: { 'x-request-id': `${tag}-caller`, 'x-api-key': acct.testKey } });
  await gw.server.inject({ method: 'POST', url: '/oauth/token', headers: { 'x-request-id': `${tag}-token`, 'content-type': 'application/x-www-form-urlencoded' }, payload: 'grant_type=client_credentials' });
  const line = (suffix: string) => waitFor(() => logs.parsed().find((l) => l.reqId === `${tag}-${suffix}` && l.msg === 'request completed'), { what: `the ${suffix} line` });
  const refused = await line('refused');
  t.like(refused, { route: MODEL, res: { statusCode: 401 } });
  t.false('callerId' in refused);
  t.like(await line('caller'), { route: 'getBalance', callerId: acct.userId, res: { statusCode: 200 } });
  const token = await line('token');
  t.is(typeof token.route, 'string');
  t.like(token, { res: { statusCode: 400 } });
});

test('with the level above info no request line is written, and every answer still has its request id and is counted', async (t) => {
  const quiet = captureLog('warn');
  const other = await startGateway({ db: 'sqlite', queue: 'memory', log: quiet.log, env: { METRICS_TOKEN } });
  try {
    const acct = await newAccount(other);
    const answers = await Promise.all([
      other.server.inject({ method: 'GET', url: '/account/balance', headers: { 'x-api-key': acct.testKey } }),
      other.server.inject({ method: 'GET', url: '/nowhere', headers: { 'x-request-id': 'quiet-1' } }),
    ]);
    t.deepEqual(answers.map((a) => a.statusCode), [200, 404]);
    t.regex(String(answers[0]!.headers['x-request-id']), /^[0-9a-f-]{36}$/);
    t.is(answers[1]!.headers['x-request-id'], 'quiet-1');
    t.false(quiet.parsed<Line>().some((l) => l.msg === 'request completed'));
    const text = (await other.server.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).payload;
    t.is(sample(text, 'mediagate_http_requests_total', { route: 'getBalance', method: 'GET', status: '200' }), 1);
    t.is(sample(text, 'mediagate_http_request_duration_seconds_count', { route: '/{p*}', method: 'GET', status: '404' }), 1);
  } finally {
    await other.stop();
  }
});

test('no credential reaches the request log: authorization, x-api-key, cookies, query secrets', async (t) => {
  const secrets = ['mgs_bearer_secret_value_1', 'mg_live_apikey_secret_2', 'session=cookie_secret_3', 'oauthcode_secret_4', 'state_secret_5'];
  const reqId = `secrets-${uniqueName('s')}`;
  await gw.server.inject({ method: 'GET', url: '/account/balance', headers: { 'x-request-id': reqId, authorization: `Bearer ${secrets[0]}`, 'x-api-key': secrets[1]!, cookie: secrets[2]! } });
  await gw.server.inject({ method: 'GET', url: `/auth/google_callback?code=${secrets[3]}&state=${secrets[4]}`, headers: { 'x-request-id': reqId } });
  await gw.server.inject({ method: 'GET', url: `/nowhere?token=${secrets[3]}`, headers: { 'x-request-id': reqId, 'x-api-key': secrets[1]! } });
  const mine = await waitFor(() => {
    const found = logs.lines.filter((l) => l.includes(reqId));
    return found.length === 3 ? found : undefined;
  }, { what: 'three request lines' });
  for (const secret of secrets) t.false(logs.lines.some((l) => l.includes(secret)), secret);
  t.deepEqual(mine.map((l) => (JSON.parse(l) as { route: string }).route).sort(), ['/{p*}', 'getBalance', 'googleCallback'].sort());
});

test('/livez answers without dependencies; /readyz names the queue when RabbitMQ becomes unreachable', async (t) => {
  // A TCP relay in front of the real broker: closing it leaves the gateway's AMQP URL pointing
  // at a closed port.
  const sockets = new Set<net.Socket>();
  const upstream = new URL(AMQP_URL);
  const relay = net.createServer((client) => {
    const broker = net.connect(Number(upstream.port || 5672), upstream.hostname);
    for (const s of [client, broker]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => {});
    }
    client.pipe(broker).pipe(client);
  });
  await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
  const relayUrl = new URL(AMQP_URL);
  relayUrl.host = `127.0.0.1:${(relay.address() as net.AddressInfo).port}`;
  // queue 'memory' only keeps the helper from putting its own AMQP_URL over this one.
  const prefix = uniqueName('t').toLowerCase();
  const g = await startGateway({ queue: 'memory', env: { AMQP_URL: relayUrl.toString(), AMQP_PREFIX: prefix } });
  try {
    t.like(JSON.parse((await g.server.inject('/readyz')).payload), { status: 'ok', database: 'ok', queue: 'ok' });
    await new Promise<void>((resolve) => {
      relay.close(() => resolve());
      for (const s of sockets) s.destroy();
    });
    const down = await waitFor(async () => {
      const res = await g.server.inject('/readyz');
      return res.statusCode === 503 ? res : undefined;
    }, { what: 'readyz to fail' });
    t.deepEqual(JSON.parse(down.payload), { status: 'unavailable', database: 'ok', queue: 'unreachable', detail: 'queue unreachable', code: 'unavailable' });
    const live = await g.server.inject('/livez');
    t.is(live.statusCode, 200);
    t.deepEqual(JSON.parse(live.payload), { status: 'ok' });
    // /health is unchanged: the same 503 as before the split.
    t.is((await g.server.inject('/health')).statusCode, 503);
  } finally {
    await g.stop();
  }
});

test('/metrics answers within the queue check bound when RabbitMQ stops answering, the database gauges included', async (t) => {
  // A relay that stops passing the gateway's bytes to the broker (test/helpers/amqp-relay.ts):
  // the connection stays up and every call waiting for a reply hangs.
  const relay = await stallingRelay();
  // queue 'memory' only keeps the helper from putting its own AMQP_URL over this one
  const prefix = uniqueName('t').toLowerCase();
  const warnings = captureLog('warn');
  const g = await startGateway({ queue: 'memory', log: warnings.log, env: { AMQP_URL: relay.url, AMQP_PREFIX: prefix, METRICS_TOKEN } });
  t.teardown(async () => {
    // the relay goes first: with the link gone the gateway's close does not wait on the broker
    await relay.close();
    await g.stop();
  });
  const get = () => g.server.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
  t.is(sample((await get()).payload, 'mediagate_queue_depth', { topic: 'predictions' }), 0);
  relay.freeze();
  const started = performance.now();
  const res = await get();
  const elapsed = performance.now() - started;
  t.is(res.statusCode, 200, res.payload);
  // the bound (both topics asked together) plus a wide margin for a loaded machine; without a
  // bound the scrape waits until hapi's own 503 after 30 s
  t.true(elapsed < QUEUE_CHECK_TIMEOUT_MS + 10_000, `answered after ${Math.round(elapsed)} ms`);
  t.is(sample(res.payload, 'mediagate_queue_depth', { topic: 'predictions' }), undefined);
  t.is(sample(res.payload, 'mediagate_queue_depth', { topic: 'webhooks' }), undefined);
  t.is(sample(res.payload, 'mediagate_ledger_credits', { kind: 'balance' }), 0);
  t.is(sample(res.payload, 'mediagate_ledger_credits', { kind: 'held' }), 0);
  t.is(sample(res.payload, 'mediagate_queue_oldest_waiting_seconds'), 0);
  const reasons = warnings.parsed<{ msg: string; err: string }>().filter((l) => l.msg.startsWith('metrics: could not read queue depth'));
  t.deepEqual(reasons.map((l) => l.msg).sort(), ['metrics: could not read queue depth of predictions', 'metrics: could not read queue depth of webhooks']);
  t.regex(reasons[0]?.err ?? '', /no answer to a queue check within 2000 ms/);
});

test('a worker process opens its health port: /livez, /readyz and /metrics, and JSON for anything else', async (t) => {
  const db = await freshDatabase(undefined, { migrated: true });
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'mg-ops-'));
  const env = {
    ROLE: 'worker', DATABASE_URL: db.url, AMQP_URL, AMQP_PREFIX: uniqueName('w').toLowerCase(), DATA_DIR: dir, LOG_LEVEL: 'silent',
    ENCRYPTION_KEY: '00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff', WORKER_HEALTH_PORT: '0', WORKER_HEALTH_HOST: '127.0.0.1', WORKER_CONCURRENCY: '3',
  };
  const running = await start(env);
  try {
    t.is(running.server, null);
    const base = `http://127.0.0.1:${running.healthServer!.info.port}`;
    const live = await fetch(`${base}/livez`);
    t.is(live.status, 200);
    t.truthy(live.headers.get('x-request-id'));
    t.like(await (await fetch(`${base}/readyz`)).json(), { status: 'ok', database: 'ok', queue: 'ok' });
    const metrics = await fetch(`${base}/metrics`);
    t.is(metrics.status, 200);
    const text = await metrics.text();
    t.is(sample(text, 'mediagate_worker_concurrency', { topic: 'predictions' }), 3);
    t.is(sample(text, 'mediagate_queue_depth', { topic: 'predictions' }), 0);
    t.not(sample(text, 'mediagate_process_resident_memory_bytes'), undefined);
    const other = await fetch(`${base}/api/v1/${MODEL}`);
    t.is(other.status, 404);
    t.like(await other.json(), { code: 'not_found' });
  } finally {
    await running.stop();
    await deleteTopology(env.AMQP_PREFIX, topics(loadConfig(env)));
    await db.drop();
    await fs.rm(dir, { recursive: true, force: true });
  }
});
