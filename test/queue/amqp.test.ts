// Runs against the real broker (AMQP_URL, default the local RabbitMQ). Every test gets its own
// prefix and deletes its exchanges and queues, so runs in parallel with other suites do not mix.

import test from 'ava';
import type { ExecutionContext } from 'ava';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import net from 'node:net';
import { promisify } from 'node:util';
import { connect } from 'amqplib';
import type { ChannelModel, ConsumeMessage } from 'amqplib';
import { connectAmqp, topologyNames } from '../../workers/queue/amqp.ts';
import { QueueUnavailableError } from '../../workers/queue/types.ts';
import type { Delivery, Outcome, Queue, TopicSpec } from '../../workers/queue/types.ts';

const AMQP_URL = process.env.AMQP_URL ?? 'amqp://guest:guest@127.0.0.1:5672';
const filePrefix = `t${process.pid}_${randomBytes(3).toString('hex')}`;
let testCount = 0;

const jobs: TopicSpec = { name: 'jobs', retryDelaysMs: [50, 100, 200], maxRetries: 3 };
const ack: Outcome = { kind: 'ack' };

interface Opened {
  queue: Queue;
  prefix: string;
  logs: string[];
}

async function eventually(condition: () => boolean | Promise<boolean>, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

function deferred<T>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve = (_value: T): void => {};
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

async function rawConnection(t: ExecutionContext): Promise<ChannelModel> {
  const conn = await connect(AMQP_URL);
  conn.on('error', () => {});
  t.teardown(() => conn.close().catch(() => {}));
  return conn;
}

async function deleteTopology(prefix: string, specs: readonly TopicSpec[]): Promise<void> {
  const conn = await connect(AMQP_URL);
  conn.on('error', () => {});
  try {
    let ch = await conn.createChannel();
    ch.on('error', () => {});
    const attempt = async (op: () => Promise<unknown>): Promise<void> => {
      try {
        await op();
      } catch {
        ch = await conn.createChannel();
        ch.on('error', () => {});
      }
    };
    for (const spec of specs) {
      const n = topologyNames(prefix, spec.name);
      await attempt(() => ch.deleteQueue(n.queue));
      await attempt(() => ch.deleteQueue(n.deadQueue));
      for (const d of spec.retryDelaysMs) await attempt(() => ch.deleteQueue(n.retry(d)));
    }
    const n = topologyNames(prefix, 'x');
    await attempt(() => ch.deleteExchange(n.work));
    await attempt(() => ch.deleteExchange(n.dead));
  } finally {
    await conn.close();
  }
}

async function open(t: ExecutionContext, specs: readonly TopicSpec[] = [jobs], url = AMQP_URL): Promise<Opened> {
  const prefix = `${filePrefix}_${testCount++}`;
  const logs: string[] = [];
  const queue = await connectAmqp(url, { prefix, log: (msg) => logs.push(msg) });
  t.teardown(async () => {
    await queue.close();
    await deleteTopology(prefix, specs);
  });
  await queue.setup(specs);
  return { queue, prefix, logs };
}

async function messageCount(conn: ChannelModel, queueName: string): Promise<number> {
  const ch = await conn.createChannel();
  const { messageCount: count } = await ch.checkQueue(queueName);
  await ch.close();
  return count;
}

/** Closes our connection from the broker's side, as an operator or a node restart would. */
async function forceCloseFromBroker(prefix: string): Promise<void> {
  const run = promisify(execFile);
  const { stdout } = await run('rabbitmqctl', ['list_connections', 'pid', 'client_properties', '-q', '--no-table-headers']);
  const marker = `{"connection_name","mediagate ${prefix}"}`;
  const pids = stdout
    .split('\n')
    .filter((line) => line.includes(marker))
    .map((line) => line.split('\t')[0] ?? '');
  if (pids.length !== 1) throw new Error(`expected one connection named for ${prefix}, found ${pids.length}`);
  await run('rabbitmqctl', ['close_connection', pids[0] ?? '', 'test: forced close']);
}

/** A TCP relay to the broker that the test can cut, standing in for a network outage. */
async function relay(t: ExecutionContext): Promise<{ url: string; cut: () => Promise<void>; restore: () => Promise<void> }> {
  const upstream = new URL(AMQP_URL);
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const broker = net.connect(Number(upstream.port || 5672), upstream.hostname);
    for (const s of [client, broker]) {
      sockets.add(s);
      s.on('error', () => {});
      s.on('close', () => {
        sockets.delete(s);
        client.destroy();
        broker.destroy();
      });
    }
    client.pipe(broker).pipe(client);
  });
  const listen = (port: number): Promise<void> =>
    new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
  await listen(0);
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('relay has no port');
  const { port } = address;
  const cut = async (): Promise<void> => {
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      for (const s of sockets) s.destroy();
    });
  };
  t.teardown(cut);
  const url = new URL(AMQP_URL);
  url.host = `127.0.0.1:${port}`;
  return { url: url.toString(), cut, restore: () => listen(port) };
}

test('a published message reaches the consumer on its first attempt', async (t) => {
  const { queue } = await open(t);
  t.true(queue.durable);
  const seen: Array<Delivery<{ n: number; text: string }>> = [];
  await queue.consume<{ n: number; text: string }>('jobs', async (d) => {
    seen.push(d);
    return ack;
  }, { prefetch: 1 });
  await queue.publish('jobs', { n: 1, text: 'héllo' });
  await eventually(() => seen.length === 1, 'the message is delivered');
  t.deepEqual(seen[0], { body: { n: 1, text: 'héllo' }, attempt: 0, redelivered: false });
  await queue.ping();
});

test('a published message is persistent JSON carrying its attempt and a unique id', async (t) => {
  const { queue, prefix } = await open(t);
  await queue.publish('jobs', { n: 1 }, { attempt: 2 });
  await queue.publish('jobs', { n: 2 });
  const conn = await rawConnection(t);
  const ch = await conn.createChannel();
  const first = await ch.get(topologyNames(prefix, 'jobs').queue, { noAck: true });
  const second = await ch.get(topologyNames(prefix, 'jobs').queue, { noAck: true });
  if (first === false || second === false) return t.fail('messages are missing from the work queue');
  t.deepEqual(JSON.parse(first.content.toString('utf8')), { n: 1 });
  t.is(first.properties.deliveryMode, 2);
  t.is(first.properties.contentType, 'application/json');
  t.is(first.properties.headers?.['x-attempt'], 2);
  t.is(second.properties.headers?.['x-attempt'], 0);
  t.is(typeof first.properties.messageId, 'string');
  t.not(first.properties.messageId, second.properties.messageId);
});

test('a consumer never holds more messages than its prefetch', async (t) => {
  const { queue, prefix } = await open(t);
  const conn = await rawConnection(t);
  const release = deferred<void>();
  let active = 0;
  let maxActive = 0;
  let done = 0;
  await queue.consume('jobs', async () => {
    active++;
    maxActive = Math.max(maxActive, active);
    await release.promise;
    active--;
    done++;
    return ack;
  }, { prefetch: 3 });
  await Promise.all(Array.from({ length: 10 }, (_, n) => queue.publish('jobs', { n })));
  // The broker holding back the other seven is what proves the bound, not our own bookkeeping.
  await eventually(
    async () => active === 3 && (await messageCount(conn, topologyNames(prefix, 'jobs').queue)) === 7,
    'three run and seven wait in the queue',
  );
  release.resolve();
  await eventually(() => done === 10, 'all ten are handled');
  t.is(maxActive, 3);
});

test('a retry comes back with the next attempt number after the rounded-up delay', async (t) => {
  const { queue } = await open(t);
  const calls: Array<{ attempt: number; at: number }> = [];
  await queue.consume('jobs', async (d) => {
    calls.push({ attempt: d.attempt, at: Date.now() });
    // 70 ms is not a configured delay, so the retry waits in the 100 ms queue.
    return d.attempt < 2 ? { kind: 'retry', delayMs: 70, reason: 'busy' } : ack;
  }, { prefetch: 1 });
  await queue.publish('jobs', { n: 1 });
  await eventually(() => calls.length === 3, 'three attempts are made');
  t.deepEqual(calls.map((c) => c.attempt), [0, 1, 2]);
  for (let i = 1; i < calls.length; i++) {
    const gap = (calls[i]?.at ?? 0) - (calls[i - 1]?.at ?? 0);
    t.true(gap >= 99, `gap ${gap} ms should be at least the 100 ms delay`);
  }
  t.is(await queue.deadLetterCount('jobs'), 0);
});

test('a message retried past maxRetries lands in the dead-letter queue with its reason', async (t) => {
  const spec: TopicSpec = { name: 'jobs', retryDelaysMs: [50], maxRetries: 2 };
  const { queue, prefix } = await open(t, [spec]);
  const attempts: number[] = [];
  await queue.consume('jobs', async (d) => {
    attempts.push(d.attempt);
    return { kind: 'retry', delayMs: 50, reason: 'upstream 503' };
  }, { prefetch: 1 });
  await queue.publish('jobs', { n: 1 });
  await eventually(async () => (await queue.deadLetterCount('jobs')) === 1, 'the message is dead-lettered');
  t.deepEqual(attempts, [0, 1, 2]);
  const conn = await rawConnection(t);
  const n = topologyNames(prefix, 'jobs');
  // Nothing is left to come back: the work and delay queues are empty and the copy was acked.
  t.is(await messageCount(conn, n.queue), 0);
  t.is(await messageCount(conn, n.retry(50)), 0);
  const ch = await conn.createChannel();
  const dead = await ch.get(n.deadQueue, { noAck: false });
  if (dead === false) return t.fail('dead-letter queue is empty');
  t.deepEqual(JSON.parse(dead.content.toString('utf8')), { n: 1 });
  t.regex(String(dead.properties.headers?.['x-dead-reason']), /gave up after 2 retries: upstream 503/);
  ch.nack(dead, false, true);
  t.deepEqual(attempts, [0, 1, 2]);
});

test('a handler that throws is retried with the first delay', async (t) => {
  const { queue } = await open(t);
  const calls: Array<{ attempt: number; at: number }> = [];
  await queue.consume('jobs', async (d) => {
    calls.push({ attempt: d.attempt, at: Date.now() });
    if (d.attempt === 0) throw new Error('boom');
    return ack;
  }, { prefetch: 1 });
  await queue.publish('jobs', { n: 1 });
  await eventually(() => calls.length === 2, 'the message is retried');
  t.deepEqual(calls.map((c) => c.attempt), [0, 1]);
  t.true((calls[1]?.at ?? 0) - (calls[0]?.at ?? 0) >= 49);
  t.is(await queue.deadLetterCount('jobs'), 0);
});

test('a message whose body is not JSON is dead-lettered without reaching the handler', async (t) => {
  const { queue, prefix } = await open(t);
  let calls = 0;
  await queue.consume('jobs', async () => {
    calls++;
    return ack;
  }, { prefetch: 1 });
  const conn = await rawConnection(t);
  const ch = await conn.createConfirmChannel();
  ch.publish(topologyNames(prefix, 'jobs').work, 'jobs', Buffer.from('{not json'), { persistent: true });
  await ch.waitForConfirms();
  await eventually(async () => (await queue.deadLetterCount('jobs')) === 1, 'the message is dead-lettered');
  const dead = await ch.get(topologyNames(prefix, 'jobs').deadQueue, { noAck: true });
  if (dead === false) return t.fail('dead-letter queue is empty');
  t.regex(String(dead.properties.headers?.['x-dead-reason']), /unparsable JSON/);
  t.is(dead.content.toString('utf8'), '{not json');
  t.is(calls, 0);
});

test('a publish that no queue can take is rejected', async (t) => {
  const { queue, prefix } = await open(t);
  const conn = await rawConnection(t);
  const ch = await conn.createChannel();
  await ch.deleteQueue(topologyNames(prefix, 'jobs').queue);
  await t.throwsAsync(queue.publish('jobs', { n: 1 }), { instanceOf: QueueUnavailableError, message: /unroutable/ });
  await t.throwsAsync(queue.publish('nope', { n: 1 }), { message: /not set up/ });
  // The publisher survives a returned message: the delay queue still exists and takes this one.
  await queue.publish('jobs', { n: 2 }, { delayMs: 50 });
  await queue.ping();
});

test('a message held by a consumer that dies is redelivered to another consumer', async (t) => {
  const { queue, prefix } = await open(t);
  const other = await rawConnection(t);
  const ch = await other.createChannel();
  await ch.prefetch(1);
  const held = deferred<ConsumeMessage>();
  await ch.consume(topologyNames(prefix, 'jobs').queue, (msg) => {
    if (msg !== null) held.resolve(msg);
  }, { noAck: false });
  await queue.publish('jobs', { n: 7 });
  const first = await held.promise;
  t.false(first.fields.redelivered);

  const seen: Array<Delivery<{ n: number }>> = [];
  await queue.consume<{ n: number }>('jobs', async (d) => {
    seen.push(d);
    return ack;
  }, { prefetch: 1 });
  await other.close();
  await eventually(() => seen.length === 1, 'the message is redelivered');
  t.deepEqual(seen[0], { body: { n: 7 }, attempt: 0, redelivered: true });
});

test('after the broker force-closes the connection the queue reconnects and consumes again', async (t) => {
  const { queue, prefix, logs } = await open(t);
  const seen: number[] = [];
  await queue.consume<{ n: number }>('jobs', async (d) => {
    seen.push(d.body.n);
    return ack;
  }, { prefetch: 1 });
  await queue.publish('jobs', { n: 1 });
  await eventually(() => seen.includes(1), 'the first message is consumed');

  await forceCloseFromBroker(prefix);
  await eventually(() => logs.some((l) => l.startsWith('lost connection')), 'the loss is noticed');
  await eventually(() => logs.includes('reconnected to RabbitMQ'), 'the queue reconnects');
  await queue.publish('jobs', { n: 2 });
  await eventually(() => seen.includes(2), 'the re-created consumer takes the next message');
  await queue.ping();
  t.deepEqual(seen, [1, 2]);
});

test('while the broker is unreachable publish and ping fail at once, and work resumes after', async (t) => {
  const link = await relay(t);
  const { queue } = await open(t, [jobs], link.url);
  const seen: number[] = [];
  await queue.consume<{ n: number }>('jobs', async (d) => {
    seen.push(d.body.n);
    return ack;
  }, { prefetch: 1 });

  await link.cut();
  await eventually(async () => queue.ping().then(() => false, () => true), 'the outage is noticed');
  const startedAt = Date.now();
  await t.throwsAsync(queue.publish('jobs', { n: 1 }), { instanceOf: QueueUnavailableError });
  await t.throwsAsync(queue.ping(), { instanceOf: QueueUnavailableError });
  t.true(Date.now() - startedAt < 100, 'refused without waiting for the broker');

  await link.restore();
  await eventually(async () => queue.publish('jobs', { n: 2 }).then(() => true, () => false), 'publishing works again');
  await eventually(() => seen.includes(2), 'the consumer is re-created');
  t.false(seen.includes(1));
});

test('connecting to an unreachable broker fails with QueueUnavailableError', async (t) => {
  const link = await relay(t);
  await link.cut();
  await t.throwsAsync(connectAmqp(link.url, { prefix: `${filePrefix}_unreachable` }), { instanceOf: QueueUnavailableError });
});

test.serial('thousands of concurrent publishes are all confirmed', async (t) => {
  const { queue, prefix } = await open(t);
  const count = 2000;
  const payload = 'x'.repeat(256);
  const startedAt = performance.now();
  await Promise.all(Array.from({ length: count }, (_, n) => queue.publish('jobs', { n, payload })));
  const seconds = (performance.now() - startedAt) / 1000;
  t.log(`${count} confirmed publishes in ${(seconds * 1000).toFixed(0)} ms: ${Math.round(count / seconds)} msg/s`);
  const conn = await rawConnection(t);
  t.is(await messageCount(conn, topologyNames(prefix, 'jobs').queue), count);
});

test('publishes that outrun the socket wait for it to drain and are all confirmed', async (t) => {
  const { queue, prefix, logs } = await open(t);
  const count = 1500;
  const payload = 'x'.repeat(16 * 1024);
  await Promise.all(Array.from({ length: count }, (_, n) => queue.publish('jobs', { n, payload })));
  t.true(logs.includes('publish buffer full; waiting for it to drain'), 'the write buffer filled up');
  const conn = await rawConnection(t);
  t.is(await messageCount(conn, topologyNames(prefix, 'jobs').queue), count);
});

test('close waits for a running handler to settle before closing the connection', async (t) => {
  const { queue, prefix } = await open(t);
  const started = deferred<void>();
  let finished = false;
  await queue.consume('jobs', async () => {
    started.resolve();
    await new Promise((resolve) => setTimeout(resolve, 100));
    finished = true;
    return { kind: 'dead-letter', reason: 'settled during close' };
  }, { prefetch: 1 });
  await queue.publish('jobs', { n: 1 });
  await started.promise;
  await queue.close();
  t.true(finished);
  await t.throwsAsync(queue.publish('jobs', {}), { instanceOf: QueueUnavailableError });
  await t.throwsAsync(queue.ping(), { instanceOf: QueueUnavailableError });
  const conn = await rawConnection(t);
  // The dead-letter copy was confirmed and the original acked before the connection went away.
  t.is(await messageCount(conn, topologyNames(prefix, 'jobs').deadQueue), 1);
  t.is(await messageCount(conn, topologyNames(prefix, 'jobs').queue), 0);
});

test('stopConsuming takes no new message while a running handler goes on; requeue hands its message to another consumer', async (t) => {
  const { queue, prefix } = await open(t);
  const started = deferred<void>();
  const finish = deferred<Outcome>();
  const seen: Array<Delivery<{ n: number }>> = [];
  await queue.consume<{ n: number }>('jobs', async (d) => {
    seen.push(d);
    started.resolve();
    return finish.promise;
  }, { prefetch: 1 });
  await queue.publish('jobs', { n: 1 });
  await started.promise;
  await queue.stopConsuming();
  await queue.publish('jobs', { n: 2 });
  const conn = await rawConnection(t);
  const name = topologyNames(prefix, 'jobs').queue;
  // n: 2 waits in the queue (nobody consumes it) and n: 1 is still held by the running handler.
  await eventually(async () => (await messageCount(conn, name)) === 1, 'the second message waits in the queue');
  t.is(await queue.drain(0), 1, 'the handler is still running');

  finish.resolve({ kind: 'requeue', reason: 'shutting down' });
  t.is(await queue.drain(10_000), 0);
  const ch = await conn.createChannel();
  const got: ConsumeMessage[] = [];
  await ch.consume(name, (msg) => {
    if (msg !== null) got.push(msg);
  }, { noAck: true });
  await eventually(() => got.length === 2, 'both messages reach another consumer');
  const first = got.find((m) => JSON.parse(m.content.toString()).n === 1);
  t.truthy(first);
  t.true(first!.fields.redelivered, 'the handed-back message comes back marked redelivered');
  t.deepEqual(seen.map((d) => d.body.n), [1], 'the stopped consumer took nothing more');
});

test('depth counts the messages ready in a topic queue, for the metrics scrape', async (t) => {
  const { queue } = await open(t);
  t.is(await queue.depth('jobs'), 0);
  await queue.publish('jobs', { n: 1 });
  await queue.publish('jobs', { n: 2 });
  await eventually(async () => (await queue.depth('jobs')) === 2, 'both messages are counted');
  await t.throwsAsync(queue.depth('unknown'));
});
