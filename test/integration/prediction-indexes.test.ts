// The indexes of `predictions` after migrations 20261126_0101 (on MariaDB the unfinished counts
// read indexes that end in the virtual column `unfinished`) and 20261126_0102 (two redundant
// indexes dropped on MariaDB), against real MariaDB and the embedded SQLite (which keeps its
// indexes); 20261127_0101 (on MariaDB the retention scan reads the virtual column
// `output_expires_from` instead of (status, completed_at)); and DATABASE_URL's `socketPath`
// (README "Configuration").
import test from 'ava';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createDb, migrate } from '../../db/knex.ts';
import type { Db } from '../../db/knex.ts';
import { migrationSource } from '../../db/migrations/index.ts';
import { unfinishedCounts } from '../../db/predictions.ts';
import { unfinishedSql } from '../../db/unfinished.ts';
import { findExpiringOutputs, markOutputsExpired } from '../../db/retention.ts';
import type { PredictionStatus } from '../../db/predictions.ts';
import { freshDatabase, MYSQL_ROOT } from '../helpers/services.ts';

// DATABASE_URL ...?socketPath=: the server's unix socket (README "Configuration"), where the tests can reach it
const probe = createDb({ databaseUrl: MYSQL_ROOT, sqliteFile: '', poolMax: 1 });
const socketPath = await probe.raw('select @@socket as s').then(([rows]: [Array<{ s: string }>]) => rows[0]!.s).catch(() => '');
await probe.destroy();
const reachable = socketPath !== '' && await fs.access(socketPath).then(() => true, () => false);

const STATUSES: PredictionStatus[] = ['queued', 'pending', 'processing', 'completed', 'failed', 'cancelled'];
const UNFINISHED_INDEXES = ['predictions_api_key_unfinished_index', 'predictions_owner_unfinished_index', 'predictions_team_unfinished_index', 'predictions_embed_code_unfinished_index'];
const STATUS_INDEXES = ['predictions_api_key_status_index', 'predictions_owner_status_index', 'predictions_team_status_index', 'predictions_embed_code_status_index'];
const REDUNDANT = ['predictions_user_id_created_at_index', 'predictions_team_id_created_at_index'];
const EXPIRY_INDEX = 'predictions_output_expires_from_index';
const COMPLETED_AT_INDEX = 'predictions_status_completed_at_index';
const LATEST = ['20261126_0101_predictions_unfinished', '20261126_0102_predictions_redundant_indexes', '20261127_0101_predictions_output_expiry'];

async function mysqlDb(t: { teardown(fn: () => Promise<void>): void }): Promise<Db> {
  const fresh = await freshDatabase();
  const db = createDb({ databaseUrl: fresh.url, sqliteFile: '', poolMax: 2 });
  t.teardown(async () => { await db.destroy(); await fresh.drop(); });
  return db;
}

async function sqliteDb(t: { teardown(fn: () => Promise<void>): void }): Promise<Db> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'mg-indexes-'));
  const db = createDb({ databaseUrl: undefined, sqliteFile: path.join(dir, 'mediagate.sqlite') });
  t.teardown(async () => { await db.destroy(); await fs.rm(dir, { recursive: true, force: true }); });
  return db;
}

async function indexNames(db: Db): Promise<Set<string>> {
  if (db.client.config.client === 'mysql2') {
    const [rows] = await db.raw("select distinct index_name as name from information_schema.statistics where table_schema = database() and table_name = 'predictions'") as [Array<{ name: string }>];
    return new Set(rows.map((r) => r.name));
  }
  const rows = await db.raw("select name from sqlite_master where type = 'index' and tbl_name = 'predictions'") as Array<{ name: string }>;
  return new Set(rows.map((r) => r.name));
}

/** Two users (one with a team), three keys, an embed code: `n` predictions in each status, spread over them. */
async function seed(db: Db, n: number): Promise<void> {
  await db('users').insert([{ id: 1, email: 'a@example.com', created_at: 1 }, { id: 2, email: 'b@example.com', created_at: 1 }]);
  const rows = STATUSES.flatMap((status, s) => Array.from({ length: n }, (_, i) => ({
    id: `p${s}_${String(i).padStart(4, '0')}`, user_id: 1 + (i % 2), team_id: i % 3 === 0 ? 7 : null, api_key_id: 1 + (i % 3),
    embed_code_id: i % 4 === 0 ? 9 : null, model: 'm', status, input: '{}', created_at: i, updated_at: i,
  })));
  for (let i = 0; i < rows.length; i += 200) await db('predictions').insert(rows.slice(i, i + 200));
}

/** What the counts must be, from the status column itself. */
async function expected(db: Db): Promise<number[]> {
  const unfinished = ['queued', 'pending', 'processing'];
  const count = async (where: Record<string, unknown>, nullTeam = false) => {
    const q = db('predictions').where(where).whereIn('status', unfinished);
    if (nullTeam) q.whereNull('team_id');
    const [row] = await q.count({ n: '*' }) as [{ n: number | string }];
    return Number(row.n);
  };
  return [await count({ api_key_id: 2 }), await count({ user_id: 1 }, true), await count({ team_id: 7 }), await count({ embed_code_id: 9 })];
}

async function counts(db: Db): Promise<number[]> {
  const [key, personal, team] = await unfinishedCounts(db, [
    { scope: { keyId: 2 }, bound: 100_000 }, { scope: { owner: { userId: 1, teamId: null } }, bound: 100_000 }, { scope: { owner: { userId: 1, teamId: 7 } }, bound: 100_000 },
  ]);
  // the embed code's concurrency count (db/embed-codes.ts checkEmbedLimits)
  const [row] = await db('predictions').where('embed_code_id', 9).whereRaw(unfinishedSql(db)).count({ n: '*' }) as [{ n: number | string }];
  return [key!, personal!, team!, Number(row.n)];
}

for (const engine of ['MariaDB', 'SQLite'] as const) {
  test(`${engine}: the unfinished counts agree with the status through every transition a prediction makes`, async (t) => {
    const db = engine === 'MariaDB' ? await mysqlDb(t) : await sqliteDb(t);
    await migrate(db);
    if (engine === 'MariaDB') {
      await db.raw('set foreign_key_checks = 0');
      await seed(db, 30);
      // the virtual column is 1 exactly while the status is queued, pending or processing
      const rows = await db('predictions').select('status', 'unfinished') as Array<{ status: string; unfinished: number | string }>;
      for (const r of rows) t.is(Number(r.unfinished), ['queued', 'pending', 'processing'].includes(r.status) ? 1 : 0, r.status);
    } else {
      await seed(db, 30);
    }
    t.deepEqual(await counts(db), await expected(db));
    t.true((await expected(db)).every((n) => n > 0));
    // each transition a prediction makes, including a worker handing one back to pending
    for (const [from, to] of [['queued', 'pending'], ['pending', 'processing'], ['processing', 'pending'], ['pending', 'processing'], ['processing', 'completed'], ['queued', 'cancelled']]) {
      await db('predictions').where('status', from).where('id', 'like', 'p0_%').update({ status: to });
      t.deepEqual(await counts(db), await expected(db), `${from} -> ${to}`);
    }
  });
}

test('MariaDB: migrations 20261126_0101, 0102 and 20261127_0101 run down and up again', async (t) => {
  const db = await mysqlDb(t);
  await migrate(db);
  const up = await indexNames(db);
  for (const name of [...UNFINISHED_INDEXES, EXPIRY_INDEX]) t.true(up.has(name), name);
  for (const name of [...STATUS_INDEXES, ...REDUNDANT, COMPLETED_AT_INDEX]) t.false(up.has(name), name);
  await db.migrate.down({ migrationSource });
  const expiryDown = await indexNames(db);
  t.true(expiryDown.has(COMPLETED_AT_INDEX));
  t.false(expiryDown.has(EXPIRY_INDEX));
  t.false(await db.schema.hasColumn('predictions', 'output_expires_from'));
  await db.migrate.down({ migrationSource });
  await db.migrate.down({ migrationSource });
  const down = await indexNames(db);
  for (const name of [...STATUS_INDEXES, ...REDUNDANT, COMPLETED_AT_INDEX]) t.true(down.has(name), name);
  for (const name of [...UNFINISHED_INDEXES, EXPIRY_INDEX]) t.false(down.has(name), name);
  t.false(await db.schema.hasColumn('predictions', 'unfinished'));
  t.deepEqual(await migrate(db), LATEST);
  t.deepEqual(await indexNames(db), up);
});

test('SQLite: migrations 20261126_0101, 0102 and 20261127_0101 leave the embedded database as it was, down and up', async (t) => {
  const db = await sqliteDb(t);
  await migrate(db);
  const up = await indexNames(db);
  for (const name of [...STATUS_INDEXES, ...REDUNDANT, COMPLETED_AT_INDEX]) t.true(up.has(name), name);
  t.false(await db.schema.hasColumn('predictions', 'unfinished'));
  t.false(await db.schema.hasColumn('predictions', 'output_expires_from'));
  for (let i = 0; i < LATEST.length; i++) await db.migrate.down({ migrationSource });
  t.deepEqual(await indexNames(db), up);
  t.deepEqual(await migrate(db), LATEST);
});

/** Completed rows with outputs kept, expired, sandbox ones, and every other status, completed_at spread over 0..n. */
async function seedFinished(db: Db, n: number): Promise<void> {
  await db('users').insert({ id: 1, email: 'a@example.com', created_at: 1 });
  const rows = STATUSES.flatMap((status, s) => Array.from({ length: n }, (_, i) => ({
    id: `f${s}_${String(i).padStart(5, '0')}`, user_id: 1, model: 'm', status, input: '{}', outputs: '["x/0.png"]', created_at: i, updated_at: i,
    completed_at: ['completed', 'failed', 'cancelled'].includes(status) ? (i * 7919) % n : null,
    is_test: status === 'completed' && i % 5 === 0, outputs_expired_at: status === 'completed' && i % 3 === 0 ? n : null,
  })));
  for (let i = 0; i < rows.length; i += 500) await db('predictions').insert(rows.slice(i, i + 500));
}

for (const engine of ['MariaDB', 'SQLite'] as const) {
  test(`${engine}: the retention scan finds exactly the completed, non-sandbox rows whose outputs are kept, oldest first, through every transition`, async (t) => {
    const db = engine === 'MariaDB' ? await mysqlDb(t) : await sqliteDb(t);
    await migrate(db);
    if (engine === 'MariaDB') await db.raw('set foreign_key_checks = 0');
    await seedFinished(db, 300);
    const want = async (before: number, limit: number) => (await db('predictions').select('id').where('status', 'completed').andWhere('completed_at', '<', before)
      .whereNull('outputs_expired_at').andWhere('is_test', false).orderBy('completed_at').orderBy('id').limit(limit)).map((r: { id: string }) => r.id);
    // completed_at is unique among completed rows here, so the order is fixed
    const got = async (before: number, limit: number) => (await findExpiringOutputs(db, before, limit)).map((r) => r.id);
    t.deepEqual(await got(150, 1000), await want(150, 1000));
    t.deepEqual(await got(300, 25), await want(300, 25));
    t.true((await want(150, 1000)).length > 50);
    // a row finishing, its outputs expiring, a failed and a cancelled one: the scan follows
    await db('predictions').where('id', 'f0_00001').update({ status: 'pending' });
    await db('predictions').where('id', 'f0_00001').update({ status: 'processing' });
    await db('predictions').where('id', 'f0_00001').update({ status: 'completed', completed_at: 2 });
    await db('predictions').where('id', 'f1_00002').update({ status: 'failed', completed_at: 2 });
    await db('predictions').where('id', 'f0_00004').update({ status: 'cancelled', completed_at: 2 });
    t.true((await got(150, 1000)).includes('f0_00001'));
    t.false((await got(150, 1000)).includes('f1_00002'));
    t.deepEqual(await got(150, 1000), await want(150, 1000));
    const first = await got(300, 40);
    t.is(await markOutputsExpired(db, first, 400), 40);
    t.deepEqual(await got(300, 1000), await want(300, 1000));
    t.false((await got(300, 1000)).some((id) => first.includes(id)));
  });
}

test('MariaDB: the retention scan reads only the index entries of rows still to expire', async (t) => {
  const db = await mysqlDb(t);
  await migrate(db);
  await db.raw('set foreign_key_checks = 0');
  await seedFinished(db, 2000);
  await db.raw('analyze table predictions');
  const reads = async (run: () => Promise<unknown>) => {
    const [[before]] = await db.raw("select sum(variable_value) as n from information_schema.session_status where variable_name like 'Handler_read%'") as [[{ n: number | string }]];
    await run();
    const [[after]] = await db.raw("select sum(variable_value) as n from information_schema.session_status where variable_name like 'Handler_read%'") as [[{ n: number | string }]];
    return Number(after.n) - Number(before.n);
  };
  // what reading the counters itself adds
  const overhead = await reads(async () => {});
  const [plan] = await db.raw('explain select id, outputs from predictions where output_expires_from < ? order by output_expires_from asc limit 500', [1000]) as [Array<{ key: string | null }>];
  t.is(plan[0]!.key, EXPIRY_INDEX);
  // the rows still to expire before 1000: a third of the completed ones are expired, a fifth sandbox
  const due = (await findExpiringOutputs(db, 1000, 100_000)).length;
  const expiry = await reads(() => findExpiringOutputs(db, 1000, 100_000)) - overhead;
  t.true(due > 0);
  // one entry per row due, and one more to find the range's end
  t.true(expiry <= due + 1, `${expiry} reads for ${due} rows`);
  // the index it replaced reads every completed row before 1000, those expired and the sandbox ones too
  await db.migrate.down({ migrationSource });
  await db.raw('analyze table predictions');
  const [old] = await db.raw("explain select id, outputs from predictions where status = 'completed' and completed_at < ? and outputs_expired_at is null and is_test = 0 order by completed_at asc limit 100000", [1000]) as [Array<{ key: string | null }>];
  t.is(old[0]!.key, COMPLETED_AT_INDEX);
  // the scan as it was before 20261127_0101 (findExpiringOutputs on SQLite)
  const scan = () => db('predictions').select('id', 'outputs').where('status', 'completed').andWhere('completed_at', '<', 1000)
    .whereNull('outputs_expired_at').andWhere('is_test', false).orderBy('completed_at', 'asc').limit(100_000);
  t.is((await scan()).length, due);
  const status = await reads(scan) - overhead;
  t.true(expiry < status, `${expiry} against ${status}`);
  t.log(`Handler_read_* for ${due} rows due: ${status} through (status, completed_at), ${expiry} through output_expires_from`);
});

test('MariaDB: each unfinished count, and the queries the dropped indexes could have served, read an index', async (t) => {
  const db = await mysqlDb(t);
  await migrate(db);
  await db.raw('set foreign_key_checks = 0');
  await seed(db, 300);
  await db.raw('analyze table predictions');
  const keyOf = async (sql: string, bindings: unknown[]) => {
    const [plan] = await db.raw(`explain ${sql}`, bindings as never[]) as [Array<{ table: string | null; key: string | null }>];
    return plan.filter((p) => p.table === 'predictions').map((p) => p.key);
  };
  t.deepEqual(await keyOf("select count(*) from predictions where api_key_id = ? and unfinished = 1", [2]), ['predictions_api_key_unfinished_index']);
  t.deepEqual(await keyOf('select count(*) from predictions where user_id = ? and team_id is null and unfinished = 1', [1]), ['predictions_owner_unfinished_index']);
  t.deepEqual(await keyOf('select count(*) from predictions where team_id = ? and unfinished = 1', [7]), ['predictions_team_unfinished_index']);
  t.deepEqual(await keyOf('select count(*) from predictions where embed_code_id = ? and unfinished = 1', [9]), ['predictions_embed_code_unfinished_index']);
  // a user's (personal) and a team's history, newest first: the history indexes of migration 1701
  t.deepEqual(await keyOf('select id from predictions where user_id = ? and team_id is null and deleted_at is null order by created_at desc, id desc limit 20', [1]), ['predictions_history_personal_index']);
  t.deepEqual(await keyOf('select id from predictions where team_id = ? and deleted_at is null order by created_at desc, id desc limit 20', [7]), ['predictions_history_team_index']);
});

(reachable ? test : test.skip)('DATABASE_URL with ?socketPath= connects over the unix socket, not TCP', async (t) => {
  const fresh = await freshDatabase();
  t.teardown(() => fresh.drop());
  const url = new URL(fresh.url);
  url.searchParams.set('socketPath', socketPath);
  const db = createDb({ databaseUrl: url.toString(), sqliteFile: '', poolMax: 1 });
  t.teardown(() => db.destroy());
  const [rows] = await db.raw('select host, db from information_schema.processlist where id = connection_id()') as [Array<{ host: string; db: string }>];
  // a TCP client shows as address:port; a socket client as "localhost"
  t.is(rows[0]!.host, 'localhost');
  t.is(rows[0]!.db, url.pathname.slice(1));
});
