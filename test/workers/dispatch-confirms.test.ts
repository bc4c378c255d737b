// The `queued -> pending` marker after the publisher's confirms (workers/dispatch.ts, README "No
// request lost, none charged twice"): the publishes started in one turn of the event loop (one
// submit batch's requests) are marked by one statement once all of them have settled.
import test from 'ava';
import pino from 'pino';
import { startGateway, newAccount } from '../helpers/gateway.ts';
import { waitFor } from '../helpers/services.ts';
import { newPredictionId } from '../../db/predictions/record.ts';
import { createDispatcher } from '../../workers/dispatch.ts';
import type { TestGateway } from '../helpers/gateway.ts';
import type { Queue } from '../../workers/queue/types.ts';

async function queuedRows(gw: TestGateway, userId: number, n: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const id = newPredictionId(Date.now());
    await gw.app.store.submit({ p: { id, userId, apiKeyId: null, model: 'canvas-v1-fast-text-to-image', input: { prompt: id, width: 64, height: 64 }, price: 0, webhookUrl: null }, now: Date.now() });
    ids.push(id);
  }
  return ids;
}

const markers = (sql: string) => sql.includes("'pending'") && sql.includes("'queued'") && sql.startsWith('update');

test('requests published in one turn are marked pending by one statement once RabbitMQ confirmed them all', async (t) => {
  const gw = await startGateway();
  t.teardown(() => gw.stop());
  const acct = await newAccount(gw, 0);
  const ids = await queuedRows(gw, acct.userId, 12);
  const sizes: number[] = [];
  gw.app.db.on('query', (q: { sql: string; bindings?: unknown[] }) => { if (markers(q.sql)) sizes.push(ids.filter((id) => q.bindings?.includes(id)).length); });
  const confirmed = await Promise.all(ids.map((id) => gw.app.dispatcher.dispatch(id)));
  t.deepEqual(confirmed, ids.map(() => true));
  await waitFor(async () => (await gw.app.db('predictions').whereIn('id', ids).andWhere('status', 'pending')).length === ids.length, { what: 'every row pending' });
  t.deepEqual(sizes, [12]);
});

test('confirms that come apart, and a publish that fails, still mark the turn by one statement; the failed row stays queued for the sweeper', async (t) => {
  const gw = await startGateway({ queue: 'memory' });
  t.teardown(() => gw.stop());
  const acct = await newAccount(gw, 0);
  const ids = await queuedRows(gw, acct.userId, 5);
  const refused = ids[2]!;
  // the in-process queue, its confirms 10 ms apart (as a broker's in several frames), refusing one
  // message as a broker that returned it would
  const inner = gw.app.queue;
  const queue: Queue = Object.assign(Object.create(inner) as Queue, {
    publish: async (topic: string, body: unknown, opts?: { attempt?: number; delayMs?: number }) => {
      const id = (body as { id: string }).id;
      await new Promise((r) => setTimeout(r, 10 * ids.indexOf(id)));
      if (id === refused) throw new Error('unroutable');
      return inner.publish(topic, body, opts);
    },
  });
  const dispatcher = createDispatcher({ db: gw.app.db, store: gw.app.store, queue, log: pino({ level: 'silent' }), clock: Date.now, graceMs: 60_000 });
  let statements = 0;
  gw.app.db.on('query', (q: { sql: string }) => { if (markers(q.sql)) statements++; });
  t.deepEqual(await Promise.all(ids.map((id) => dispatcher.dispatch(id))), ids.map((id) => id !== refused));
  await waitFor(async () => (await gw.app.db('predictions').whereIn('id', ids).andWhere('status', 'pending')).length === 4, { what: 'the confirmed rows pending' });
  await dispatcher.stop();
  t.is((await gw.app.db('predictions').where({ id: refused }).first()).status, 'queued');
  t.is(statements, 1);
});

test('the marker waits DISPATCH_MARK_DELAY_MS: rows a worker claimed meanwhile are read, not written; stop ends the wait and marks the rest', async (t) => {
  const gw = await startGateway();
  t.teardown(() => gw.stop());
  const acct = await newAccount(gw, 0);
  const db = gw.app.db;
  const dispatcher = createDispatcher({ db, store: gw.app.store, queue: gw.app.queue, log: pino({ level: 'silent' }), clock: Date.now, graceMs: 60_000, markDelayMs: 300 });
  const written: string[][] = [];
  db.on('query', (q: { sql: string; bindings?: unknown[] }) => { if (markers(q.sql)) written.push((q.bindings ?? []).filter((b): b is string => typeof b === 'string')); });

  // claimed by a worker during the wait: only the rest is written, after the wait
  const ids = await queuedRows(gw, acct.userId, 6);
  t.deepEqual(await Promise.all(ids.map((id) => dispatcher.dispatch(id))), ids.map(() => true));
  const claimed = ids.slice(0, 4);
  await db('predictions').whereIn('id', claimed).update({ status: 'processing' });
  t.is((await db('predictions').whereIn('id', ids).andWhere('status', 'pending')).length, 0, 'nothing marked before the wait ends');
  await waitFor(async () => (await db('predictions').whereIn('id', ids).andWhere('status', 'pending')).length === 2, { what: 'the unclaimed rows pending' });
  t.deepEqual(written, [ids.slice(4).sort()]);
  t.deepEqual((await db('predictions').whereIn('id', claimed).pluck('status')) as string[], claimed.map(() => 'processing'));

  // every row claimed: nothing is written at all
  const taken = await queuedRows(gw, acct.userId, 3);
  await Promise.all(taken.map((id) => dispatcher.dispatch(id)));
  await db('predictions').whereIn('id', taken).update({ status: 'processing' });
  await new Promise((r) => setTimeout(r, 600));
  t.is(written.length, 1);

  await dispatcher.stop();

  // stopping ends the wait at once (this one's is a minute): the confirms still waiting are
  // marked before stop resolves
  const patient = createDispatcher({ db, store: gw.app.store, queue: gw.app.queue, log: pino({ level: 'silent' }), clock: Date.now, graceMs: 120_000, markDelayMs: 60_000 });
  const late = await queuedRows(gw, acct.userId, 3);
  await Promise.all(late.map((id) => patient.dispatch(id)));
  let waited: NodeJS.Timeout | undefined;
  const stopped = await Promise.race([patient.stop().then(() => 'stopped'), new Promise((r) => { waited = setTimeout(r, 20_000, 'still waiting for the marker'); })]);
  clearTimeout(waited);
  t.is(stopped, 'stopped');
  t.deepEqual((await db('predictions').whereIn('id', late).pluck('status')) as string[], late.map(() => 'pending'));
});
