// Migrations 20261129_4001 and 4002 give every stored owner key one form (lib/caller.ts ownerKey):
// the run history's counters (`u:1`, `t:2`) and the model discounts (`u1`, `t2`) become `user:1`,
// `team:2`, on MariaDB and on SQLite, and going down restores the rows as they were.
import test from 'ava';
import { migrate } from '../../db/knex.ts';
import type { Db } from '../../db/knex.ts';
import { migrationSource } from '../../db/migrations/index.ts';
import { ownerKey } from '../../lib/caller.ts';
import { databaseBefore, migrationsFrom } from '../helpers/migrations.ts';

const OURS = ['20261129_4001_owner_key_history_counts', '20261129_4002_owner_key_model_discounts'];

async function keys(db: Db): Promise<{ counters: string[]; discounts: string[] }> {
  const counters = (await db('prediction_history_counts').orderBy('visible').pluck('owner_key')) as string[];
  const discounts = (await db('model_discounts').orderBy('percent_off').pluck('owner_key')) as string[];
  return { counters, discounts };
}

for (const engine of ['mysql', 'sqlite'] as const) {
  test(`${engine}: stored owner keys of both old forms become the one form, and back`, async (t) => {
    const db = await databaseBefore(t, engine, OURS[0]!);
    const later = await migrationsFrom(OURS[0]!);
    const now = Date.now();
    const [a] = await db('users').insert({ email: 'a@example.com', created_at: now });
    const [b] = await db('users').insert({ email: 'b@example.com', created_at: now });
    const [team] = await db('teams').insert({ name: 'T', created_at: now });
    const [u, v, tm] = [Number(a), Number(b), Number(team)];
    await db('prediction_history_counts').insert([{ owner_key: `u:${u}`, visible: 1, checkpoint: 0 }, { owner_key: `t:${tm}`, visible: 2, checkpoint: 0 }, { owner_key: `u:${v}`, visible: 3, checkpoint: 0 }]);
    const discount = (key: string, userId: number, teamId: number | null, percent: number) => ({ owner_key: key, user_id: userId, team_id: teamId, model: '*', percent_off: percent, created_at: now, updated_at: now });
    await db('model_discounts').insert([discount(`u${u}`, u, null, 10), discount(`t${tm}`, u, tm, 20), discount(`u${v}`, v, null, 30)]);
    const before = await keys(db);

    t.deepEqual((await migrate(db)).slice(0, OURS.length), OURS);
    const personal = (userId: number) => ownerKey({ userId, teamId: null });
    const ofTeam = ownerKey({ userId: u, teamId: tm });
    t.deepEqual(await keys(db), { counters: [personal(u), ofTeam, personal(v)], discounts: [personal(u), ofTeam, personal(v)] });
    t.deepEqual([personal(u), ofTeam], [`user:${u}`, `team:${tm}`]);

    for (let i = 0; i < later.length; i++) await db.migrate.down({ migrationSource });
    t.deepEqual(await keys(db), before);
  });
}
