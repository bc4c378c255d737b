// Following a prediction (README "Following a prediction"): the SSE stream through the real
// worker on both transports, owner scoping, a client going away mid-stream, and `Prefer: wait`
// on submit (with an Idempotency-Key replay). Serial: the open-stream count is per process.
import test from 'ava';
import type { AddressInfo } from 'node:net';
import { startGateway, newAccount } from '../helpers/gateway.ts';
import type { TestGateway } from '../helpers/gateway.ts';
import { waitFor } from '../helpers/services.ts';
import { callOperation } from '../helpers/operation.ts';
import { startUpstream } from '../helpers/upstream.ts';
import type { FakeUpstream } from '../helpers/upstream.ts';
import { createRunModel } from '../../workers/run-model.ts';
import { openStreamCount } from '../../handlers/predictions.ts';
import { activeWatches } from '../../handlers/prediction-watch.ts';
import { creditWallet } from '../../db/wallet/moves.ts';

const LOCAL_MODEL = 'canvas-v1-fast-text-to-image';
const UPSTREAM_MODEL = 'lumen-dev-text-to-image';
const ORDER = ['queued', 'pending', 'processing', 'completed'];

interface Gw { gw: TestGateway; base: string; startWorker(): Promise<void> }
let upstream: FakeUpstream;
const gateways: Record<'amqp' | 'memory', Gw> = {} as Record<'amqp' | 'memory', Gw>;

/** A gateway listening on a real port, whose worker starts when the test says so. */
async function gateway(queue: 'amqp' | 'memory'): Promise<Gw> {
  const gw = await startGateway({ queue, env: { UPSTREAM_LUMEN_URL: upstream.url, UPSTREAM_ALLOW_PRIVATE_OUTPUTS: 'true' } });
  await new Promise<void>((resolve) => gw.server.listener.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(gw.server.listener.address() as AddressInfo).port}`;
  let runModel: ReturnType<typeof createRunModel> | null = null;
  const stop = gw.stop;
  gw.stop = async () => {
    // listening was ours, not hapi's start(): closing it is ours too
    gw.server.listener.closeAllConnections();
    await new Promise((resolve) => gw.server.listener.close(resolve));
    runModel?.abortAll();
    await stop();
  };
  return {
    gw,
    base,
    async startWorker() {
      if (runModel) return;
      runModel = createRunModel(gw.app);
      await gw.app.queue.consume('predictions', runModel.handle, { prefetch: 4 });
    },
  };
}

test.before(async () => {
  upstream = await startUpstream();
  gateways.amqp = await gateway('amqp');
  gateways.memory = await gateway('memory');
});
test.after.always(async () => {
  upstream?.release();
  await gateways.amqp?.gw.stop();
  await gateways.memory?.gw.stop();
  await upstream?.close();
});

interface SseEvent { event: string; data: { id: string; status: string; outputs: string[] } }

/** An SSE client over real HTTP: `next()` gives the next event, or null once the stream ended. */
async function openStream(g: Gw, key: string, id: string, query = '') {
  const controller = new AbortController();
  const res = await fetch(`${g.base}/api/v1/predictions/${id}/stream${query}`, { headers: { 'x-api-key': key, 'accept-encoding': 'gzip' }, signal: controller.signal });
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  return {
    res,
    close: () => controller.abort(),
    async next(): Promise<SseEvent | null> {
      for (;;) {
        const end = buffer.indexOf('\n\n');
        if (end >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const lines = block.split('\n').filter((l) => !l.startsWith(':'));
          if (!lines.length) continue; // a comment (keep-alive)
          const field = (name: string) => lines.find((l) => l.startsWith(`${name}: `))?.slice(name.length + 2);
          return { event: field('event')!, data: JSON.parse(field('data')!) };
        }
        const { value, done } = await reader.read();
        if (done) return null;
        buffer += value;
      }
    },
  };
}

async function submit(g: Gw, key: string, model: string, headers: Record<string, string> = {}) {
  const body = model === LOCAL_MODEL ? { prompt: 'followed', width: 64, height: 64 } : { prompt: 'followed' };
  return callOperation<Record<string, unknown>>(g.gw, model, { as: key, body, headers });
}

for (const queue of ['memory', 'amqp'] as const) {
  test.serial(`${queue}: the stream of a local model sees its states in order and ends at completed`, async (t) => {
    const g = gateways[queue];
    const acct = await newAccount(g.gw, 10_000);
    // no worker yet: the prediction waits in the queue, so the stream starts before it runs
    const sub = await submit(g, acct.liveKey, LOCAL_MODEL);
    t.is(sub.status, 200, sub.raw.payload);
    const id = sub.body.request_id as string;
    const stream = await openStream(g, acct.liveKey, id);
    t.is(stream.res.status, 200);
    t.teardown(stream.close);
    t.regex(stream.res.headers.get('content-type') ?? '', /^text\/event-stream\b/);
    t.is(stream.res.headers.get('cache-control'), 'no-cache');
    t.not(stream.res.headers.get('content-encoding'), 'gzip');
    // queued until the dispatcher marks the confirm (DISPATCH_MARK_DELAY_MS), then pending
    const first = await stream.next();
    t.is(first?.event, 'queued');
    const second = await stream.next();
    t.is(second?.event, 'pending');
    await g.startWorker();
    const seen = [first!, second!];
    for (let e = await stream.next(); e; e = await stream.next()) seen.push(e);
    const states = seen.map((e) => e.event);
    t.is(states.at(-1), 'completed', states.join(' '));
    // strictly in the state machine's order, each at most once (a fast step may fall between two reads)
    t.deepEqual(states, [...new Set(states)].sort((a, b) => ORDER.indexOf(a) - ORDER.indexOf(b)));
    for (const e of seen) t.is(e.data.status, e.event);
    // the result route's body, with what a running job reports (nothing once it is finished)
    const last = seen.at(-1)!.data as SseEvent['data'] & { queue_position: unknown; progress: unknown };
    t.is(last.queue_position, null);
    t.is(last.progress, null);
    const result = await callOperation(g.gw, 'getPredictionResult', { as: acct.liveKey, params: { request_id: id } });
    t.deepEqual(last, result.body);
    t.is(last.outputs.length, 1);
  });
}

test.serial('amqp: a held upstream job streams pending/processing, then completed once released', async (t) => {
  const g = gateways.amqp;
  await g.startWorker();
  const acct = await newAccount(g.gw, 10_000);
  upstream.hold = true;
  const calls = upstream.calls;
  const sub = await submit(g, acct.liveKey, UPSTREAM_MODEL);
  t.is(sub.status, 200, sub.raw.payload);
  const stream = await openStream(g, acct.liveKey, sub.body.request_id as string);
  t.teardown(stream.close);
  const states: string[] = [];
  for (let e = await stream.next(); e; e = await stream.next()) {
    states.push(e.event);
    if (e.event === 'processing') {
      await waitFor(() => upstream.calls > calls, { what: 'the worker to call the upstream' });
      upstream.release();
    }
  }
  t.true(states.includes('processing'), states.join(' '));
  t.is(states.at(-1), 'completed');
  t.deepEqual(states, [...new Set(states)].sort((a, b) => ORDER.indexOf(a) - ORDER.indexOf(b)));
});

test.serial('a member removed from the team while following a team prediction gets no further event: the stream ends at the next one', async (t) => {
  const g = gateways.memory;
  const owner = await newAccount(g.gw, 0);
  const member = await newAccount(g.gw, 0);
  const team = await callOperation<{ id: number }>(g.gw, 'createTeam', { as: owner.session, body: { name: 'studio' } });
  t.is(team.status, 201, team.raw.payload);
  const teamId = team.body.id;
  await g.gw.app.db('team_members').insert({ team_id: teamId, user_id: member.userId, role: 'developer', created_at: Date.now() });
  await g.gw.app.db.transaction((trx) => creditWallet(trx, { userId: owner.userId, teamId }, 10_000, 'grant', 'test credit', Date.now()));
  // no worker: the prediction waits, so the stream is open before anything more happens
  const sub = await callOperation<{ request_id: string }>(g.gw, LOCAL_MODEL, { as: member.liveKey, query: { team_id: teamId }, body: { prompt: 'team run', width: 64, height: 64 } });
  t.is(sub.status, 200, sub.raw.payload);
  const stream = await openStream(g, member.liveKey, sub.body.request_id, `?team_id=${teamId}`);
  t.teardown(stream.close);
  t.is(stream.res.status, 200);
  t.truthy(await stream.next(), 'the current state comes first');

  const removed = await callOperation(g.gw, 'removeTeamMember', { as: owner.session, params: { team_id: teamId, user_id: member.userId } });
  t.true(removed.status < 300, removed.raw.payload);
  await g.startWorker();
  // the prediction goes on to completion, but the removed member hears nothing more of it
  await waitFor(async () => (await callOperation<{ status: string }>(g.gw, 'getPredictionResult', { as: owner.liveKey, query: { team_id: teamId }, params: { request_id: sub.body.request_id } })).body.status === 'completed', { what: 'the team prediction to complete' });
  t.is(await stream.next(), null, 'the stream ended without another event');
});

test.serial('a finished prediction gives one final event at once; another owner\'s id is 404', async (t) => {
  const g = gateways.amqp;
  const acct = await newAccount(g.gw, 0);
  const other = await newAccount(g.gw, 0);
  // sandbox predictions are born completed
  const sub = await submit(g, acct.testKey, LOCAL_MODEL);
  const id = sub.body.request_id as string;
  const reply = await callOperation(g.gw, 'streamPrediction', { as: acct.testKey, params: { request_id: id } });
  t.is(reply.status, 200);
  const blocks = reply.raw.payload.split('\n\n').filter(Boolean);
  t.is(blocks.length, 1, reply.raw.payload);
  t.true(blocks[0]!.startsWith('event: completed\ndata: '));

  t.is((await callOperation(g.gw, 'streamPrediction', { as: other.testKey, params: { request_id: id } })).status, 404);
  t.is((await callOperation(g.gw, 'streamPrediction', { as: other.liveKey, params: { request_id: id } })).status, 404);
});

test.serial('a client going away mid-stream stops its poll loop and timers', async (t) => {
  const g = gateways.amqp;
  await g.startWorker();
  const acct = await newAccount(g.gw, 10_000);
  upstream.hold = true;
  t.teardown(() => upstream.release());
  const sub = await submit(g, acct.liveKey, UPSTREAM_MODEL);
  const before = openStreamCount();
  const stream = await openStream(g, acct.liveKey, sub.body.request_id as string);
  t.truthy(await stream.next());
  t.is(openStreamCount(), before + 1);
  stream.close();
  await waitFor(() => openStreamCount() === before, { what: 'the stream to notice the disconnect' });
  t.pass();
});

test.serial('Prefer: wait=30 answers the result of a fast local model', async (t) => {
  const g = gateways.amqp;
  await g.startWorker();
  const acct = await newAccount(g.gw, 10_000);
  const key = 'wait-once-0001';
  const reply = await submit(g, acct.liveKey, LOCAL_MODEL, { prefer: 'wait=30', 'idempotency-key': key });
  t.is(reply.status, 200, reply.raw.payload);
  t.is(reply.headers['preference-applied'], 'wait=30');
  t.is(reply.body.status, 'completed');
  t.is((reply.body.outputs as string[]).length, 1);
  t.is(reply.body.request_id, undefined);
  t.truthy(reply.headers['x-cost']);
  // a replay answers the first answer, result body and Preference-Applied included
  const again = await submit(g, acct.liveKey, LOCAL_MODEL, { prefer: 'wait=30', 'idempotency-key': key });
  t.is(again.headers['idempotent-replayed'], 'true');
  t.is(again.headers['preference-applied'], 'wait=30');
  t.deepEqual(again.body, reply.body);

  // a wait over 60 s is clamped to 60
  const clamped = await submit(g, acct.liveKey, LOCAL_MODEL, { prefer: 'respond-async, wait=600' });
  t.is(clamped.headers['preference-applied'], 'wait=60');
});

test.serial('Prefer: wait=1 on a slow model answers the request id once the wait is over', async (t) => {
  const g = gateways.amqp;
  await g.startWorker();
  const acct = await newAccount(g.gw, 10_000);
  upstream.hold = true;
  t.teardown(() => upstream.release());
  const reply = await submit(g, acct.liveKey, UPSTREAM_MODEL, { prefer: 'wait=1' });
  t.is(reply.status, 200, reply.raw.payload);
  t.is(reply.headers['preference-applied'], undefined);
  t.is(typeof reply.body.request_id, 'string');
  t.is(reply.body.status, 'queued');
});

test.serial('Prefer: wait stops waiting when the client goes away', async (t) => {
  const g = gateways.amqp;
  await g.startWorker();
  const acct = await newAccount(g.gw, 10_000);
  upstream.hold = true;
  t.teardown(() => upstream.release());
  const before = activeWatches();
  const controller = new AbortController();
  const pending = fetch(`${g.base}/api/v1/${UPSTREAM_MODEL}`, {
    method: 'POST',
    headers: { 'x-api-key': acct.liveKey, 'content-type': 'application/json', prefer: 'wait=60' },
    body: JSON.stringify({ prompt: 'abandoned' }),
    signal: controller.signal,
  }).catch((err: unknown) => err);
  await waitFor(() => activeWatches() === before + 1, { what: 'the submit to start waiting' });
  controller.abort();
  await pending;
  await waitFor(() => activeWatches() === before, { what: 'the wait to notice the disconnect' });
  t.pass();
});
