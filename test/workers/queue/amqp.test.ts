// RabbitMQ against the queue-transport contract (contract.ts), plus what only a broker shows:
// message properties, broker refusal, redelivery after a consumer dies, reconnecting, flow control.
// Runs against the real broker (TEST_AMQP_URL, default the local RabbitMQ). Every test gets its own
// prefix and deletes its exchanges and queues, so runs in parallel with other suites do not mix.

import test from 'ava';
import type { ExecutionContext } from 'ava';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import net from 'node:net';
import { promisify } from 'node:util';
import { connect } from 'amqplib';
import type { ChannelModel, ConsumeMessage } from 'amqplib';
import { connectAmqp, topologyNames } from '../../../workers/queue/amqp.ts';
import { coalesceWrites } from '../../../workers/queue/amqp/connection.ts';
import { QueueUnavailableError } from '../../../workers/queue/types.ts';
import type { Delivery, Outcome, Queue, TopicSpec } from '../../../workers/queue/types.ts';
import { AMQP_URL, deleteTopology, waitFor } from '../../helpers/services.ts';
import { amqpRelay } from '../../helpers/amqp-relay.ts';
import type { AmqpRelay } from '../../helpers/amqp-relay.ts';
import { ack, gate, jobs, queueContract } from './contract.ts';

const filePrefix = `t${process.pid}_${randomBytes(3).toString('hex')}`;
let testCount = 0;

interface Opened {
  queue: Queue;
  prefix: string;
  logs: string[];
}

async function rawConnection(t: ExecutionContext): Promise<ChannelModel> {
  const conn = await connect(AMQP_URL);
  conn.on('error', () => {});
  t.teardown(() => conn.close().catch(() => {}));
  return conn;
}

async function open(t: ExecutionContext, specs: readonly TopicSpec[] = [jobs], url = AMQP_URL, confirmTimeoutMs?: number): Promise<Opened> {
  const prefix = `${filePrefix}_${testCount++}`;
  const logs: string[] = [];
  const queue = await connectAmqp(url, { prefix, log: (msg) => logs.push(msg), ...(confirmTimeoutMs === undefined ? {} : { confirmTimeoutMs }) });
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

queueContract({
  durable: true,
  async open(t, specs = [jobs]) {
    const { queue, prefix } = await open(t, specs);
    const conn = await rawConnection(t);
    return {
      queue,
      // The broker holding the rest back (ready, not handed to any consumer) is what proves it.
      async settled(topic, waiting) {
        const name = topologyNames(prefix, topic).queue;
        await waitFor(async () => (await messageCount(conn, name)) === waiting, { what: `${waiting} messages to wait in ${name}` });
      },
    };
  },
});

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

/** A relay to the broker (test/helpers/amqp-relay.ts), thawed and cut when the test ends. */
async function relay(t: ExecutionContext): Promise<AmqpRelay> {
  const link = await amqpRelay();
  t.teardown(async () => {
    link.thaw();
    await link.cut();
  });
  return link;
}

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

test('a message given up on lands in the dead-letter queue with its reason, and nothing is left to come back', async (t) => {
  const spec: TopicSpec = { name: 'jobs', retryDelaysMs: [50], maxRetries: 2 };
  const { queue, prefix } = await open(t, [spec]);
  const attempts: number[] = [];
  await queue.consume('jobs', async (d) => {
    attempts.push(d.attempt);
    return { kind: 'retry', delayMs: 50, reason: 'upstream 503' };
  }, { prefetch: 1 });
  await queue.publish('jobs', { n: 1 });
  await waitFor(async () => (await queue.deadLetterCount('jobs')) === 1, { what: 'the message is dead-lettered' });
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
});

test('a dead-lettered copy leaves out the fields only the first delivery uses', async (t) => {
  const spec: TopicSpec = { name: 'jobs', retryDelaysMs: [50], maxRetries: 2, firstDeliveryOnly: ['ticket'] };
  const { queue, prefix } = await open(t, [spec]);
  await queue.consume('jobs', async () => ({ kind: 'dead-letter', reason: 'refused' }), { prefetch: 1 });
  await queue.publish('jobs', { id: 'p1', ticket: { input: '{"prompt":"private"}' } });
  await waitFor(async () => (await queue.deadLetterCount('jobs')) === 1, { what: 'the message is dead-lettered' });
  const conn = await rawConnection(t);
  const ch = await conn.createChannel();
  const dead = await ch.get(topologyNames(prefix, 'jobs').deadQueue, { noAck: false });
  if (dead === false) return t.fail('dead-letter queue is empty');
  t.deepEqual(JSON.parse(dead.content.toString('utf8')), { id: 'p1' });
  t.is(dead.properties.headers?.['x-dead-reason'], 'refused');
  ch.nack(dead, false, true);
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
  await waitFor(async () => (await queue.deadLetterCount('jobs')) === 1, { what: 'the message is dead-lettered' });
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
  const held = gate<ConsumeMessage>();
  await ch.consume(topologyNames(prefix, 'jobs').queue, (msg) => {
    if (msg !== null) held.open(msg);
  }, { noAck: false });
  await queue.publish('jobs', { n: 7 });
  const first = await held.wait;
  t.false(first.fields.redelivered);

  const seen: Array<Delivery<{ n: number }>> = [];
  await queue.consume<{ n: number }>('jobs', async (d) => {
    seen.push(d);
    return ack;
  }, { prefetch: 1 });
  await other.close();
  await waitFor(() => seen.length === 1, { what: 'the message is redelivered' });
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
  await waitFor(() => seen.includes(1), { what: 'the first message is consumed' });

  await forceCloseFromBroker(prefix);
  await waitFor(() => logs.some((l) => l.startsWith('lost connection')), { what: 'the loss is noticed' });
  await waitFor(() => logs.includes('reconnected to RabbitMQ'), { what: 'the queue reconnects' });
  await queue.publish('jobs', { n: 2 });
  await waitFor(() => seen.includes(2), { what: 'the re-created consumer takes the next message' });
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
  await waitFor(async () => queue.ping().then(() => false, () => true), { what: 'the outage is noticed' });
  // Both are refused while the link is still cut: a publish or ping that waited for the broker
  // would only settle after the restore below, and this test would time out instead.
  await t.throwsAsync(queue.publish('jobs', { n: 1 }), { instanceOf: QueueUnavailableError, message: /not connected/ });
  await t.throwsAsync(queue.ping(), { instanceOf: QueueUnavailableError, message: /not connected/ });

  await link.restore();
  await waitFor(async () => queue.publish('jobs', { n: 2 }).then(() => true, () => false), { what: 'publishing works again' });
  await waitFor(() => seen.includes(2), { what: 'the consumer is re-created' });
  t.false(seen.includes(1));
});

test('a publish the broker does not confirm in time (it stopped reading) fails as unavailable; publishing works again once it reads', async (t) => {
  const link = await relay(t);
  const { queue } = await open(t, [jobs], link.url, 500);
  // a confirm can take longer than 500 ms on a busy machine even while the broker reads: the
  // first publish only shows the link works, so it may take a few tries
  await waitFor(async () => queue.publish('jobs', { n: 1 }).then(() => true, () => false), { what: 'a first confirmed publish' });
  link.freeze();
  const started = Date.now();
  await t.throwsAsync(queue.publish('jobs', { n: 2 }), { instanceOf: QueueUnavailableError, message: /within 500 ms/ });
  t.true(Date.now() - started >= 450, 'it waited for the confirm first');
  link.thaw();
  await waitFor(async () => queue.publish('jobs', { n: 3 }).then(() => true, () => false), { what: 'publishing works again' });
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

test('close lets a running handler settle through the broker before closing the connection', async (t) => {
  const { queue, prefix, logs } = await open(t);
  const started = gate();
  const release = gate();
  await queue.consume('jobs', async () => {
    started.open();
    await release.wait;
    return { kind: 'dead-letter', reason: 'settled during close' };
  }, { prefetch: 1 });
  await queue.publish('jobs', { n: 1 });
  await started.wait;
  const closing = queue.close();
  release.open();
  await closing;
  t.false(logs.some((l) => l.startsWith('could not settle')), logs.join('; '));
  const conn = await rawConnection(t);
  // The dead-letter copy was confirmed and the original acked before the connection went away.
  t.is(await messageCount(conn, topologyNames(prefix, 'jobs').deadQueue), 1);
  t.is(await messageCount(conn, topologyNames(prefix, 'jobs').queue), 0);
});

test('after stopConsuming a requeued message goes back to the broker and on to another consumer, marked redelivered', async (t) => {
  const { queue, prefix } = await open(t);
  const started = gate();
  const finish = gate<Outcome>();
  const seen: Array<Delivery<{ n: number }>> = [];
  await queue.consume<{ n: number }>('jobs', async (d) => {
    seen.push(d);
    started.open();
    return finish.wait;
  }, { prefetch: 1 });
  await queue.publish('jobs', { n: 1 });
  await started.wait;
  await queue.stopConsuming();
  await queue.publish('jobs', { n: 2 });
  const conn = await rawConnection(t);
  const name = topologyNames(prefix, 'jobs').queue;
  // n: 2 waits in the queue (nobody consumes it) and n: 1 is still held by the running handler.
  await waitFor(async () => (await messageCount(conn, name)) === 1, { what: 'the second message waits in the queue' });
  t.is(await queue.drain(0), 1, 'the handler is still running');

  finish.open({ kind: 'requeue', reason: 'shutting down' });
  t.is(await queue.drain(10_000), 0);
  const ch = await conn.createChannel();
  const got: ConsumeMessage[] = [];
  await ch.consume(name, (msg) => {
    if (msg !== null) got.push(msg);
  }, { noAck: true });
  await waitFor(() => got.length === 2, { what: 'both messages reach another consumer' });
  const first = got.find((m) => JSON.parse(m.content.toString()).n === 1);
  t.truthy(first);
  t.true(first!.fields.redelivered, 'the handed-back message comes back marked redelivered');
  t.deepEqual(seen.map((d) => d.body.n), [1], 'the stopped consumer took nothing more');
});

/** Messages of a queue handed to a consumer and not yet acknowledged, as the broker counts them. */
async function unacked(queueName: string): Promise<number> {
  const { stdout } = await promisify(execFile)('rabbitmqctl', ['list_queues', 'name', 'messages_unacknowledged', '-q', '--no-table-headers']);
  const line = stdout.split('\n').find((l) => l.split('\t')[0] === queueName);
  if (line === undefined) throw new Error(`no queue ${queueName}`);
  return Number(line.split('\t')[1]);
}

test.serial('handlers that finish in the same turn are acknowledged with one frame, and every one of them is acknowledged', async (t) => {
  const { queue, prefix } = await open(t);
  // A spy on amqplib's channel class (every channel's): what the consumer sends, not what it does.
  const probe = await (await rawConnection(t)).createChannel();
  const proto = Object.getPrototypeOf(probe) as { ack(msg: ConsumeMessage, allUpTo?: boolean): void };
  const original = proto.ack;
  const acks: boolean[] = [];
  proto.ack = function (this: unknown, msg: ConsumeMessage, allUpTo?: boolean) {
    acks.push(allUpTo === true);
    original.call(this, msg, allUpTo);
  };
  t.teardown(() => {
    proto.ack = original;
  });
  const all = gate();
  let started = 0;
  await queue.consume('jobs', async () => {
    if (++started === 8) all.open();
    await all.wait;
    return ack;
  }, { prefetch: 8 });
  for (let n = 0; n < 8; n++) await queue.publish('jobs', { n });
  const name = topologyNames(prefix, 'jobs').queue;
  await waitFor(async () => started === 8 && (await unacked(name)) === 0, { what: 'all eight acknowledged', intervalMs: 200 });
  t.deepEqual(acks, [true], 'one ack with `multiple` for the eight');
});

test('a delivery still running is not acknowledged with the later ones, and comes back when handed back', async (t) => {
  const { queue, prefix } = await open(t);
  const first = gate<Outcome>();
  const seen: Array<Delivery<{ n: number }>> = [];
  await queue.consume<{ n: number }>('jobs', async (d) => {
    seen.push(d);
    return d.body.n === 1 && !d.redelivered ? first.wait : ack;
  }, { prefetch: 3 });
  for (const n of [1, 2, 3]) await queue.publish('jobs', { n });
  const name = topologyNames(prefix, 'jobs').queue;
  await waitFor(async () => seen.length === 3 && (await unacked(name)) === 1, { what: 'the two later messages acknowledged', intervalMs: 200 });
  first.open({ kind: 'requeue', reason: 'handed back' });
  await waitFor(() => seen.length === 4, { what: 'the first message comes back' });
  t.deepEqual(seen.map((d) => [d.body.n, d.redelivered]), [[1, false], [2, false], [3, false], [1, true]]);
  await waitFor(async () => (await unacked(name)) === 0, { what: 'the comeback acknowledged', intervalMs: 200 });
  const conn = await rawConnection(t);
  t.is(await messageCount(conn, name), 0);
  t.is(seen.length, 4, 'nothing else came back');
});

/** Counts the writes to the socket under a raw connection (each `_write` or `_writev` is one system call). */
function countSocketWrites(t: ExecutionContext, conn: ChannelModel): { writes: number } {
  const socket = (conn as unknown as { connection: { stream: net.Socket } }).connection.stream;
  const spied = socket as unknown as Record<'_write' | '_writev', (...args: unknown[]) => unknown>;
  const counter = { writes: 0 };
  for (const name of ['_write', '_writev'] as const) {
    const original = spied[name];
    spied[name] = function (this: unknown, ...args: unknown[]) {
      counter.writes++;
      return original.apply(this, args);
    };
  }
  t.truthy(socket instanceof net.Socket, 'the connection has its socket where coalesceWrites expects it');
  return counter;
}

test.serial('frames queued in one turn leave in one socket write, in their order, and are all confirmed', async (t) => {
  const conn = await rawConnection(t);
  t.true(coalesceWrites(conn), 'amqplib is the one coalesceWrites was written for');
  const counter = countSocketWrites(t, conn);
  const ch = await conn.createConfirmChannel();
  const { queue: name } = await ch.assertQueue('', { exclusive: true });
  const sent = Array.from({ length: 20 }, (_, n) => JSON.stringify({ n, pad: 'x'.repeat(n * 37) }));
  const before = counter.writes;
  const confirms = sent.map((body) => new Promise<void>((resolve, reject) => {
    ch.publish('', name, Buffer.from(body), { persistent: true, mandatory: true }, (err: unknown) => (err ? reject(err as Error) : resolve()));
  }));
  await Promise.all(confirms);
  t.is(counter.writes - before, 1, 'twenty publishes, one write');
  const got: string[] = [];
  for (;;) {
    const msg = await ch.get(name, { noAck: true });
    if (msg === false) break;
    got.push(msg.content.toString('utf8'));
  }
  t.deepEqual(got, sent, 'every message arrived whole, in order');

  // Without it amqplib writes each frame alone: what the test above would not tell apart otherwise.
  const plain = await rawConnection(t);
  const plainCounter = countSocketWrites(t, plain);
  const pch = await plain.createConfirmChannel();
  const plainBefore = plainCounter.writes;
  await Promise.all(sent.map((body) => new Promise<void>((resolve, reject) => {
    pch.publish('', name, Buffer.from(body), { persistent: true }, (err: unknown) => (err ? reject(err as Error) : resolve()));
  })));
  t.true(plainCounter.writes - plainBefore > 1, 'an uncorked connection writes the frames apart');
});

test('a burst of publishes through the queue is confirmed and consumed whole and in order', async (t) => {
  const { queue } = await open(t);
  const seen: number[] = [];
  const all = gate();
  await queue.consume<{ n: number; pad: string }>('jobs', async (d) => {
    t.is(d.body.pad.length, d.body.n * 11);
    seen.push(d.body.n);
    if (seen.length === 200) all.open();
    return ack;
  }, { prefetch: 1 });
  await Promise.all(Array.from({ length: 200 }, (_, n) => queue.publish('jobs', { n, pad: 'y'.repeat(n * 11) })));
  await all.wait;
  t.deepEqual(seen, Array.from({ length: 200 }, (_, n) => n));
});
