// getMySubscription (README "Subscriptions"): GET /app/subscription shows the paying wallet's
// subscription, the caller's own or with team_id a team's (read_balance), in the shape
// adminManageSubscription answers; `status: none` without one; another tenant's team is 404.
import test from 'ava';
import { startGateway, newAccount } from '../helpers/gateway.ts';
import type { Account, TestGateway } from '../helpers/gateway.ts';
import { callOperation } from '../helpers/operation.ts';
import { ledgerCheckedAfterEach } from '../helpers/ledger.ts';
import { createTeam } from '../../db/teams.ts';

let gw: TestGateway;
let billing: Account;
test.before(async () => {
  gw = await startGateway({ queue: 'memory', env: { SUBSCRIPTION_PLANS: JSON.stringify({ basic: { credits: 1000, rollover_cap: 200, period: '30d' } }) } });
  billing = await newAccount(gw);
  await gw.app.db('users').where({ id: billing.userId }).update({ role: 'billing' });
});
test.after.always(async () => { await gw?.stop(); });
ledgerCheckedAfterEach(test, () => gw?.app.db);

const emailOf = async (a: Account) => String((await gw.app.db('users').where({ id: a.userId }).first('email')).email);
const mine = (as: string, query?: Record<string, number>) => callOperation<Record<string, unknown> & { code?: string }>(gw, 'getMySubscription', { as, ...(query ? { query } : {}) });

test('own wallet: none, then the plan billing activated, with every credential', async (t) => {
  const a = await newAccount(gw);
  t.like(await mine(a.session), { status: 200, body: { user_id: a.userId, team_id: null, plan: null, next_plan: null, status: 'none', current_period_end: null, credits_per_period: null, grant_remaining: 0 } });
  const made = await callOperation(gw, 'adminManageSubscription', { as: billing.session, body: { email: await emailOf(a), action: 'activate', plan: 'basic' } });
  t.is(made.status, 200);
  for (const as of [a.session, a.liveKey]) {
    const r = await mine(as);
    t.like(r, { status: 200, body: { user_id: a.userId, team_id: null, plan: 'basic', status: 'active', credits_per_period: 1000, rollover_cap: 200, period: '30d', grant_remaining: 1000 } });
    t.deepEqual(r.body, made.body, 'the same view as the admin route');
  }
});

test('team wallet with read_balance; a viewer 403; another tenant\'s team 404, like an unknown team', async (t) => {
  const owner = await newAccount(gw);
  const viewer = await newAccount(gw);
  const other = await newAccount(gw);
  const team = await createTeam(gw.app.db, owner.userId, 'subscribed', Date.now());
  await gw.app.db('team_members').insert({ team_id: team.id, user_id: viewer.userId, role: 'viewer', created_at: Date.now() });
  t.like(await mine(owner.session, { team_id: team.id }), { status: 200, body: { team_id: team.id, status: 'none' } });
  t.is((await callOperation(gw, 'adminManageSubscription', { as: billing.session, query: { team_id: team.id }, body: { email: await emailOf(owner), action: 'activate', plan: 'basic' } })).status, 200);
  t.like(await mine(owner.session, { team_id: team.id }), { status: 200, body: { team_id: team.id, plan: 'basic', status: 'active', grant_remaining: 1000 } });
  t.like(await mine(owner.session), { status: 200, body: { team_id: null, status: 'none' } }, 'the personal wallet has none');
  t.like(await mine(viewer.session, { team_id: team.id }), { status: 403 });
  const foreign = await mine(other.session, { team_id: team.id });
  const unknown = await mine(other.session, { team_id: 999_999_999 });
  t.is(foreign.status, 404);
  t.deepEqual(foreign.body, unknown.body);
});
