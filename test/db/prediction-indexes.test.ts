// The indexes of `predictions` after migrations 20261126_0101 (on MariaDB the unfinished counts
// read indexes that end in the virtual column `unfinished`) and 20261126_0102 (two redundant
// indexes dropped on MariaDB), against real MariaDB and the embedded SQLite (which keeps its
// indexes); 20261127_0101 (on MariaDB the retention scan reads the virtual column
// `output_expires_from` instead of (status, completed_at)); 20261127_0201 (on MariaDB the sweeps
// read (status, created_at) alone, (status, updated_at) is dropped); 20261129_0201 (on MariaDB a
// team's and an embed code's unfinished counts read virtual columns that hold the id only while
// the row is unfinished); and DATABASE_URL's `socketPath` (README "Configuration").
import test from 'ava';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createDb, migrate } from '../../db/knex.ts';
import type { Db } from '../../db/knex.ts';
import { migrationSource } from '../../db/migrations/index.ts';
import { unfinishedCounts, unfinishedOfSql } from '../../db/unfinished.ts';
import { findExpiringOutputs, markOutputsExpired } from '../../db/retention.ts';
import { findStalePending, findUnpublished } from '../../db/predictions/sweeps.ts';
import { findStalledUpstream } from '../../db/predictions/upstream.ts';
import { oldestWaitingMs } from '../../db/stats.ts';
import { newPredictionId } from '../../db/predictions/record.ts';
import type { PredictionStatus } from '../../db/predictions/record.ts';
import type { Knex } from 'knex';
import { startGateway, newAccount } from '../helpers/gateway.ts';
import { freshDatabase, MYSQL_ROOT } from '../helpers/services.ts';

// DATABASE_URL ...?socketPath=: the server's unix socket (README "Configuration"), where the tests can reach it
const probe = createDb({ databaseUrl: MYSQL_ROOT, sqliteFile: '', poolMax: 1 });
const socketPath = await probe.raw('select @@socket as s').then(([rows]: [Array<{ s: string }>]) => rows[0]!.s).catch(() => '');
await probe.destroy();
const reachable = socketPath !== '' && await fs.access(socketPath).then(() => true, () => false);

const STATUSES: PredictionStatus[] = ['queued', 'pending', 'processing', 'completed', 'failed', 'cancelled'];
const UNFINISHED_INDEXES = ['predictions_api_key_unfinished_index', 'predictions_owner_unfinished_index', 'predictions_team_unfinished_index', 'predictions_embed_code_unfinished_index'];
/** What 20261129_0201 put in place of the team's and the embed code's UNFINISHED_INDEXES. */
const SCOPED_INDEXES = ['predictions_team_unfinished_scoped_index', 'predictions_embed_code_unfinished_scoped_index'];
const STATUS_INDEXES = ['predictions_api_key_status_index', 'predictions_owner_status_index', 'predictions_team_status_index', 'predictions_embed_code_status_index'];
const REDUNDANT = ['predictions_user_id_created_at_index', 'predictions_team_id_created_at_index'];
const EXPIRY_INDEX = 'predictions_output_expires_from_index';
const COMPLETED_AT_INDEX = 'predictions_status_completed_at_index';
const SWEEP_INDEX = 'predictions_status_created_at_index';
const UPDATED_AT_INDEX = 'predictions_status_updated_at_index';
const LATEST = ['20261126_0101_predictions_unfinished', '20261126_0102_predictions_redundant_indexes', '20261127_0101_predictions_output_expiry', '20261127_0201_predictions_sweep_index'];
/** The migrations after LATEST, rolled back first where a test steps down through LATEST. */
const LATER = (await migrationSource.getMigrations([])).map((m) => migrationSource.getMigrationName(m))
  .filter((name) => name > LATEST.at(-1)!);

async function downLater(db: Db): Promise<void> {
  for (let i = 0; i < LATER.length; i++) await db.migrate.down({ migrationSource });
}

async function mysqlDb(t: { teardown(fn: () => Promise<void>): void }, poolMax = 2): Promise<Db> {
  const fresh = await freshDatabase();
  const db = createDb({ databaseUrl: fresh.url, sqliteFile: '', poolMax });
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
  const [row] = await db('predictions').whereRaw(unfinishedOfSql(db, 'embed_code_id'), [9]).count({ n: '*' }) as [{ n: number | string }];
  return [key!, personal!, team!, Number(row.n)];
}

for (const engine of ['MariaDB', 'SQLite'] as const) {
  test(`${engine}: the unfinished counts agree with the status through every transition a prediction makes`, async (t) => {
    const db = engine === 'MariaDB' ? await mysqlDb(t) : await sqliteDb(t);
    await migrate(db);
    if (engine === 'MariaDB') {
      await db.raw('set foreign_key_checks = 0');
      await seed(db, 30);
      // the virtual column is 1 exactly while the status is queued, pending or processing, and the
      // team's and the code's hold their id exactly then (NULL for a personal row, or one with no code)
      const rows = await db('predictions').select('status', 'unfinished', 'team_id', 'team_unfinished', 'embed_code_id', 'embed_code_unfinished') as Array<Record<string, number | string | null>>;
      for (const r of rows) {
        const open = ['queued', 'pending', 'processing'].includes(r.status as string);
        t.is(Number(r.unfinished), open ? 1 : 0, r.status as string);
        t.is(r.team_unfinished, open ? r.team_id : null, r.status as string);
        t.is(r.embed_code_unfinished, open ? r.embed_code_id : null, r.status as string);
      }
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

test('MariaDB: migrations 20261126_0101, 0102, 20261127_0101 and 0201 run down and up again', async (t) => {
  const db = await mysqlDb(t);
  await migrate(db);
  const up = await indexNames(db);
  for (const name of [...UNFINISHED_INDEXES.slice(0, 2), ...SCOPED_INDEXES, EXPIRY_INDEX, SWEEP_INDEX]) t.true(up.has(name), name);
  for (const name of [...UNFINISHED_INDEXES.slice(2), ...STATUS_INDEXES, ...REDUNDANT, COMPLETED_AT_INDEX, UPDATED_AT_INDEX]) t.false(up.has(name), name);
  t.true(await db.schema.hasColumn('predictions', 'claim_digest'));
  await downLater(db);
  t.false(await db.schema.hasColumn('predictions', 'claim_digest'));
  const scopedDown = await indexNames(db);
  for (const name of UNFINISHED_INDEXES) t.true(scopedDown.has(name), name);
  for (const name of SCOPED_INDEXES) t.false(scopedDown.has(name), name);
  t.false(await db.schema.hasColumn('predictions', 'team_unfinished'));
  t.false(await db.schema.hasColumn('predictions', 'embed_code_unfinished'));
  await db.migrate.down({ migrationSource });
  const sweepDown = await indexNames(db);
  for (const name of [SWEEP_INDEX, UPDATED_AT_INDEX]) t.true(sweepDown.has(name), name);
  await db.migrate.down({ migrationSource, name: '20261127_0101_predictions_output_expiry' });
  const expiryDown = await indexNames(db);
  t.true(expiryDown.has(COMPLETED_AT_INDEX));
  t.false(expiryDown.has(EXPIRY_INDEX));
  t.false(await db.schema.hasColumn('predictions', 'output_expires_from'));
  await db.migrate.down({ migrationSource, name: '20261126_0102_predictions_redundant_indexes' });
  await db.migrate.down({ migrationSource, name: '20261126_0101_predictions_unfinished' });
  const down = await indexNames(db);
  for (const name of [...STATUS_INDEXES, ...REDUNDANT, COMPLETED_AT_INDEX, SWEEP_INDEX, UPDATED_AT_INDEX]) t.true(down.has(name), name);
  for (const name of [...UNFINISHED_INDEXES, EXPIRY_INDEX]) t.false(down.has(name), name);
  t.false(await db.schema.hasColumn('predictions', 'unfinished'));
  t.deepEqual(await migrate(db), [...LATEST, ...LATER]);
  t.deepEqual(await indexNames(db), up);
});

test('SQLite: migrations 20261126_0101, 0102, 20261127_0101 and 0201 leave the embedded database as it was, down and up', async (t) => {
  const db = await sqliteDb(t);
  await migrate(db);
  const up = await indexNames(db);
  for (const name of [...STATUS_INDEXES, ...REDUNDANT, COMPLETED_AT_INDEX, SWEEP_INDEX, UPDATED_AT_INDEX]) t.true(up.has(name), name);
  t.false(await db.schema.hasColumn('predictions', 'unfinished'));
  t.false(await db.schema.hasColumn('predictions', 'output_expires_from'));
  t.false(await db.schema.hasColumn('predictions', 'claim_digest'));
  for (let i = 0; i < LATEST.length + LATER.length; i++) await db.migrate.down({ migrationSource });
  t.deepEqual(await indexNames(db), up);
  t.deepEqual(await migrate(db), [...LATEST, ...LATER]);
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
  await downLater(db);
  await db.migrate.down({ migrationSource, name: '20261127_0201_predictions_sweep_index' });
  await db.migrate.down({ migrationSource, name: '20261127_0101_predictions_output_expiry' });
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
  t.deepEqual(await keyOf(`select count(*) from predictions where ${unfinishedOfSql(db, 'team_id')}`, [7]), ['predictions_team_unfinished_scoped_index']);
  t.deepEqual(await keyOf(`select count(*) from predictions where ${unfinishedOfSql(db, 'embed_code_id')}`, [9]), ['predictions_embed_code_unfinished_scoped_index']);
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

/** `n` predictions in each status, created every 10 ms; a waiting row's updated_at some time after it, half the processing ones with an upstream job. */
async function seedWaiting(db: Db, n: number, completed = 0): Promise<void> {
  await db('users').insert({ id: 1, email: 'a@example.com', created_at: 1 });
  const rows = STATUSES.flatMap((status, s) => Array.from({ length: status === 'completed' ? n + completed : n }, (_, i) => ({
    id: `w${s}_${String(i).padStart(5, '0')}`, user_id: 1, model: 'm', status, input: '{}', created_at: i * 10,
    updated_at: status === 'queued' ? i * 10 : i * 10 + ((i * 37) % 500), upstream_job_id: status === 'processing' && i % 2 === 0 ? `job${i}` : null,
  })));
  for (let i = 0; i < rows.length; i += 500) await db('predictions').insert(rows.slice(i, i + 500));
}

/** What each sweep must find, from status, created_at and updated_at themselves (sorted ids: the engines order the stale-pending rows differently). */
async function sweepsWanted(db: Db, cut: number, now: number) {
  const ids = (rows: Array<{ id: string }>) => rows.map((r) => r.id).sort();
  const [queued] = await db('predictions').where('status', 'queued').min({ at: 'created_at' }) as [{ at: number | null }];
  const [pending] = await db('predictions').where('status', 'pending').min({ at: 'created_at' }) as [{ at: number | null }];
  const ats = [queued.at, pending.at].filter((a): a is number => a !== null).map(Number);
  return {
    unpublished: ids(await db('predictions').select('id').where('status', 'queued').andWhere('created_at', '<', cut)),
    stale: ids(await db('predictions').select('id').where('status', 'pending').andWhere('updated_at', '<', cut)),
    stalled: ids(await db('predictions').select('id').where('status', 'processing').whereNotNull('upstream_job_id').andWhere('updated_at', '<', cut)),
    oldest: ats.length ? now - Math.min(...ats) : null,
  };
}

async function sweepsFound(db: Db, cut: number, now: number) {
  return {
    unpublished: (await findUnpublished(db, cut, 100_000)).map((p) => p.id).sort(),
    stale: (await findStalePending(db, cut, 100_000)).map((p) => p.id).sort(),
    stalled: (await findStalledUpstream(db, cut, 100_000)).map((p) => p.id).sort(),
    oldest: await oldestWaitingMs(db, now),
  };
}

for (const engine of ['MariaDB', 'SQLite'] as const) {
  test(`${engine}: the sweeps and the queue-age metric find exactly what status, created_at and updated_at say, through every transition`, async (t) => {
    const db = engine === 'MariaDB' ? await mysqlDb(t) : await sqliteDb(t);
    await migrate(db);
    if (engine === 'MariaDB') await db.raw('set foreign_key_checks = 0');
    await seedWaiting(db, 40);
    const now = 10_000;
    const check = async (label: string) => {
      for (const cut of [0, 150, 205, 401, 5_000]) t.deepEqual(await sweepsFound(db, cut, now), await sweepsWanted(db, cut, now), `${label}, cut ${cut}`);
    };
    await check('seeded');
    const found = await sweepsFound(db, 5_000, now);
    t.true(found.unpublished.length > 0 && found.stale.length > 0 && found.stalled.length > 0);
    // the oldest queued rows confirmed late, a pending one claimed, one handed back, an upstream job recorded and its poll, completions, a cancel
    await db('predictions').whereIn('id', ['w0_00000', 'w0_00001']).update({ status: 'pending', updated_at: 300 });
    await check('queued -> pending');
    await db('predictions').where('id', 'w1_00002').update({ status: 'processing', updated_at: 310 });
    await check('pending -> processing');
    await db('predictions').where('id', 'w2_00004').update({ status: 'pending', updated_at: 320 });
    await check('processing -> pending');
    await db('predictions').where('id', 'w1_00002').update({ upstream_job_id: 'job-x', updated_at: 330 });
    await db('predictions').where('id', 'w2_00006').update({ updated_at: 20 });
    await check('upstream job recorded, polled');
    await db('predictions').whereIn('id', ['w2_00006', 'w2_00007']).update({ status: 'completed', updated_at: 340 });
    await db('predictions').whereIn('id', ['w0_00000', 'w0_00002']).update({ status: 'cancelled', updated_at: 350 });
    await check('completed, cancelled');
    await db('predictions').whereIn('status', ['queued', 'pending']).update({ status: 'failed', updated_at: 360 });
    await check('none waiting');
    t.is(await oldestWaitingMs(db, now), null);
  });
}

test('MariaDB: each sweep and the queue-age metric read (status, created_at), and no more entries than with (status, updated_at) too, but the stalled-upstream sweep', async (t) => {
  // one connection: the Handler_* counters are the session's
  const db = await mysqlDb(t, 1);
  await migrate(db);
  await db.raw('set foreign_key_checks = 0');
  await seedWaiting(db, 300, 3000);
  await db.raw('analyze table predictions');
  // index entries read: those returned (Handler_read_*) and those an index condition skipped
  const counter = async () => {
    const [rows] = await db.raw("select variable_name as k, variable_value as v from information_schema.session_status where variable_name like 'Handler_read%' or variable_name like 'Handler_icp%'") as [Array<{ k: string; v: number | string }>];
    const v = (k: string) => rows.filter((r) => r.k.toLowerCase() === k).reduce((a, r) => a + Number(r.v), 0);
    return rows.filter((r) => r.k.toLowerCase().startsWith('handler_read')).reduce((a, r) => a + Number(r.v), 0) + v('handler_icp_attempts') - v('handler_icp_match');
  };
  const reads = async (run: () => Promise<unknown>) => { const before = await counter(); await run(); return await counter() - before; };
  const overhead = await reads(async () => {});
  const keyOf = async (sql: string, bindings: unknown[]) => {
    const [plan] = await db.raw(`explain ${sql}`, bindings as never[]) as [Array<{ key: string | null; Extra: string | null }>];
    return plan[0]!.key ?? plan[0]!.Extra;
  };
  t.is(await keyOf("select * from predictions where status = 'queued' and created_at < ? order by created_at limit 500", [1500]), SWEEP_INDEX);
  t.is(await keyOf("select id from predictions where status = 'pending' and updated_at < ? and created_at < ? order by created_at limit 500", [1500, 1500]), SWEEP_INDEX);
  t.is(await keyOf("select id from predictions where status = 'processing' and upstream_job_id is not null and updated_at < ? order by updated_at limit 500", [1500]), SWEEP_INDEX);
  // min() of an index's first entry: no row read at all
  t.is(await keyOf("select min(created_at) from predictions where status = 'pending'", []), 'Select tables optimized away');
  const cut = 1_500;
  const sweeps: Array<[string, () => Promise<unknown>, () => Promise<unknown>]> = [
    ['unpublished', () => findUnpublished(db, cut, 500), () => db('predictions').where('status', 'queued').andWhere('created_at', '<', cut).orderBy('created_at').limit(500)],
    // every pending row older than the cut-off by both clocks: the range and the result are the same rows
    ['stale pending', () => findStalePending(db, 100_000, 500), () => db('predictions').select('id', 'http_request_id').where('status', 'pending').andWhere('updated_at', '<', 100_000).orderBy('updated_at').limit(500)],
    ['oldest waiting', () => oldestWaitingMs(db, 100_000), () => Promise.all(['queued', 'pending'].map((status) => db('predictions').where({ status }).min({ at: 'created_at' }).first()))],
    ['stalled upstream', () => findStalledUpstream(db, cut, 500), () => db('predictions').select('id', 'upstream_polls', 'http_request_id').where('status', 'processing').whereNotNull('upstream_job_id').andWhere('updated_at', '<', cut).orderBy('updated_at').limit(500)],
  ];
  const now: number[] = [];
  // each measured on its second run (the first after a schema change reads the statistics)
  for (const [, run] of sweeps) now.push((await run(), await reads(run)) - overhead);
  await downLater(db);
  await db.migrate.down({ migrationSource });
  await db.raw('analyze table predictions');
  for (const [i, [name, , old]] of sweeps.entries()) {
    const was = (await old(), await reads(old)) - overhead;
    // the stalled-upstream sweep reads every processing row (updated_at is checked on the row), no row of another status
    if (name === 'stalled upstream') t.true(now[i]! <= 300 + 1 + 150, `${name}: ${now[i]} entries, ${was} before`);
    else t.true(now[i]! <= was, `${name}: ${now[i]} entries, ${was} before`);
    t.log(`${name}: entries read ${was} with (status, updated_at), ${now[i]} without`);
  }
});

test('mysql: an unfinished count stops at its bound: it reads about as many index entries as the limit, not the backlog', async (t) => {
  const gw = await startGateway({ queue: 'memory' });
  t.teardown(() => gw.stop());
  const acct = await newAccount(gw, 0);
  const now = Date.now();
  await gw.app.db('predictions').insert(Array.from({ length: 300 }, () => ({
    id: newPredictionId(now), user_id: acct.userId, team_id: null, api_key_id: null, model: 'canvas-v1-fast-text-to-image', status: 'queued', is_test: false,
    input: '{}', price: 0, webhook_url: null, created_at: now, updated_at: now,
  })));
  const owner = { userId: acct.userId, teamId: null };
  // one connection for the status counters and the count between them
  const reads = (bound: number) => gw.app.db.transaction(async (trx) => {
    const before = await handlerReads(trx);
    const [n] = await unfinishedCounts(trx, [{ scope: { owner }, bound }]);
    return { n, read: await handlerReads(trx) - before };
  });
  const bounded = await reads(10);
  const whole = await reads(100_000);
  t.is(bounded.n, 10);
  t.is(whole.n, 300);
  t.true(bounded.read <= 20, `bounded count read ${bounded.read} index entries`);
  t.true(whole.read >= 300, `whole count read ${whole.read} index entries`);
});

/** The session's index reads so far (Handler_read_key + Handler_read_next), MariaDB. */
async function handlerReads(trx: Knex): Promise<number> {
  const [rows] = await trx.raw("show session status where Variable_name in ('Handler_read_key', 'Handler_read_next')") as unknown as [Array<{ Value: string }>];
  return rows.reduce((sum, r) => sum + Number(r.Value), 0);
}
