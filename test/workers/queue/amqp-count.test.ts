// Queue counts (depth, dead letters; for /metrics and the dashboard) are bounded in time and
// never leave their channel open: first against stand-ins for amqplib's connection and channel
// (every way a count can end), then against RabbitMQ stalled through a relay
// (test/helpers/amqp-relay.ts) that stops passing the client's bytes.
import test from 'ava';
import type { ChannelModel } from 'amqplib';
import { randomBytes } from 'node:crypto';
import { connectAmqp } from '../../../workers/queue/amqp.ts';
import { QUEUE_CHECK_TIMEOUT_MS, workQueueDepth } from '../../../workers/queue/amqp/topology.ts';
import { QueueUnavailableError } from '../../../workers/queue/types.ts';
import { deleteTopology } from '../../helpers/services.ts';
import { stallingRelay } from '../../helpers/amqp-relay.ts';
import { jobs } from './contract.ts';

const never = <T>() => new Promise<T>(() => {});

/** A connection whose channels answer checkQueue with `answer` (a count, an error, or never); records the closes. */
function fakeConnection(answer: () => Promise<{ messageCount: number }>, opened: () => Promise<void> = async () => {}) {
  const channels: Array<{ closed: number }> = [];
  const conn = {
    async createChannel() {
      await opened();
      const state = { closed: 0 };
      channels.push(state);
      return {
        on() {},
        checkQueue: answer,
        async close() {
          state.closed++;
        },
      };
    },
  };
  return { conn: conn as unknown as ChannelModel, channels };
}

test('a count answered closes its channel', async (t) => {
  const { conn, channels } = fakeConnection(async () => ({ messageCount: 7 }));
  t.is(await workQueueDepth(conn, 'p', 'jobs', 1_000), 7);
  t.deepEqual(channels, [{ closed: 1 }]);
});

test('a count refused (a missing queue) closes its channel', async (t) => {
  const { conn, channels } = fakeConnection(async () => { throw new Error('NOT_FOUND'); });
  await t.throwsAsync(workQueueDepth(conn, 'p', 'jobs', 1_000), { message: 'NOT_FOUND' });
  t.deepEqual(channels, [{ closed: 1 }]);
});

test('a count with no answer gives up after its bound and closes its channel', async (t) => {
  const { conn, channels } = fakeConnection(never);
  const started = performance.now();
  await t.throwsAsync(workQueueDepth(conn, 'p', 'jobs', 50), { instanceOf: QueueUnavailableError, message: /within 50 ms/ });
  t.true(performance.now() - started < 5_000);
  t.deepEqual(channels, [{ closed: 1 }]);
});

test('a channel that opens only after the count gave up is closed as it opens', async (t) => {
  let open!: () => void;
  const { conn, channels } = fakeConnection(never, () => new Promise<void>((resolve) => { open = resolve; }));
  await t.throwsAsync(workQueueDepth(conn, 'p', 'jobs', 50), { instanceOf: QueueUnavailableError });
  t.deepEqual(channels, []);
  open();
  await new Promise((resolve) => setImmediate(resolve));
  t.deepEqual(channels, [{ closed: 1 }]);
});

test('against a broker that stopped answering, depth and deadLetterCount fail within the bound', async (t) => {
  const relay = await stallingRelay();
  const prefix = `t${process.pid}_${randomBytes(3).toString('hex')}_count`;
  const queue = await connectAmqp(relay.url, { prefix });
  t.teardown(async () => {
    // the relay goes first: with the link gone the queue's close does not wait on the broker
    await relay.close();
    await queue.close();
    await deleteTopology(prefix, [jobs]);
  });
  await queue.setup([jobs]);
  t.is(await queue.depth('jobs'), 0);
  relay.freeze();
  const started = performance.now();
  const [depth, dead] = await Promise.allSettled([queue.depth('jobs'), queue.deadLetterCount('jobs')]);
  const elapsed = performance.now() - started;
  t.is(depth.status, 'rejected');
  t.is(dead.status, 'rejected');
  t.true(depth.status === 'rejected' && depth.reason instanceof QueueUnavailableError, String((depth as PromiseRejectedResult).reason));
  // the bound plus a wide margin for a loaded machine; without one both wait until RabbitMQ drops the connection
  t.true(elapsed < QUEUE_CHECK_TIMEOUT_MS + 10_000, `${Math.round(elapsed)} ms`);
});
