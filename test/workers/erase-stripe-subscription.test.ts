// Erasing an account (README "Deleting an account") ends its plan here, and a plan sold through
// Stripe is a subscription Stripe charges every period: the eraser cancels it at Stripe too, or
// the person's card would go on being charged for an account that no longer exists (and whose
// billing portal nobody can open any more). Stripe is third-party HTTP: nock.
import test from 'ava';
import nock from 'nock';
import { onlyLocalNetwork } from '../helpers/adapters.ts';
import { newAccount, startGateway } from '../helpers/gateway.ts';
import { eraseAccountAndFiles } from '../../workers/retention.ts';
import { stripeCancellationsSettled } from '../../workers/stripe-cancellations.ts';
import { eraseAccount } from '../../db/account-deletion.ts';
import { createTeam, deleteTeam } from '../../db/teams.ts';

const STRIPE = 'https://api.stripe.com';

onlyLocalNetwork(test);

test.serial('the eraser cancels the account\'s Stripe subscriptions (the started one and an unapplied second one), not another account\'s; a refusal does not stop the erasure', async (t) => {
  const gw = await startGateway({ queue: 'memory', env: { STRIPE_SECRET_KEY: 'sk_test_mediagateerasure', STRIPE_WEBHOOK_SECRET: 'whsec_mediagateerasuresecret' } });
  t.teardown(() => gw.stop());
  const acct = await newAccount(gw);
  const other = await newAccount(gw);
  const now = gw.app.clock();
  const checkout = (n: number, userId: number, sub: string, outcome: string) => ({
    checkout_session_id: `cs_erase_${n}`, stripe_subscription_id: sub, customer_id: `cus_${userId}`, user_id: userId, team_id: null,
    plan: 'pro', amount: 5000, currency: 'usd', outcome, created_at: now,
  });
  await gw.app.db('stripe_subscription_checkouts').insert([
    checkout(1, acct.userId, 'sub_erase_started', 'started'), checkout(2, acct.userId, 'sub_erase_unapplied', 'unapplied'),
    checkout(3, acct.userId, 'sub_erase_gone', 'started'), checkout(4, other.userId, 'sub_other', 'started'),
  ]);
  const cancelled: string[] = [];
  for (const sub of ['sub_erase_started', 'sub_erase_unapplied']) {
    nock(STRIPE).delete(`/v1/subscriptions/${sub}`).reply(() => { cancelled.push(sub); return [200, { id: sub, object: 'subscription', status: 'canceled' }]; });
  }
  // one the customer already cancelled in the billing portal: Stripe has no such subscription any more, which is as good as cancelled
  nock(STRIPE).delete('/v1/subscriptions/sub_erase_gone').reply(() => {
    cancelled.push('sub_erase_gone');
    return [404, { error: { type: 'invalid_request_error', code: 'resource_missing', message: 'No such subscription: sub_erase_gone' } }];
  });

  t.like(await eraseAccountAndFiles(gw.app, acct.userId, now, { immediate: true }), { kind: 'erased' });
  await stripeCancellationsSettled();
  t.deepEqual(cancelled.sort(), ['sub_erase_gone', 'sub_erase_started', 'sub_erase_unapplied']);
  t.truthy((await gw.app.db('users').where({ id: acct.userId }).first()).deleted_at);
  // each is done, and recorded ended; the payment records stay (money history)
  const rows = await gw.app.db('stripe_cancellations').where({ user_id: acct.userId }).orderBy('stripe_subscription_id');
  t.deepEqual(rows.map((r: { stripe_subscription_id: string; done_at: unknown }) => [r.stripe_subscription_id, r.done_at !== null]),
    [['sub_erase_gone', true], ['sub_erase_started', true], ['sub_erase_unapplied', true]]);
  t.is((await gw.app.db('stripe_subscription_checkouts').where({ user_id: acct.userId }).whereNot({ outcome: 'ended' })).length, 3);
  t.is((await gw.app.db('stripe_subscription_checkouts').where({ user_id: acct.userId, outcome: 'ended' })).length, 3);
});

test.serial('the erasing and the team-deleting transactions record the wallet\'s Stripe subscriptions for cancelling themselves', async (t) => {
  const gw = await startGateway({ queue: 'memory', env: { STRIPE_SECRET_KEY: 'sk_test_mediagateerasure', STRIPE_WEBHOOK_SECRET: 'whsec_mediagateerasuresecret' } });
  t.teardown(() => gw.stop());
  const acct = await newAccount(gw);
  const owner = await newAccount(gw);
  const team = await createTeam(gw.app.db, owner.userId, 'erase-record', gw.app.clock());
  const now = gw.app.clock();
  const checkout = (n: number, userId: number, teamId: number | null, sub: string) => ({
    checkout_session_id: `cs_record_${n}`, stripe_subscription_id: sub, customer_id: null, user_id: userId, team_id: teamId,
    plan: 'pro', amount: 5000, currency: 'usd', outcome: 'started', created_at: now,
  });
  await gw.app.db('stripe_subscription_checkouts').insert([checkout(1, acct.userId, null, 'sub_record_user'), checkout(2, owner.userId, team.id, 'sub_record_team')]);
  // the database's steps alone (no Stripe call follows them here): the rows are there for the subscription job
  t.like(await eraseAccount(gw.app.db, acct.userId, now, { immediate: true }), { kind: 'erased' });
  t.true(await deleteTeam(gw.app.db, team.id, now, () => {}, owner.userId));
  const rows = await gw.app.db('stripe_cancellations').orderBy('stripe_subscription_id');
  t.deepEqual(rows.map((r: { stripe_subscription_id: string; user_id: number; team_id: number | null; done_at: unknown }) => [r.stripe_subscription_id, r.user_id, r.team_id, r.done_at]),
    [['sub_record_team', owner.userId, team.id, null], ['sub_record_user', acct.userId, null, null]]);
});
