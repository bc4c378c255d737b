// ROLE=migrate (`npm run migrate`, the compose file's one-shot service) as a real process: it brings
// a fresh database to the latest migration and exits 0, a second run finds nothing to do, and a
// database it cannot reach makes it exit non-zero with one line saying why (and no password).
import test from 'ava';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import knexFactory from 'knex';
import { spawnGateway } from '../helpers/processes.ts';
import { freshDatabase, waitFor } from '../helpers/services.ts';
import { createDb, migrate } from '../../db/knex.ts';
import { migrationSource } from '../../db/migrations/index.ts';

const KEY = 'ab'.repeat(32);

async function runMigrate(env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  const proc = spawnGateway({ ROLE: 'migrate', ...env });
  const code = await new Promise<number | null>((resolve) => proc.child.on('exit', (c) => resolve(c)));
  return { code, output: proc.output() };
}

const expectedMigrations = (await migrationSource.getMigrations([])).map((m) => migrationSource.getMigrationName(m));
// tables every later role relies on, one from each of the first migrations and the newest
const someTables = ['users', 'api_keys', 'predictions', 'webhook_deliveries', 'idempotency_keys'];

function lines(output: string): Array<Record<string, unknown>> {
  return output.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Record<string, unknown>);
}

test('ROLE=migrate brings a fresh MariaDB database to the latest migration and exits 0; again, it has nothing to do', async (t) => {
  const database = await freshDatabase();
  t.teardown(() => database.drop());
  const first = await runMigrate({ DATABASE_URL: database.url, ENCRYPTION_KEY: KEY });
  t.is(first.code, 0, first.output);
  const done = lines(first.output).find((l) => l.role === 'migrate');
  t.deepEqual(done?.applied, expectedMigrations);
  t.is(done?.database, 'mysql');

  const db = createDb({ databaseUrl: database.url, sqliteFile: '' });
  t.teardown(() => db.destroy());
  for (const table of someTables) t.true(await db.schema.hasTable(table), table);
  const recorded = await db('knex_migrations').orderBy('id').pluck('name');
  t.deepEqual(recorded, expectedMigrations);

  const second = await runMigrate({ DATABASE_URL: database.url, ENCRYPTION_KEY: KEY });
  t.is(second.code, 0, second.output);
  t.deepEqual(lines(second.output).find((l) => l.role === 'migrate')?.applied, []);
});

test('ROLE=migrate with no DATABASE_URL migrates the embedded SQLite file and starts nothing else', async (t) => {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'mg-migrate-'));
  t.teardown(() => fs.rm(dir, { recursive: true, force: true }));
  // no AMQP_URL either: migrate needs neither the queue nor a port
  const run = await runMigrate({ DATA_DIR: dir });
  t.is(run.code, 0, run.output);
  t.is(lines(run.output).find((l) => l.role === 'migrate')?.database, 'sqlite');
  t.false(run.output.includes('listening'));

  const db = knexFactory({ client: 'sqlite3', connection: { filename: path.join(dir, 'mediagate.sqlite') }, useNullAsDefault: true });
  t.teardown(() => db.destroy());
  for (const table of someTables) t.true(await db.schema.hasTable(table), table);
  t.deepEqual(await db('knex_migrations').orderBy('id').pluck('name'), expectedMigrations);
});

test('ROLE=migrate against a database it cannot reach exits non-zero with one clear line, no password', async (t) => {
  const run = await runMigrate({ DATABASE_URL: 'mysql://gw:hunter2-secret@127.0.0.1:1/gateway', ENCRYPTION_KEY: KEY });
  t.is(run.code, 1);
  // that one line and nothing else: no driver warning with a stack before it
  t.is(run.output.trim(), 'mediagate: migrate failed on the MariaDB/MySQL database of DATABASE_URL: connect ECONNREFUSED 127.0.0.1:1');
  t.false(run.output.includes('hunter2-secret'));
});

test('ROLE=migrate with a malformed DATABASE_URL names the variable and exits non-zero', async (t) => {
  const run = await runMigrate({ DATABASE_URL: 'postgres://db/gateway' });
  t.is(run.code, 1);
  t.regex(run.output, /^mediagate: invalid configuration: DATABASE_URL: /m);
});

test('ROLE=migrate waits while another run holds the migration lock, then finds nothing to do', async (t) => {
  const database = await freshDatabase(undefined, { migrated: true });
  t.teardown(() => database.drop());
  const db = createDb({ databaseUrl: database.url, sqliteFile: '' });
  t.teardown(() => db.destroy());
  // another process migrating: it holds the lock (on MariaDB the flag, since DDL ends its transaction)
  await db('knex_migrations_lock').update({ is_locked: 1 });
  const proc = spawnGateway({ ROLE: 'migrate', DATABASE_URL: database.url, ENCRYPTION_KEY: KEY });
  // it says it waits (a process waiting at start-up is not silent), and waits until released
  await waitFor(() => proc.output().includes('another process holds the migration lock: waiting for it to finish (up to 300 s)') || undefined, { what: 'the waiting line' });
  await db('knex_migrations_lock').update({ is_locked: 0 });
  const code = await proc.exited;
  const output = proc.output();
  t.is(code, 0, output);
  t.deepEqual(lines(output).find((l) => l.role === 'migrate' && 'applied' in l)?.applied, []);
  t.false(output.includes('already locked'), output);
});

test('a migration lock held past the wait fails with a message saying how to clear it', async (t) => {
  const database = await freshDatabase(undefined, { migrated: true });
  t.teardown(() => database.drop());
  const db = createDb({ databaseUrl: database.url, sqliteFile: '' });
  t.teardown(() => db.destroy());
  await db('knex_migrations_lock').update({ is_locked: 1 });
  const err = await t.throwsAsync(migrate(db, { lockWaitMs: 1000 }));
  t.regex(err.message, /^the migration lock is still held after 1 s: another process is migrating this database, or one stopped in the middle of a migration\. When none runs, clear it with UPDATE knex_migrations_lock SET is_locked = 0$/);
});
