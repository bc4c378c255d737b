// The wallet's moves (db/wallet/moves.ts, README "The ledger"): a hold, charge or release reads
// the wallet it leaves from its own UPDATE, and the charges of a group are written as the same
// charges one by one would have left the wallet. Each must be exact, on MariaDB and on SQLite.
import test from 'ava';
import { startGateway, newAccount } from '../helpers/gateway.ts';
import { assertLedger } from '../helpers/ledger.ts';
import { addGrants } from './store-contract.ts';
import { debitWallet, holdFor, releaseFor, settleFor } from '../../db/wallet/moves.ts';

const MODEL = 'canvas-v1-fast-text-to-image';

for (const db of ['mysql', 'sqlite'] as const) {
  test(`${db}: each move's ledger row records the wallet the move left, and the hold reports the balance after it`, async (t) => {
    const gw = await startGateway({ db, queue: 'memory' });
    t.teardown(() => gw.stop());
    const acct = await newAccount(gw, 1000);
    const payer = { userId: acct.userId, teamId: null };
    const ref = (id: string) => ({ predictionId: id, model: MODEL, now: Date.now() });
    const held = await gw.app.db.transaction((trx) => holdFor(trx, payer, 300, ref('p1')));
    t.deepEqual(held, { balance: 700 });
    await gw.app.db.transaction((trx) => holdFor(trx, payer, 200, ref('p2')));
    await gw.app.db.transaction((trx) => settleFor(trx, payer, 300, 'p1', MODEL, Date.now(), { listPrice: 300, discountPercent: null }));
    await gw.app.db.transaction((trx) => releaseFor(trx, payer, 200, ref('p2')));
    const rows = await gw.app.db('credit_transactions').where({ user_id: acct.userId }).orderBy('id').select('kind', 'balance_after', 'held_after');
    t.deepEqual(rows.map((r: { kind: string; balance_after: unknown; held_after: unknown }) => [r.kind, Number(r.balance_after), Number(r.held_after)]), [
      ['grant', 1000, 0], ['hold', 700, 300], ['hold', 500, 500], ['prediction', 500, 200], ['release', 700, 0],
    ]);
    // a hold the balance cannot cover moves nothing and writes no row
    const { InsufficientCreditError } = await import('../../db/errors.ts');
    await t.throwsAsync(gw.app.db.transaction((trx) => holdFor(trx, payer, 701, ref('p3'))), { instanceOf: InsufficientCreditError });
    t.is((await gw.app.db('credit_transactions').where({ user_id: acct.userId })).length, 5);
    await assertLedger(t, gw.app.db);
  });

  test(`${db}: a hold is released and charged on a wallet an admin's deduction took below zero`, async (t) => {
    const gw = await startGateway({ db, queue: 'memory' });
    t.teardown(() => gw.stop());
    const acct = await newAccount(gw, 1000);
    const payer = { userId: acct.userId, teamId: null };
    const ref = (id: string) => ({ predictionId: id, model: MODEL, now: Date.now() });
    await gw.app.db.transaction((trx) => holdFor(trx, payer, 400, ref('n1')));
    await gw.app.db.transaction((trx) => holdFor(trx, payer, 300, ref('n2')));
    t.is(await gw.app.db.transaction((trx) => debitWallet(trx, payer, 900, 'correction', Date.now(), true)), -600);
    // the balance stays below zero after the release (-200)
    await gw.app.db.transaction((trx) => releaseFor(trx, payer, 400, ref('n1')));
    await gw.app.db.transaction((trx) => settleFor(trx, payer, 300, 'n2', MODEL, Date.now(), { listPrice: 300, discountPercent: null }));
    const rows = await gw.app.db('credit_transactions').where({ user_id: acct.userId }).orderBy('id').select('kind', 'balance_after', 'held_after');
    t.deepEqual(rows.map((r: { kind: string; balance_after: unknown; held_after: unknown }) => [r.kind, Number(r.balance_after), Number(r.held_after)]).slice(-2), [
      ['release', -200, 300], ['prediction', -200, 0],
    ]);
    await assertLedger(t, gw.app.db);
  });
}

for (const db of ['mysql', 'sqlite'] as const) {
  test(`${db}: a group's charges over a user's and a team's wallet spend expiring grants and write the ledger exactly as the same charges one by one`, async (t) => {
    const gw = await startGateway({ db, queue: 'memory' });
    t.teardown(() => gw.stop());
    const d = gw.app.db;
    const now = Date.now();
    const { createTeam } = await import('../../db/teams.ts');
    const { creditTeam, holdFor, settleFor, settleWallets } = await import('../../db/wallet/moves.ts');
    // two wallets alike, a user's and a team's of each kind: one is charged as a group, the other one by one
    const wallets: Array<{ userId: number; teamId: number | null }> = [];
    for (let i = 0; i < 2; i++) {
      const acct = await newAccount(gw, 1000);
      const team = await createTeam(d, acct.userId, `team ${i}`, now);
      await d.transaction((trx) => creditTeam(trx, team.id, acct.userId, 1000, 'grant', 'funding', now));
      wallets.push({ userId: acct.userId, teamId: null }, { userId: acct.userId, teamId: team.id });
    }
    for (const w of wallets) {
      const key = w.teamId === null ? `user:${w.userId}` : `team:${w.teamId}`;
      // 230 of grant credit in two grants: 150 charged takes the sooner-expiring one and 120 of the other
      await addGrants(d, w, [30, 200], now);
      for (const id of ['a', 'b', 'c']) await d.transaction((trx) => holdFor(trx, w, 50, { predictionId: `${key}-${id}`, model: MODEL, now }));
    }
    const charges = (w: { userId: number; teamId: number | null }) => ['a', 'b', 'c'].map((id) => ({
      amount: 50, predictionId: `${w.teamId === null ? `user:${w.userId}` : `team:${w.teamId}`}-${id}`, model: MODEL, now, listPrice: 60, discountPercent: 16,
    }));
    // a user's and a team's wallet in one move (one group of the worker)
    await d.transaction((trx) => settleWallets(trx, [wallets[1]!, wallets[0]!].map((w) => ({ payer: w, charges: charges(w) }))));
    for (const w of [wallets[2]!, wallets[3]!]) {
      for (const c of charges(w)) await d.transaction((trx) => settleFor(trx, w, c.amount, c.predictionId, c.model, c.now, c));
    }
    const state = async (w: { userId: number; teamId: number | null }) => {
      const q = d('credit_transactions').orderBy('id').select('kind', 'amount', 'held_change', 'balance_after', 'held_after', 'list_price', 'discount_percent');
      if (w.teamId === null) q.where({ user_id: w.userId }).whereNull('team_id'); else q.where({ team_id: w.teamId });
      const grants = await d('credit_grants').where('wallet', w.teamId === null ? `user:${w.userId}` : `team:${w.teamId}`).orderBy('id').select('remaining');
      const wallet = await d(w.teamId === null ? 'users' : 'teams').where('id', w.teamId ?? w.userId).first('balance', 'held', 'grants');
      return {
        rows: (await q as Array<Record<string, unknown>>).map((r) => [r.kind, ...['amount', 'held_change', 'balance_after', 'held_after', 'list_price', 'discount_percent'].map((k) => (r[k] === null ? null : Number(r[k])))]),
        grants: grants.map((g: { remaining: unknown }) => Number(g.remaining)),
        wallet: [Number(wallet.balance), Number(wallet.held), Number(wallet.grants)],
      };
    };
    t.deepEqual(await state(wallets[0]!), await state(wallets[2]!), 'a user\'s wallet');
    t.deepEqual(await state(wallets[1]!), await state(wallets[3]!), 'a team\'s wallet');
    t.like(await state(wallets[0]!), { grants: [0, 80], wallet: [850, 0, 1] });
    t.deepEqual((await state(wallets[1]!)).rows.slice(-3).map((r) => r.slice(3, 5)), [[850, 100], [850, 50], [850, 0]]);
    await assertLedger(t, d);
  });
}
