// No credit lands in a deleted team's wallet, on either engine: an administrator's top-up, a
// Stripe purchase paid after the deletion (its buyer's own wallet is credited instead), the credits
// of a refund that failed, and a plan's grant. On MariaDB also when the deletion commits while the
// move is under way: each move reads the team under the team row's lock, so it either sees the
// deletion or holds the deletion back until it has committed (and the deletion then refuses a
// wallet with credit). The ledger adds up after every test.
import test from 'ava';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Knex } from 'knex';
import { createDb, migrate } from '../../db/knex.ts';
import type { Db } from '../../db/knex.ts';
import { freshDatabase, uniqueName } from '../helpers/services.ts';
import { assertLedger } from '../helpers/ledger.ts';
import { createTeam, deleteTeam } from '../../db/teams.ts';
import { adminDeduct, adminTopUp } from '../../db/wallet/admin.ts';
import { applyStripeRefund, findPaymentByIntent, recordPurchase, reverseStripeRefund } from '../../db/stripe-payments.ts';
import { activateSubscription } from '../../db/subscriptions.ts';
import type { SubscriptionPlan } from '../../lib/subscription-plans.ts';

const PLAN: SubscriptionPlan = { name: 'starter', credits: 1000, rolloverCap: 0, period: { unit: 'month', count: 1 } };

const engines: Array<{ name: 'mariadb' | 'sqlite'; db?: Db; drop?: () => Promise<void> }> = [{ name: 'mariadb' }, { name: 'sqlite' }];

test.before(async () => {
  const fresh = await freshDatabase(undefined, { migrated: true });
  engines[0]!.drop = fresh.drop;
  engines[0]!.db = createDb({ databaseUrl: fresh.url, sqliteFile: '' });
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'deleted-team-credit-'));
  engines[1]!.drop = async () => fs.rmSync(dir, { recursive: true, force: true });
  engines[1]!.db = createDb({ databaseUrl: undefined, sqliteFile: path.join(dir, 'gateway.db') });
  for (const e of engines) await migrate(e.db!);
});
test.after.always(async () => {
  for (const e of engines) {
    await e.db?.destroy();
    await e.drop?.();
  }
});

async function user(db: Db): Promise<number> {
  const [id] = await db('users').insert({ email: `${uniqueName('u')}@example.com`, created_at: Date.now() });
  return Number(id);
}

async function deletedTeam(db: Db): Promise<{ owner: number; teamId: number }> {
  const owner = await user(db);
  const team = await createTeam(db, owner, 'Gone', Date.now());
  if (!(await deleteTeam(db, team.id, Date.now()))) throw new Error('the team was not deleted');
  return { owner, teamId: team.id };
}

const balanceOf = async (db: Db, table: 'users' | 'teams', id: number) => Number((await db(table).where({ id }).first('balance')).balance);

const purchase = (userId: number, teamId: number | null, credits = 500) => {
  const pi = uniqueName('pi');
  return {
    userId, teamId, checkoutSessionId: uniqueName('cs'), paymentIntentId: pi, customerId: uniqueName('cus'), recordCustomer: true,
    amount: credits / 10, currency: 'usd', credits, now: Date.now(),
  };
};

for (const engine of engines) {
  const db = () => engine.db!;

  test.serial(`${engine.name}: an administrator's top-up of a deleted team moves nothing`, async (t) => {
    const { owner, teamId } = await deletedTeam(db());
    t.is(await adminTopUp(db(), { userId: owner, teamId }, 100, 'late', Date.now()), undefined);
    t.is(await balanceOf(db(), 'teams', teamId), 0);
    t.is(Number((await db()('credit_transactions').where({ team_id: teamId }).count({ n: '*' }))[0]!.n), 0);
    await assertLedger(t, db());
  });

  test.serial(`${engine.name}: an administrator's deduction from a deleted team moves nothing, allow_negative or not: no debt on a wallet that is gone`, async (t) => {
    const { owner, teamId } = await deletedTeam(db());
    for (const allowNegative of [false, true]) t.is(await adminDeduct(db(), { userId: owner, teamId }, 100, 'late', Date.now(), allowNegative), 'gone');
    t.is(await balanceOf(db(), 'teams', teamId), 0);
    t.is(Number((await db()('credit_transactions').where({ team_id: teamId }).count({ n: '*' }))[0]!.n), 0);
    await assertLedger(t, db());
  });

  test.serial(`${engine.name}: a purchase paid after its team was deleted credits the buyer's own wallet, or nothing when the buyer is erased too`, async (t) => {
    const { owner, teamId } = await deletedTeam(db());
    const p = purchase(owner, teamId);
    t.like(await recordPurchase(db(), p), { outcome: 'credited', forDeletedTeam: teamId, balance: 500 });
    t.is(await balanceOf(db(), 'teams', teamId), 0);
    t.is(await balanceOf(db(), 'users', owner), 500);
    t.like(await db()('stripe_payments').where({ checkout_session_id: p.checkoutSessionId }).first(), { team_id: null });
    t.is((await db()('users').where({ id: owner }).first('stripe_customer_id')).stripe_customer_id, null, 'the team\'s Stripe customer is not the buyer\'s');
    t.like(await recordPurchase(db(), p), { outcome: 'duplicate' });

    const gone = await deletedTeam(db());
    await db()('users').where({ id: gone.owner }).update({ deleted_at: Date.now() });
    t.like(await recordPurchase(db(), purchase(gone.owner, gone.teamId)), { outcome: 'no-account', gone: 'team' });
    t.is(await balanceOf(db(), 'users', gone.owner), 0);
    await assertLedger(t, db());
  });

  test.serial(`${engine.name}: a refund of a team purchase that fails after the team was deleted gives the credits to the buyer's own wallet`, async (t) => {
    for (const erased of [false, true]) {
      const owner = await user(db());
      const team = await createTeam(db(), owner, 'Refunded', Date.now());
      const p = purchase(owner, team.id);
      t.like(await recordPurchase(db(), p), { outcome: 'credited' });
      const payment = (await findPaymentByIntent(db(), p.paymentIntentId))!;
      const refundId = uniqueName('re');
      t.like(await applyStripeRefund(db(), payment, { refundId, chargeId: uniqueName('ch'), amount: payment.amount, currency: 'usd', source: 'admin', description: 'refund', now: Date.now() }),
        { outcome: 'applied', credits: 500, balance: 0 });
      t.true(await deleteTeam(db(), team.id, Date.now()));
      if (erased) await db()('users').where({ id: owner }).update({ deleted_at: Date.now() });
      const back = await reverseStripeRefund(db(), refundId, `Stripe refund ${refundId} failed: credits given back`, Date.now());
      t.like(back, { outcome: 'reversed', credits: erased ? 0 : 500, teamDeleted: { team: team.id, to: erased ? 'nowhere' : 'buyer' } });
      t.is(await balanceOf(db(), 'teams', team.id), 0, 'a deleted team is credited nothing');
      t.is(await balanceOf(db(), 'users', owner), erased ? 0 : 500);
      if (!erased) t.regex((await db()('credit_transactions').where({ user_id: owner, team_id: null, kind: 'payment_refund' }).first()).description, new RegExp(`team ${team.id}.*deleted`));
    }
    await assertLedger(t, db());
  });

  test.serial(`${engine.name}: a plan activated for a deleted team grants nothing`, async (t) => {
    const { owner, teamId } = await deletedTeam(db());
    t.like(await activateSubscription(db(), { userId: owner, teamId }, PLAN, undefined, Date.now()), { outcome: 'wallet-gone' });
    t.is(await balanceOf(db(), 'teams', teamId), 0);
    await assertLedger(t, db());
  });
}

/**
 * Runs `move` while another transaction has deleted the team and not committed yet, and commits
 * the deletion once `move` waits for the team row's lock (MariaDB only: SQLite runs one
 * transaction at a time).
 */
async function deletedDuring<T>(db: Db, teamId: number, move: () => Promise<T>): Promise<T> {
  const holder: Knex.Transaction = await db.transaction();
  let running: Promise<T> | undefined;
  try {
    await holder('teams').where({ id: teamId }).forUpdate().first('id');
    await holder('teams').where({ id: teamId }).update({ deleted_at: Date.now() });
    running = move();
    // a move that took no lock on the team row has nothing to wait for and may end first
    await Promise.race([lockWaitSeen(db), running.then(() => undefined, () => undefined)]);
  } finally {
    await holder.commit();
  }
  return running!;
}

async function lockWaitSeen(db: Db): Promise<void> {
  const [[{ name }]] = await db.raw('SELECT DATABASE() AS name') as [[{ name: string }]];
  for (let i = 0; i < 500; i++) {
    // the move's locking read of the team row, still running while the holder keeps the lock: it
    // waits. (INNODB_TRX does not always list it: a transaction whose first statement waits in the
    // optimizer's look-up of a row by its primary key shows as the statement only.)
    const [rows] = await db.raw("SELECT 1 FROM information_schema.PROCESSLIST WHERE DB = ? AND ID <> CONNECTION_ID() AND INFO LIKE '%from `teams`%for update%'", [name]) as [unknown[]];
    if (rows.length > 0) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error('no statement waited for a lock');
}

test.serial('mariadb: a team deleted while a top-up, a purchase or a plan\'s grant waits for it is credited nothing', async (t) => {
  const db = engines[0]!.db!;
  const live = async () => {
    const owner = await user(db);
    return { owner, teamId: (await createTeam(db, owner, 'Racing', Date.now())).id };
  };
  const a = await live();
  t.is(await deletedDuring(db, a.teamId, () => adminTopUp(db, { userId: a.owner, teamId: a.teamId }, 100, 'racing', Date.now())), undefined);
  t.is(await balanceOf(db, 'teams', a.teamId), 0);

  const b = await live();
  t.like(await deletedDuring(db, b.teamId, () => recordPurchase(db, purchase(b.owner, b.teamId))), { outcome: 'credited', forDeletedTeam: b.teamId });
  t.is(await balanceOf(db, 'teams', b.teamId), 0);
  t.is(await balanceOf(db, 'users', b.owner), 500);

  const c = await live();
  t.like(await deletedDuring(db, c.teamId, () => activateSubscription(db, { userId: c.owner, teamId: c.teamId }, PLAN, undefined, Date.now())), { outcome: 'wallet-gone' });
  t.is(await balanceOf(db, 'teams', c.teamId), 0);
  await assertLedger(t, db);
});
