// Migration 20261201_0701 on MariaDB and SQLite: a chat call cancelled and then charged nothing
// kept its hold as its price; up sets such a price to 0 and leaves every other row as it was (a
// cancelled call that was charged, one still running, a cancelled asynchronous run, a failed one).
import test from 'ava';
import { migrate } from '../../db/knex.ts';
import { migrationSource } from '../../db/migrations/index.ts';
import { databaseBefore, migrationsFrom } from '../helpers/migrations.ts';

const OURS = '20261201_0701_cancelled_inline_price';

for (const engine of ['mysql', 'sqlite'] as const) {
  test(`${engine}: up gives a cancelled chat call charged nothing the price 0, and nothing else; down keeps the prices`, async (t) => {
    const db = await databaseBefore(t, engine, OURS);
    const later = await migrationsFrom(OURS);
    const now = Date.now();
    const [userId] = await db('users').insert({ email: 'inline@example.com', created_at: now });
    const prediction = (id: string, status: string, price: number) => db('predictions').insert({
      id, user_id: userId, model: 'lexi-v1-balanced-chat', status, input: '{}', price, list_price: price, created_at: now, updated_at: now,
    });
    const usage = (id: string, settled: boolean) => db('prediction_usage').insert({ prediction_id: id, created_at: now, settled_at: settled ? now : null });
    const move = (id: string, kind: string, amount: number) => db('credit_transactions').insert({ user_id: userId, prediction_id: id, kind, amount, balance_after: 0, created_at: now });
    // released by the sweeper, nothing charged
    await prediction('released', 'cancelled', 300);
    await usage('released', true);
    await move('released', 'hold', 0);
    await move('released', 'release', 0);
    // charged the answer it relayed
    await prediction('charged', 'cancelled', 12);
    await usage('charged', true);
    await move('charged', 'prediction', -12);
    // cancelled, its stream not settled yet: still held
    await prediction('running', 'cancelled', 200);
    await usage('running', false);
    // an asynchronous run cancelled (no usage row) and a failed call
    await prediction('async', 'cancelled', 50);
    await prediction('failed', 'failed', 80);
    await usage('failed', true);
    t.deepEqual((await migrate(db)).slice(0, 1), [OURS]);
    const prices = async () => Object.fromEntries((await db('predictions').orderBy('id').select('id', 'price', 'list_price'))
      .map((r: { id: string; price: number | string; list_price: number | string }) => [r.id, [Number(r.price), Number(r.list_price)]]));
    t.deepEqual(await prices(), { async: [50, 50], charged: [12, 12], failed: [80, 80], released: [0, 0], running: [200, 200] });
    for (let i = 0; i < later.length; i++) await db.migrate.down({ migrationSource });
    t.deepEqual((await prices()).released, [0, 0]);
  });
}
