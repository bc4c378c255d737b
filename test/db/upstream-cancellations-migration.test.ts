// Migration 20261201_1001 (the outbox of an erased account's provider jobs to cancel) on MariaDB
// and SQLite: up makes the table, one row per provider job (a second record of it is a no-op),
// and down removes it.
import test from 'ava';
import { migrate } from '../../db/knex.ts';
import { migrationSource } from '../../db/migrations/index.ts';
import { recordUpstreamCancellation } from '../../db/upstream-cancellations.ts';
import { databaseBefore, migrationsFrom } from '../helpers/migrations.ts';

const OURS = '20261201_1001_upstream_cancellations';

for (const engine of ['mysql', 'sqlite'] as const) {
  test(`${engine}: up makes the outbox, one row per provider job; down removes it`, async (t) => {
    const db = await databaseBefore(t, engine, OURS);
    const later = await migrationsFrom(OURS);
    t.false(await db.schema.hasTable('upstream_cancellations'));
    t.deepEqual((await migrate(db)).slice(0, 1), [OURS]);
    const now = Date.now();
    await recordUpstreamCancellation(db, { provider: 'fal', jobId: 'req-1', model: 'm-1', predictionId: 'p1' }, now);
    await recordUpstreamCancellation(db, { provider: 'fal', jobId: 'req-1', model: 'm-2', predictionId: 'p2' }, now + 1);
    // the same job id at another provider is another job
    await recordUpstreamCancellation(db, { provider: 'replicate', jobId: 'req-1', model: 'm-3', predictionId: 'p3' }, now);
    const rows = await db('upstream_cancellations').orderBy('id');
    t.is(rows.length, 2);
    t.like(rows[0], { provider: 'fal', upstream_job_id: 'req-1', model: 'm-1', prediction_id: 'p1', attempts: 0, done_at: null, outcome: null });
    for (let i = 0; i < later.length; i++) await db.migrate.down({ migrationSource });
    t.false(await db.schema.hasTable('upstream_cancellations'));
  });
}
