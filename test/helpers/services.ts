// Real services for integration tests: a throw-away MariaDB database per test file and a
// unique RabbitMQ prefix, both removed at teardown.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import knexFactory from 'knex';

export const MYSQL_ROOT = process.env.TEST_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306/test';
export const AMQP_URL = process.env.TEST_AMQP_URL ?? 'amqp://guest:guest@127.0.0.1:5672';

export function uniqueName(prefix: string): string {
  return `${prefix}_${process.pid}_${crypto.randomBytes(4).toString('hex')}`;
}

/** One connection to the server of `root`. */
function rootKnex(root: string) {
  const url = new URL(root);
  return knexFactory({
    client: 'mysql2',
    connection: { host: url.hostname, port: Number(url.port || 3306), user: decodeURIComponent(url.username), password: decodeURIComponent(url.password) },
    pool: { min: 0, max: 1 },
  });
}

/**
 * Creates a fresh database on the server of `rootUrl` and returns its URL and a function that drops
 * it. Empty by default; `{ migrated: true }` gives one already at the latest migration, copied
 * from a template database (below): on the 2-core machine 0.5-0.7 s idle and 2-4 s loaded,
 * where migrating took about 20 s loaded (most test files start several gateways).
 */
export async function freshDatabase(rootUrl = MYSQL_ROOT, opts: { migrated?: boolean } = {}): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = uniqueName('mg_t');
  const root = rootKnex(rootUrl);
  try {
    await root.raw(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
    if (opts.migrated) await copyTemplate(root, await migratedTemplate(root, rootUrl), name);
  } catch (err) {
    await root.raw(`DROP DATABASE IF EXISTS \`${name}\``).catch(() => {});
    throw err;
  } finally {
    await root.destroy();
  }
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

/** The migrations' fingerprint: a template is reused only while every migration file is as it was. Read once per process. */
let digest: string | undefined;
function migrationsDigest(): string {
  if (digest !== undefined) return digest;
  const dir = path.join(path.dirname(fileURLToPath(import.meta.url)), '../../db/migrations');
  const hash = crypto.createHash('sha256');
  for (const f of fs.readdirSync(dir).sort()) hash.update(f).update('\0').update(fs.readFileSync(path.join(dir, f))).update('\0');
  return (digest = hash.digest('hex').slice(0, 16));
}

/** The table a template holds once its migrations have all run; it is not copied. */
const TEMPLATE_READY = 'mg_template_ready';

/**
 * The name of a database on this server migrated to the latest migration, made by the first test
 * process that asks for it (the others wait on a server lock) and kept for the next runs. Its name
 * carries the migrations' fingerprint; a new one drops the server's templates finished more than a
 * day ago, so old ones do not pile up while two checkouts with different migrations can share a server.
 */
async function migratedTemplate(root: ReturnType<typeof rootKnex>, rootUrl: string): Promise<string> {
  const name = `mg_tpl_${migrationsDigest()}`;
  const [[{ got }]] = await root.raw('SELECT GET_LOCK(?, 600) AS got', [name]) as [[{ got: number }]];
  if (Number(got) !== 1) throw new Error(`the template database ${name} stayed locked for 10 minutes`);
  try {
    const [ready] = await root.raw('SELECT 1 FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ?', [name, TEMPLATE_READY]) as [unknown[]];
    if (ready.length > 0) return name;
    // Another checkout with other migrations (a second worktree) may be using its own template
    // right now, so only templates finished more than a day ago, and none being built, are dropped.
    const [old] = await root.raw(
      `SELECT s.SCHEMA_NAME AS s FROM information_schema.SCHEMATA s
       LEFT JOIN information_schema.TABLES t ON t.TABLE_SCHEMA = s.SCHEMA_NAME AND t.TABLE_NAME = ?
       WHERE s.SCHEMA_NAME LIKE 'mg\\_tpl\\_%' AND s.SCHEMA_NAME <> ? AND IS_USED_LOCK(s.SCHEMA_NAME) IS NULL
         AND (t.CREATE_TIME IS NULL OR t.CREATE_TIME < NOW() - INTERVAL 1 DAY)`,
      [TEMPLATE_READY, name],
    ) as [Array<{ s: string }>];
    for (const { s } of old) await root.raw(`DROP DATABASE IF EXISTS \`${s}\``);
    await root.raw(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
    const url = new URL(rootUrl);
    url.pathname = `/${name}`;
    const { createDb, migrate } = await import('../../db/knex.ts');
    const db = createDb({ databaseUrl: url.toString(), sqliteFile: '' });
    try {
      await migrate(db);
    } finally {
      await db.destroy();
    }
    await root.raw(`CREATE TABLE \`${name}\`.${TEMPLATE_READY} (id INT PRIMARY KEY)`);
    return name;
  } finally {
    await root.raw('SELECT RELEASE_LOCK(?)', [name]);
  }
}

/**
 * Copies every table of `template` (definitions with their keys and foreign keys, and rows) into
 * the empty database `into`, on the caller's one connection (the store's contract files start 40
 * gateways at once: more connections each would pass the server's limit).
 */
async function copyTemplate(root: ReturnType<typeof rootKnex>, template: string, into: string): Promise<void> {
  const [tables] = await root.raw("SELECT TABLE_NAME AS t FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_TYPE = 'BASE TABLE' AND TABLE_NAME <> ?", [template, TEMPLATE_READY]) as [Array<{ t: string }>];
  // unqualified names (the tables' own, those their foreign keys reference) are the copy's
  await root.raw(`USE \`${into}\``);
  for (const { t } of tables) {
    const [[row]] = await root.raw(`SHOW CREATE TABLE \`${template}\`.\`${t}\``) as [[Record<string, string>]];
    // the tables its foreign keys reference may not exist yet
    await root.raw(`SET STATEMENT foreign_key_checks = 0 FOR ${row['Create Table']!}`);
  }
  // rows the migrations wrote (their own bookkeeping, seeded settings); generated columns are computed again
  const [cols] = await root.raw("SET STATEMENT group_concat_max_len = 1000000 FOR SELECT TABLE_NAME AS t, GROUP_CONCAT(CONCAT('`', COLUMN_NAME, '`') ORDER BY ORDINAL_POSITION SEPARATOR ', ') AS c FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = ? AND TABLE_NAME <> ? AND EXTRA NOT LIKE '%GENERATED%' GROUP BY TABLE_NAME", [template, TEMPLATE_READY]) as [Array<{ t: string; c: string }>];
  for (const { t, c } of cols) {
    const [[{ n }]] = await root.raw(`SELECT EXISTS (SELECT 1 FROM \`${template}\`.\`${t}\`) AS n`) as [[{ n: number }]];
    if (Number(n) === 1) await root.raw(`SET STATEMENT foreign_key_checks = 0 FOR INSERT INTO \`${t}\` (${c}) SELECT ${c} FROM \`${template}\`.\`${t}\``);
  }
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
