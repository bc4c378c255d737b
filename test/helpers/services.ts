// Real services for integration tests: a throw-away MariaDB database per test file and a
// unique RabbitMQ prefix, both removed at teardown.
import crypto from 'node:crypto';
import knexFactory from 'knex';

export const MYSQL_ROOT = process.env.TEST_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306/test';
export const AMQP_URL = process.env.TEST_AMQP_URL ?? 'amqp://guest:guest@127.0.0.1:5672';

export function uniqueName(prefix: string): string {
  return `${prefix}_${process.pid}_${crypto.randomBytes(4).toString('hex')}`;
}

function rootKnex(root: string) {
  const url = new URL(root);
  return knexFactory({
    client: 'mysql2',
    connection: { host: url.hostname, port: Number(url.port || 3306), user: decodeURIComponent(url.username), password: decodeURIComponent(url.password) },
    pool: { min: 0, max: 1 },
  });
}

/** Creates a fresh database on the server of `rootUrl` and returns its URL and a function that drops it. */
export async function freshDatabase(rootUrl = MYSQL_ROOT): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = uniqueName('mg_t');
  const root = rootKnex(rootUrl);
  await root.raw(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
  await root.destroy();
  const url = new URL(rootUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const r = rootKnex(rootUrl);
      await r.raw(`DROP DATABASE IF EXISTS \`${name}\``);
      await r.destroy();
    },
  };
}

/** Polls `check` until it returns a truthy value or the time runs out. */
export async function waitFor<T>(check: () => Promise<T | undefined | null | false> | T | undefined | null | false, opts: { timeoutMs?: number; intervalMs?: number; what?: string } = {}): Promise<T> {
  const deadline = Date.now() + (opts.timeoutMs ?? 15_000);
  for (;;) {
    const v = await check();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${opts.what ?? 'condition'}`);
    await new Promise((r) => setTimeout(r, opts.intervalMs ?? 25));
  }
}

/**
 * Deletes the exchanges and queues that a queue with this prefix declared for these topics, so
 * tests leave no trace on the broker. The one clean-up helper for RabbitMQ test topology: a delete
 * that fails (and so closes its channel) does not stop the others.
 */
export async function deleteTopology(prefix: string, topics: ReadonlyArray<{ name: string; retryDelaysMs: readonly number[] }>, url = AMQP_URL): Promise<void> {
  const amqplib = await import('amqplib');
  const { topologyNames } = await import('../../workers/queue/amqp.ts');
  const conn = await amqplib.connect(url);
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
    for (const topic of topics) {
      const n = topologyNames(prefix, topic.name);
      for (const q of [n.queue, n.deadQueue, ...topic.retryDelaysMs.map(n.retry)]) await attempt(() => ch.deleteQueue(q));
    }
    // The exchanges are the prefix's, shared by every topic.
    const n = topologyNames(prefix, 'x');
    await attempt(() => ch.deleteExchange(n.work));
    await attempt(() => ch.deleteExchange(n.dead));
    // the credential cache's invalidation fanout (workers/queue/amqp/credential-broadcast.ts)
    await attempt(() => ch.deleteExchange(`${prefix}.credentials`));
    await ch.close().catch(() => {});
  } finally {
    await conn.close();
  }
}

/**
 * Messages of a topic waiting on the broker: ready in its work queue or in any of its delay
 * queues (not the dead-letter queue, and not those a consumer holds). With the topic's handlers
 * drained, 0 proves that no further delivery of it is on its way.
 */
export async function waitingMessages(prefix: string, topic: { name: string; retryDelaysMs: readonly number[] }, url = AMQP_URL): Promise<number> {
  const amqplib = await import('amqplib');
  const { topologyNames } = await import('../../workers/queue/amqp.ts');
  const conn = await amqplib.connect(url);
  try {
    const ch = await conn.createChannel();
    const n = topologyNames(prefix, topic.name);
    let total = 0;
    for (const q of [n.queue, ...topic.retryDelaysMs.map(n.retry)]) total += (await ch.checkQueue(q)).messageCount;
    await ch.close();
    return total;
  } finally {
    await conn.close();
  }
}
