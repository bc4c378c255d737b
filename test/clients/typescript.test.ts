// The TypeScript client (clients/typescript, its source on this Node) as a real client of a gateway
// listening on a port: the embedded default (SQLite, in-process queue) with a worker running the
// local models, and a second one without a worker, where predictions stay queued until cancelled.
import test from 'ava';
import { Webhook } from 'standardwebhooks';
import {
  AbortError, AuthenticationError, ConflictError, GatewayError, InsufficientCreditError, Mediagate, MediagateError, NotFoundError,
  PermissionError, PredictionFailedError, TimeoutError, ValidationError, WebhookVerificationError, verifyWebhook,
} from '../../clients/typescript/src/index.ts';
import type { Prediction } from '../../clients/typescript/src/index.ts';
import { backoffMs, DEFAULT_RETRY } from '../../clients/typescript/src/http.ts';
import { accountWithEmail, startListeningGateway } from '../helpers/listening.ts';
import type { ListeningGateway } from '../helpers/listening.ts';
import { createClient } from '../helpers/oauth.ts';
import { createTeam } from '../../db/teams.ts';
import { startReceiver } from '../helpers/receiver.ts';
import { waitFor } from '../helpers/services.ts';

const MODEL = 'canvas-v1-fast-text-to-image';
// a 1x1 PNG
const PNG = Uint8Array.from(Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8cfc0f01f0005000201d2ea1e5b0000000049454e44ae426082', 'hex'));

let gw: ListeningGateway;
let idle: ListeningGateway;

test.before(async () => {
  [gw, idle] = await Promise.all([startListeningGateway(), startListeningGateway({ worker: false })]);
});
test.after.always(async () => {
  await Promise.all([gw?.stop(), idle?.stop()]);
});

/** A fetch that records what the client sent and got, without changing either. */
function recordingFetch() {
  const calls: Array<{ method: string; url: string; status: number; headers: Headers; at: number }> = [];
  const fetchImpl: typeof fetch = async (input, init) => {
    const res = await fetch(input, init);
    calls.push({ method: init?.method ?? 'GET', url: String(input), status: res.status, headers: new Headers(init?.headers), at: Date.now() });
    return res;
  };
  return { calls, fetch: fetchImpl };
}

test('run submits, follows the event stream with progress, and returns the outputs at the quoted price', async (t) => {
  const account = await accountWithEmail(gw, 1000);
  const client = new Mediagate({ baseUrl: gw.baseUrl, apiKey: account.liveKey });
  const quote = await client.quote(MODEL, { prompt: 'a red fox', width: 64, height: 64 });
  const seen: string[] = [];
  const result = await client.run(MODEL, { prompt: 'a red fox', width: 64, height: 64 }, { onProgress: (p) => seen.push(p.status) });
  t.is(result.status, 'completed');
  t.is(result.model, MODEL);
  t.is(result.price, quote.cost);
  t.is(seen.at(-1), 'completed');
  t.is(result.outputs.length, 1);
  const file = await fetch(result.outputs[0]!);
  t.is(file.status, 200);
  t.deepEqual([...new Uint8Array(await file.arrayBuffer()).subarray(1, 4)], [...Buffer.from('PNG')]);
  t.like(await client.account.balance(), { balance: 1000 - quote.cost, held: 0 });
});

test('stream yields each state from the current one to the terminal one, and get reads the same end', async (t) => {
  const account = await accountWithEmail(gw, 1000);
  const client = new Mediagate({ baseUrl: gw.baseUrl, apiKey: account.liveKey });
  const submitted = await client.submit(MODEL, { prompt: 'streamed', width: 64, height: 64 });
  t.is(submitted.status, 'queued');
  const states: Prediction[] = [];
  for await (const p of client.stream(submitted.request_id)) states.push(p);
  t.is(states.at(-1)!.status, 'completed');
  t.true(states.slice(0, -1).every((p) => p.status !== 'completed'));
  const read = await client.get(submitted.request_id);
  t.deepEqual(read.outputs, states.at(-1)!.outputs);
  // a finished prediction's stream is its one terminal event
  const again: string[] = [];
  for await (const p of client.stream(submitted.request_id)) again.push(p.status);
  t.deepEqual(again, ['completed']);
});

test('wait by polling reaches the same end; a sandbox key runs for nothing', async (t) => {
  const account = await accountWithEmail(gw, 0);
  const client = new Mediagate({ baseUrl: gw.baseUrl, apiKey: account.testKey });
  const seen: string[] = [];
  const result = await client.run(MODEL, { prompt: 'sandbox' }, { mode: 'poll', pollIntervalMs: 50, onProgress: (p) => seen.push(p.status) });
  t.is(result.status, 'completed');
  t.is(result.price, 0);
  t.deepEqual(seen, ['completed'], 'born finished, and the progress callback sees it');
  const live = new Mediagate({ baseUrl: gw.baseUrl, apiKey: (await accountWithEmail(gw, 100)).liveKey });
  const s = await live.submit(MODEL, { prompt: 'polled', width: 64, height: 64 });
  const polled = await live.wait(s.request_id, { mode: 'poll', pollIntervalMs: 50 });
  t.is(polled.status, 'completed');
});

test('a submit whose answer is lost is retried with the same Idempotency-Key: one prediction, charged once', async (t) => {
  const account = await accountWithEmail(gw, 1000);
  const keys: string[] = [];
  let dropped = false;
  // the gateway gets and runs the first submit; its answer never reaches the client (a dropped connection)
  const dropFirstAnswer: typeof fetch = async (input, init) => {
    const res = await fetch(input, init);
    if (init?.method === 'POST' && String(input).includes(`/api/v1/${MODEL}`)) {
      keys.push(new Headers(init.headers).get('idempotency-key') ?? '');
      if (!dropped) {
        dropped = true;
        throw new TypeError('fetch failed', { cause: new Error('socket hang up') });
      }
    }
    return res;
  };
  const client = new Mediagate({ baseUrl: gw.baseUrl, apiKey: account.liveKey, fetch: dropFirstAnswer, retry: { baseDelayMs: 10 } });
  const result = await client.run(MODEL, { prompt: 'once', width: 64, height: 64 });
  t.is(result.status, 'completed');
  t.is(keys.length, 2);
  t.is(keys[0], keys[1]);
  t.regex(keys[0]!, /^[0-9a-f-]{36}$/);
  const history = await client.history.list();
  t.is(history.items.length, 1, 'one prediction');
  t.like(await client.account.balance(), { balance: 1000 - result.price, held: 0 });
  // a new submit gets a new key
  await client.submit(MODEL, { prompt: 'twice', width: 64, height: 64 });
  t.is(new Set(keys).size, 2);
});

test('a 429 is retried after the Retry-After the gateway sent', async (t) => {
  const account = await accountWithEmail(idle, 1000);
  const owner = new Mediagate({ baseUrl: idle.baseUrl, apiKey: account.liveKey });
  // a key allowed one unfinished prediction: the second submit is 429 with Retry-After: 1 until the first ends
  const limited = await owner.keys.create({ name: 'one at a time', max_concurrent: 1 });
  const first = await new Mediagate({ baseUrl: idle.baseUrl, apiKey: limited.key }).submit(MODEL, { prompt: 'first', width: 64, height: 64 });
  const recorder = recordingFetch();
  let cancelled = false;
  const cancelOnRefusal: typeof fetch = async (input, init) => {
    const res = await recorder.fetch(input, init);
    if (res.status === 429 && !cancelled) {
      cancelled = true;
      await owner.cancel(first.request_id);
    }
    return res;
  };
  const client = new Mediagate({ baseUrl: idle.baseUrl, apiKey: limited.key, fetch: cancelOnRefusal });
  const second = await client.submit(MODEL, { prompt: 'second', width: 64, height: 64 });
  t.is(second.status, 'queued');
  const submits = recorder.calls.filter((c) => c.method === 'POST');
  t.deepEqual(submits.map((c) => c.status), [429, 200]);
  t.is(submits[0]!.headers.get('idempotency-key'), submits[1]!.headers.get('idempotency-key'));
  // a lower bound only: the client waited at least the second the gateway asked for
  t.true(submits[1]!.at - submits[0]!.at >= 1000);
  await owner.cancel(second.request_id);
});

test('a Retry-After longer than the client waits for is a RateLimitError carrying it', async (t) => {
  const account = await accountWithEmail(idle, 1000);
  const owner = new Mediagate({ baseUrl: idle.baseUrl, apiKey: account.liveKey });
  const limited = await owner.keys.create({ name: 'one a minute', rate_limit_per_minute: 1 });
  const client = new Mediagate({ baseUrl: idle.baseUrl, apiKey: limited.key, retry: { maxDelayMs: 200 } });
  // one a clock minute: a submit in a minute that already had one is refused (a third covers a
  // minute that ended between the first two)
  const admitted: string[] = [];
  let err: unknown;
  for (let i = 0; i < 3 && err === undefined; i++) {
    try {
      admitted.push((await client.submit(MODEL, { prompt: `n${i}`, width: 64, height: 64 })).request_id);
    } catch (e) {
      err = e;
    }
  }
  t.true(admitted.length >= 1 && admitted.length <= 2);
  t.is((err as Error | undefined)?.constructor.name, 'RateLimitError');
  t.like(err, { status: 429, code: 'rate_limited' });
  t.true(((err as { retryAfter?: number }).retryAfter ?? 0) >= 1);
  for (const id of admitted) await owner.cancel(id);
});

test('backoff doubles from the base step, with jitter in its upper half, capped', (t) => {
  const policy = { ...DEFAULT_RETRY, baseDelayMs: 100, maxDelayMs: 1000 };
  t.is(backoffMs(0, policy, () => 0), 50);
  t.is(backoffMs(0, policy, () => 1), 100);
  t.is(backoffMs(2, policy, () => 1), 400);
  t.is(backoffMs(10, policy, () => 1), 1000);
  t.is(backoffMs(10, policy, () => 0), 500);
});

test('cancel ends a queued prediction; a run aborted by its signal cancels its prediction on the gateway', async (t) => {
  const account = await accountWithEmail(idle, 1000);
  const client = new Mediagate({ baseUrl: idle.baseUrl, apiKey: account.liveKey });
  const s = await client.submit(MODEL, { prompt: 'never runs', width: 64, height: 64 });
  t.is((await client.cancel(s.request_id)).status, 'cancelled');
  const again = await t.throwsAsync(client.cancel(s.request_id));
  t.true(again instanceof ConflictError);

  const controller = new AbortController();
  let id = '';
  const run = client.run(MODEL, { prompt: 'aborted', width: 64, height: 64 }, {
    signal: controller.signal,
    onSubmitted: (sub) => { id = sub.request_id; },
    onProgress: () => controller.abort(),
  });
  await t.throwsAsync(run, { instanceOf: AbortError });
  t.truthy(id);
  t.is((await client.get(id)).status, 'cancelled');
  t.like(await client.account.balance(), { balance: 1000, held: 0 });
});

test('a wait that outlasts its time limit is a TimeoutError with the last state; the prediction goes on', async (t) => {
  const account = await accountWithEmail(idle, 1000);
  const client = new Mediagate({ baseUrl: idle.baseUrl, apiKey: account.liveKey });
  const s = await client.submit(MODEL, { prompt: 'slow', width: 64, height: 64 });
  const err = await t.throwsAsync(client.wait(s.request_id, { timeoutMs: 300 }), { instanceOf: TimeoutError });
  // no worker: it waits in the queue (queued, or pending once the broker's confirm is marked, 2 s on)
  t.true(['queued', 'pending'].includes(err?.prediction?.status ?? ''), err?.prediction?.status);
  t.true(['queued', 'pending'].includes((await client.get(s.request_id)).status));
  await client.cancel(s.request_id);
});

test('errors are typed by the gateway\'s code', async (t) => {
  const account = await accountWithEmail(gw, 0);
  const broke = new Mediagate({ baseUrl: gw.baseUrl, apiKey: account.liveKey });
  const credit = await t.throwsAsync(broke.submit(MODEL, { prompt: 'x', width: 64, height: 64 }));
  t.true(credit instanceof InsufficientCreditError);
  t.like(credit, { status: 402, code: 'insufficient_credit' });
  const invalid = await t.throwsAsync(broke.quote(MODEL, { prompt: 'x', width: 99999 }));
  t.true(invalid instanceof ValidationError);
  t.like(invalid, { status: 422, code: 'validation_failed' });
  t.deepEqual((invalid as ValidationError).issues.map((i) => i.loc), [['body', 'input', 'width']]);
  const nobody = new Mediagate({ baseUrl: gw.baseUrl, apiKey: 'mg_live_not-a-key' });
  const auth = await t.throwsAsync(nobody.account.balance());
  t.true(auth instanceof AuthenticationError);
  t.is((auth as AuthenticationError).code, 'unauthorized');
  t.truthy((auth as AuthenticationError).requestId);
  // another account's prediction does not exist for this one
  const other = new Mediagate({ baseUrl: gw.baseUrl, apiKey: (await accountWithEmail(gw, 0)).testKey });
  const theirs = await other.submit(MODEL, { prompt: 'mine' });
  const notFound = await t.throwsAsync(broke.get(theirs.request_id));
  t.true(notFound instanceof NotFoundError);
  t.is((notFound as NotFoundError).code, 'not_found');
  await t.throwsAsync(broke.models.get('no-such-model'), { instanceOf: NotFoundError });
});

test('a redirect is not followed: no credential reaches the address it names, and the error names it', async (t) => {
  // a base URL whose server sends every request on to another origin (a moved domain, a proxy's rule)
  const elsewhere = await startReceiver();
  t.teardown(() => elsewhere.close());
  const target = `${new URL(elsewhere.url).origin}/moved`;
  let status = 307;
  const redirector = await startReceiver(() => ({ status, headers: { location: target }, body: '' }));
  t.teardown(() => redirector.close());
  const baseUrl = new URL(redirector.url).origin;
  const secrets = ['mg_live_only_for_the_first_address', 'a-bearer-token-for-the-first-address', 'emb_only_for_the_first_address', 'oauth-secret-for-the-first-address'];
  const apiKey = new Mediagate({ baseUrl, apiKey: secrets[0], retry: { baseDelayMs: 1 } });
  const calls: Array<[string, () => Promise<unknown>]> = [
    ['balance', () => apiKey.account.balance()],
    ['submit', () => apiKey.submit(MODEL, { prompt: 'moved' })],
    ['wait (the event stream)', () => apiKey.wait('abc', { timeoutMs: 5000 })],
    ['upload (its address)', () => apiKey.upload(PNG, { filename: 'dot.png' })],
    ['bearer token', () => new Mediagate({ baseUrl, bearerToken: secrets[1] }).account.balance()],
    ['embed code', () => new Mediagate({ baseUrl, embedCode: secrets[2] }).get('abc')],
    ['OAuth token request', () => new Mediagate({ baseUrl, oauth: { clientId: 'cli_first', clientSecret: secrets[3]! } }).account.balance()],
  ];
  for (const [what, call] of calls) {
    for (const s of [307, 302]) {
      status = s;
      const before = redirector.received.length;
      const err = await t.throwsAsync(call(), { instanceOf: MediagateError }, what);
      t.false(err instanceof GatewayError, `${what}: not an answer of the gateway's`);
      t.regex(err?.message ?? '', new RegExp(`redirect \\(${s}\\)`), what);
      t.true(err?.message.includes(target), `${what}: the error names where it was sent: ${err?.message}`);
      t.regex(err?.message ?? '', /baseUrl/, what);
      t.is(redirector.received.length, before + 1, `${what}: asked once, not retried`);
    }
  }
  t.is(elsewhere.received.length, 0, 'nothing reached the other origin');
  const leaked = JSON.stringify(elsewhere.received);
  for (const secret of secrets) t.false(leaked.includes(secret!));
});

test('in a browser a redirect is an opaque answer (status 0): refused too, never read as a success', async (t) => {
  const opaque: typeof fetch = async () => {
    const res = new Response(null);
    Object.defineProperty(res, 'type', { value: 'opaqueredirect' });
    Object.defineProperty(res, 'status', { value: 0 });
    return res;
  };
  const client = new Mediagate({ baseUrl: 'https://gateway.example.com', apiKey: 'mg_live_x', fetch: opaque });
  const err = await t.throwsAsync(client.account.balance(), { instanceOf: MediagateError });
  t.regex(err?.message ?? '', /https:\/\/gateway\.example\.com answered a redirect to another address/);
  await t.throwsAsync(client.wait('abc', { timeoutMs: 5000 }), { message: /answered a redirect/ });
});

test('a failed prediction makes run throw PredictionFailedError with the prediction', async (t) => {
  const account = await accountWithEmail(gw, 1000);
  const client = new Mediagate({ baseUrl: gw.baseUrl, apiKey: account.liveKey, retry: { maxRetries: 0 } });
  // an upstream model whose provider is not configured here: production keys get 503 at submit
  const unavailable = await t.throwsAsync(client.run('veloce-v2-fast-text-to-video', { prompt: 'x' }));
  t.like(unavailable, { status: 503, code: 'unavailable' });
  // cancelled while waiting is a failed run too
  const idleClient = new Mediagate({ baseUrl: idle.baseUrl, apiKey: (await accountWithEmail(idle, 1000)).liveKey });
  const run = idleClient.run(MODEL, { prompt: 'x', width: 64, height: 64 }, { onSubmitted: (s) => { void idleClient.cancel(s.request_id); } });
  const failed = await t.throwsAsync(run, { instanceOf: PredictionFailedError });
  t.is(failed?.prediction.status, 'cancelled');
});

test('upload puts a file through the upload address; its URL serves the bytes and works as an input', async (t) => {
  const account = await accountWithEmail(gw, 1000);
  const client = new Mediagate({ baseUrl: gw.baseUrl, apiKey: account.liveKey });
  const fromBytes = await client.upload(PNG, { filename: 'dot.png' });
  t.is(fromBytes.contentType, 'image/png');
  t.is(fromBytes.mediaType, 'image');
  t.is(fromBytes.bytes, PNG.length);
  t.deepEqual(new Uint8Array(await (await fetch(fromBytes.url)).arrayBuffer()), PNG);
  const fromFile = await client.upload(new File([PNG], 'named.png', { type: 'image/png' }));
  t.deepEqual(new Uint8Array(await (await fetch(fromFile.url)).arrayBuffer()), PNG);
  // an image model takes it (a sandbox key: the provider is not called)
  const sandbox = new Mediagate({ baseUrl: gw.baseUrl, apiKey: account.testKey });
  const edited = await sandbox.run('lumen-dev-i2i', { prompt: 'sharper', image_url: fromBytes.url });
  t.is(edited.status, 'completed');
  const refused = await t.throwsAsync(client.upload(PNG, { filename: 'page.html' }));
  t.true(refused instanceof ValidationError);
  await t.throwsAsync(client.upload(PNG), { message: /filename/ });
});

test('models, account, keys and history calls read what the gateway has', async (t) => {
  const account = await accountWithEmail(gw, 500);
  const client = new Mediagate({ baseUrl: gw.baseUrl, apiKey: account.liveKey });
  const models = await client.models.list({ category: 'text-to-image' });
  t.true(models.some((m) => m.slug === MODEL && m.available));
  t.true(models.every((m) => m.category === 'text-to-image'));
  t.is((await client.models.get(MODEL)).output, 'image');
  t.is((await client.account.details()).email, account.email);
  const created = await client.keys.create({ name: 'ci', is_test: true });
  t.true(created.key.startsWith('mg_test_'));
  const listed = await client.keys.list();
  t.true(listed.some((k) => k.id === created.id && k.name === 'ci'));
  t.false(JSON.stringify(listed).includes(created.key));
  const renamed = await client.keys.update(created.id, { name: 'ci-renamed' });
  t.is(renamed.name, 'ci-renamed');
  await client.keys.revoke(created.id);
  await t.throwsAsync(new Mediagate({ baseUrl: gw.baseUrl, apiKey: created.key }).account.balance(), { instanceOf: AuthenticationError });

  const run = await client.run(MODEL, { prompt: 'history', width: 64, height: 64 });
  const page = await client.history.list();
  t.is(page.items[0]!.id, run.id);
  t.deepEqual((await client.history.list({ status: 'failed' })).items, []);
  t.is((await client.history.list({ model: MODEL })).items[0]!.id, run.id);
  const detail = await client.history.get(run.id);
  t.is(detail.id, run.id);
  const ledger = await client.account.transactions();
  t.true(ledger.items.some((r) => r.request_id === run.id && r.amount === -run.price));
});

test('OAuth client credentials: the token is fetched once, shared, renewed before it expires, and refused once the client is deleted', async (t) => {
  const account = await accountWithEmail(gw, 1000);
  const oauthClient = await createClient(gw, account.session, ['generate:write', 'generate:read', 'account:read']);
  const recorder = recordingFetch();
  let clock = Date.now();
  const client = new Mediagate({
    baseUrl: gw.baseUrl,
    oauth: { clientId: oauthClient.client_id, clientSecret: oauthClient.client_secret },
    fetch: recorder.fetch,
    now: () => clock,
  });
  const tokenCalls = () => recorder.calls.filter((c) => c.url.endsWith('/oauth/token')).length;
  await Promise.all([client.account.balance(), client.account.balance(), client.models.list()]);
  t.is(tokenCalls(), 1, 'concurrent calls share one token request');
  const result = await client.run(MODEL, { prompt: 'machine', width: 64, height: 64 });
  t.is(result.status, 'completed');
  t.is(tokenCalls(), 1);
  // 59 minutes on (the token lives 60): renewed before it lapses, not after a refusal
  clock += 59 * 60_000;
  await client.account.balance();
  t.is(tokenCalls(), 2);
  t.false(recorder.calls.some((c) => c.status === 401));
  // a scope the token lacks is a PermissionError, not a retry
  const scoped = await t.throwsAsync(client.keys.list());
  t.like(scoped, { status: 403, code: 'insufficient_scope' });
  await gw.server.inject({ method: 'DELETE', url: `/oauth/clients/${oauthClient.id}`, headers: { authorization: `Bearer ${account.session}` } });
  const refused = await t.throwsAsync(client.account.balance());
  t.true(refused instanceof AuthenticationError);
  t.is((refused as AuthenticationError).code, 'invalid_client');
});

test('an embed code runs its model from the client, following the prediction by polling (the gateway refuses it the stream)', async (t) => {
  const owner = await accountWithEmail(gw, 1000);
  const created = await gw.server.inject({
    method: 'POST', url: '/app/embed-codes', headers: { authorization: `Bearer ${owner.session}` },
    payload: { kind: 'embed', name: 'widget', models: [MODEL] },
  });
  t.is(created.statusCode, 201, created.payload);
  const code = (created.result as { code: string }).code;
  const recorder = recordingFetch();
  const client = new Mediagate({ baseUrl: gw.baseUrl, embedCode: code, fetch: recorder.fetch });
  const result = await client.run(MODEL, { prompt: 'from a page', width: 64, height: 64 }, { pollIntervalMs: 50 });
  t.is(result.status, 'completed');
  t.false(recorder.calls.some((c) => c.url.includes('/stream')), 'no stream is tried');
  // as the gateway would have answered
  const stream = await fetch(`${gw.baseUrl}/api/v1/predictions/${result.id}/stream`, { headers: { 'x-embed-code': code, 'x-embed-visitor': client.embedVisitor! } });
  t.is(stream.status, 403);
  t.is((await stream.json() as { code: string }).code, 'embed_operation_not_allowed');
  t.true(recorder.calls.some((c) => c.url.endsWith(`/predictions/${result.id}/result`) && c.status === 200), 'then the result was polled');
  t.regex(client.embedVisitor ?? '', /^vis_/);
  // the same visitor reads its own prediction; a new visitor does not see it
  t.is((await client.get(result.id)).status, 'completed');
  await t.throwsAsync(new Mediagate({ baseUrl: gw.baseUrl, embedCode: code }).get(result.id), { instanceOf: NotFoundError });
});

test('verifyWebhook accepts a real delivery, both secrets after a rotation, and refuses forgeries', async (t) => {
  const account = await accountWithEmail(gw, 1000);
  const client = new Mediagate({ baseUrl: gw.baseUrl, apiKey: account.liveKey });
  const receiver = await startReceiver();
  t.teardown(() => receiver.close());
  const oldSecret = (await client.webhooks.secret()).secret;
  const run = await client.run(MODEL, { prompt: 'hooked', width: 64, height: 64 }, { webhook: receiver.url });
  await waitFor(() => receiver.received.length === 1, { what: 'the delivery' });
  const first = receiver.received[0]!;
  const payload = await verifyWebhook(first.body, first.headers as Record<string, string>, oldSecret);
  t.like(payload, { id: run.id, status: 'completed' });
  t.deepEqual(payload.outputs, run.outputs);

  const newSecret = (await client.webhooks.rotateSecret()).secret;
  t.not(newSecret, oldSecret);
  await client.run(MODEL, { prompt: 'rotated', width: 64, height: 64 }, { webhook: receiver.url });
  await waitFor(() => receiver.received.length === 2, { what: 'the second delivery' });
  const second = receiver.received[1]!;
  t.is(String(second.headers['webhook-signature']).split(' ').length, 2, 'two signatures after a rotation');
  const headers = new Headers(second.headers as Record<string, string>);
  t.is((await verifyWebhook(second.body, headers, oldSecret)).status, 'completed');
  t.is((await verifyWebhook(second.body, headers, newSecret)).status, 'completed');
  t.is((await verifyWebhook(new TextEncoder().encode(second.body), headers, [oldSecret, newSecret])).status, 'completed');

  await t.throwsAsync(verifyWebhook(second.body.replace('completed', 'failed'), headers, newSecret), { instanceOf: WebhookVerificationError, message: /no webhook-signature matches/ });
  await t.throwsAsync(verifyWebhook(second.body, headers, `whsec_${Buffer.from('another secret entirely, 32 bytes').toString('base64')}`), { instanceOf: WebhookVerificationError });
  await t.throwsAsync(verifyWebhook(second.body, headers, newSecret, { now: Date.now() + 10 * 60_000 }), { instanceOf: WebhookVerificationError, message: /too old/ });
  await t.throwsAsync(verifyWebhook(second.body, { 'webhook-id': 'x' }, newSecret), { instanceOf: WebhookVerificationError, message: /missing/ });
  // and it agrees with the reference implementation on a signature it did not make itself
  const reference = new Webhook(newSecret);
  const at = new Date();
  const signature = reference.sign('msg_1', at, '{"id":"p"}');
  const ok = await verifyWebhook('{"id":"p"}', { 'webhook-id': 'msg_1', 'webhook-timestamp': String(Math.floor(at.getTime() / 1000)), 'webhook-signature': signature }, newSecret);
  t.is(ok.id, 'p');
});

test('webhooks.secret and rotateSecret take { sandbox: true }: the secret sandbox deliveries are signed with, rotated alone', async (t) => {
  const account = await accountWithEmail(gw, 1000);
  const client = new Mediagate({ baseUrl: gw.baseUrl, apiKey: account.liveKey });
  const sandboxKey = new Mediagate({ baseUrl: gw.baseUrl, apiKey: account.testKey });
  const production = await client.webhooks.secret();
  t.false(production.sandbox);
  t.deepEqual(await client.webhooks.secret({ sandbox: false }), production);
  const sandbox = await client.webhooks.secret({ sandbox: true });
  t.true(sandbox.sandbox);
  t.not(sandbox.secret, production.secret);
  // a sandbox key gets the sandbox secret without asking, and is refused the production one
  t.deepEqual(await sandboxKey.webhooks.secret(), sandbox);
  await t.throwsAsync(sandboxKey.webhooks.secret({ sandbox: false }), { instanceOf: PermissionError });

  const rotated = await client.webhooks.rotateSecret({ sandbox: true });
  t.true(rotated.sandbox);
  t.not(rotated.secret, sandbox.secret);
  t.is(rotated.previous.length, 1);
  const unchanged = await client.webhooks.secret();
  t.is(unchanged.secret, production.secret);
  t.deepEqual(unchanged.previous, []);

  // a sandbox prediction's delivery verifies with the rotated sandbox secret, never the production one
  const receiver = await startReceiver();
  t.teardown(() => receiver.close());
  const run = await sandboxKey.run(MODEL, { prompt: 'sandbox hook', width: 64, height: 64 }, { webhook: receiver.url });
  await waitFor(() => receiver.received.length === 1, { what: 'the sandbox delivery' });
  const delivery = receiver.received[0]!;
  const headers = delivery.headers as Record<string, string>;
  t.is((await verifyWebhook(delivery.body, headers, rotated.secret)).id, run.id);
  await t.throwsAsync(verifyWebhook(delivery.body, headers, production.secret), { instanceOf: WebhookVerificationError });

  // with a team (the client's, or the call's teamId), the team's own sandbox secret
  const team = await createTeam(gw.app.db, account.userId, 'client hooks', Date.now());
  const forTeam = new Mediagate({ baseUrl: gw.baseUrl, apiKey: account.liveKey, teamId: team.id });
  const teamSandbox = await forTeam.webhooks.secret({ sandbox: true });
  t.like(teamSandbox, { sandbox: true });
  t.not(teamSandbox.secret, rotated.secret);
  const teamRotated = await client.webhooks.rotateSecret({ sandbox: true, teamId: team.id });
  t.not(teamRotated.secret, teamSandbox.secret);
  t.is((await forTeam.webhooks.secret()).sandbox, false);
  t.is((await client.webhooks.secret({ sandbox: true })).secret, rotated.secret, 'the account\'s sandbox secret is unchanged');
});

test('webhooks.sendTest takes { sandbox: true }: the test event verifies with the sandbox secret, not the production one', async (t) => {
  const account = await accountWithEmail(gw, 0);
  const client = new Mediagate({ baseUrl: gw.baseUrl, apiKey: account.liveKey });
  const sandboxKey = new Mediagate({ baseUrl: gw.baseUrl, apiKey: account.testKey });
  const production = (await client.webhooks.secret()).secret;
  const sandbox = (await client.webhooks.secret({ sandbox: true })).secret;
  const receiver = await startReceiver();
  t.teardown(() => receiver.close());
  const received = (id: string) => {
    const r = receiver.received.find((x) => x.headers['webhook-id'] === id)!;
    return { body: r.body, headers: r.headers as Record<string, string> };
  };

  const sandboxTest = await client.webhooks.sendTest(receiver.url, { sandbox: true });
  t.like(sandboxTest, { delivered: true, status_code: 200, error: null });
  const signed = received(sandboxTest.webhook_id);
  t.like(await verifyWebhook(signed.body, signed.headers, sandbox), { type: 'webhook.test' });
  await t.throwsAsync(verifyWebhook(signed.body, signed.headers, production), { instanceOf: WebhookVerificationError });
  const productionTest = await client.webhooks.sendTest(receiver.url);
  const plain = received(productionTest.webhook_id);
  t.like(await verifyWebhook(plain.body, plain.headers, production), { type: 'webhook.test' });
  await t.throwsAsync(verifyWebhook(plain.body, plain.headers, sandbox), { instanceOf: WebhookVerificationError });
  // a sandbox key signs with the sandbox secret, and is refused the production one
  const bySandboxKey = await sandboxKey.webhooks.sendTest(receiver.url);
  const fromKey = received(bySandboxKey.webhook_id);
  t.like(await verifyWebhook(fromKey.body, fromKey.headers, sandbox), { type: 'webhook.test' });
  await t.throwsAsync(sandboxKey.webhooks.sendTest(receiver.url, { sandbox: false }), { instanceOf: PermissionError });

  // with a team, the team's sandbox secret
  const team = await createTeam(gw.app.db, account.userId, 'client test events', Date.now());
  const teamSandbox = (await client.webhooks.secret({ sandbox: true, teamId: team.id })).secret;
  const teamTest = await client.webhooks.sendTest(receiver.url, { sandbox: true, teamId: team.id });
  const forTeam = received(teamTest.webhook_id);
  t.like(await verifyWebhook(forTeam.body, forTeam.headers, teamSandbox), { type: 'webhook.test' });
  await t.throwsAsync(verifyWebhook(forTeam.body, forTeam.headers, sandbox), { instanceOf: WebhookVerificationError });
});

test('webhookEvents asks for events while it runs: the start, then the result, both verified', async (t) => {
  const account = await accountWithEmail(gw, 1000);
  const client = new Mediagate({ baseUrl: gw.baseUrl, apiKey: account.liveKey });
  const receiver = await startReceiver();
  t.teardown(() => receiver.close());
  const secret = (await client.webhooks.secret()).secret;
  const run = await client.run(MODEL, { prompt: 'followed', width: 64, height: 64 }, { webhook: receiver.url, webhookEvents: ['start', 'completed'] });
  await waitFor(() => receiver.received.length === 2, { what: 'the start and the result' });
  const [start, result] = await Promise.all(receiver.received.map((r) => verifyWebhook(r.body, r.headers as Record<string, string>, secret)));
  t.like(start, { id: run.id, status: 'processing', event: 'start' });
  t.like(result, { id: run.id, status: 'completed' });
});

test('the client is typed by model slug (checked by tsc)', (t) => {
  const client = new Mediagate({ baseUrl: gw.baseUrl, apiKey: 'mg_test_x' });
  const typed = () => {
    void client.run(MODEL, { prompt: 'ok', width: 64 });
    // @ts-expect-error width is a number
    void client.run(MODEL, { prompt: 'ok', width: 'wide' });
    // @ts-expect-error prompt is required
    void client.run(MODEL, { width: 64 });
    // @ts-expect-error a field the model does not take
    void client.submit(MODEL, { prompt: 'ok', widht: 64 });
    // a slug this client does not know (a model added later) takes any object
    void client.submit('a-model-added-later', { anything: true });
  };
  t.is(typeof typed, 'function');
});
