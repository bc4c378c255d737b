// listStaffAccess: the owner of an account sees each time staff acted on or for it (impersonated
// sessions, support and reset links, wallet changes), newest first, with the staff member's role
// and reason and never their identity, a token or a link; never another account's; an
// impersonated session may not read it. Time is the app clock, moved by the test.
import test from 'ava';
import { startGateway, newAccount } from '../helpers/gateway.ts';
import type { Account, TestGateway } from '../helpers/gateway.ts';
import { callOperation } from '../helpers/operation.ts';
import { ledgerCheckedAfterEach } from '../helpers/ledger.ts';

type Staff = 'support' | 'billing' | 'admin';
let gw: TestGateway;
let now = Date.UTC(2026, 10, 30, 12);
const MINUTE = 60_000;
const as: Record<Staff, Account & { email: string }> = {} as never;

interface Entry { id: number; kind: string; at: string; staff_role: string; reason: string | null; expires_at: string | null; ended_at: string | null; amount: number | null }
interface Page { items: Entry[]; page: number; page_size: number; total: number; has_more: boolean; code?: string }

async function account(credit = 0): Promise<Account & { email: string }> {
  const acct = await newAccount(gw, credit);
  const row = await gw.app.db('users').where({ id: acct.userId }).first('email');
  return { ...acct, email: String(row.email) };
}

test.before(async () => {
  gw = await startGateway({ queue: 'memory', clock: () => now });
  for (const role of ['support', 'billing', 'admin'] as const) {
    as[role] = await account();
    await gw.app.db('users').where({ id: as[role].userId }).update({ role });
  }
});
test.after.always(async () => { await gw?.stop(); });
ledgerCheckedAfterEach(test, () => gw?.app.db);

const list = (credential: string, query: Record<string, string | number> = {}) => callOperation<Page>(gw, 'listStaffAccess', { as: credential, query });

async function impersonate(staff: Account, email: string, reason: string, minutes?: number): Promise<string> {
  const res = await callOperation<string>(gw, 'virtualLogin', { as: staff.session, body: { email, reason, ...(minutes ? { minutes } : {}) } });
  if (res.status !== 200) throw new Error(`virtualLogin: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

test.serial('the owner sees an impersonation with its reason and a support link, newest first, without any token or link', async (t) => {
  const target = await account();
  t.deepEqual((await list(target.session)).body, { items: [], page: 1, page_size: 20, total: 0, has_more: false });

  const started = now;
  const token = await impersonate(as.admin, target.email, 'ticket 4411: cannot see her LoRA', 10);
  now += MINUTE;
  const link = await callOperation<{ url: string }>(gw, 'adminSupportLoginLink', { as: as.support.session, body: { email: target.email, reason: 'ticket 4412: sign-in loop' } });
  t.is(link.status, 200);
  now += MINUTE;

  const res = await list(target.session);
  t.is(res.status, 200);
  t.like(res.body, { page: 1, total: 2, has_more: false });
  t.like(res.body.items[0], { kind: 'support_login_link', staff_role: 'support', reason: 'ticket 4412: sign-in loop', expires_at: new Date(started + MINUTE + 15 * MINUTE).toISOString(), amount: null });
  t.like(res.body.items[1], {
    kind: 'impersonation', staff_role: 'admin', reason: 'ticket 4411: cannot see her LoRA', at: new Date(started).toISOString(),
    expires_at: new Date(started + 10 * MINUTE).toISOString(), ended_at: null,
  });
  const text = JSON.stringify(res.body);
  const linkToken = new URLSearchParams(link.body.url.split('?')[1]).get('token')!;
  for (const secret of [token, linkToken, link.body.url, 'mgs_', 'mgl_', as.admin.email, as.support.email]) t.false(text.includes(secret), `the answer holds ${secret.slice(0, 4)}…`);
  t.false(text.includes(`"${as.admin.userId}"`) || /actor|staff_id|user_id/.test(text), 'the staff member is not named');

  // the same through the owner's API key
  t.like((await list(target.liveKey)).body, { total: 2 });
});

test.serial('an impersonated session is refused, and its own requests are not listed one by one; logging it out shows when it ended', async (t) => {
  const target = await account();
  const token = await impersonate(as.support, target.email, 'ticket 5000');
  const refused = await list(token);
  t.is(refused.status, 403);
  t.is(refused.body.code, 'impersonation_forbidden');
  await gw.server.inject({ method: 'GET', url: '/app/user_details', headers: { authorization: `Bearer ${token}` } });
  now += 2 * MINUTE;
  t.is((await gw.server.inject({ method: 'POST', url: '/auth/logout', headers: { authorization: `Bearer ${token}` } })).statusCode, 200);
  const res = await list(target.session);
  t.is(res.body.total, 1);
  t.like(res.body.items[0], { kind: 'impersonation', staff_role: 'support', reason: 'ticket 5000', ended_at: new Date(now).toISOString() });
});

test.serial("never another account's; a team API key and team_id are refused", async (t) => {
  const target = await account();
  const other = await account();
  await impersonate(as.admin, target.email, 'ticket 6000');
  t.is((await list(target.session)).body.total, 1);
  t.deepEqual((await list(other.session)).body.items, []);
  t.is((await list(target.session, { team_id: 1 })).status, 422);
  const team = await callOperation<{ id: number }>(gw, 'createTeam', { as: target.session, body: { name: 'studio' } });
  const key = await callOperation<{ key: string }>(gw, 'createTeamApiKey', { as: target.session, params: { team_id: team.body.id }, body: { name: 'k' } });
  t.is(key.status, 201, JSON.stringify(key.body));
  t.is((await list(key.body.key)).status, 403);
});

test.serial('a support login used, a reset link, and wallet changes on the personal wallet are listed; a team wallet change is not', async (t) => {
  const target = await account(1000);
  // an address in a reason is shown as the account it names, on the link and on its use alike
  const link = await callOperation<{ url: string }>(gw, 'adminSupportLoginLink', { as: as.support.session, body: { email: target.email, reason: `ticket 7000 from ${target.email}` } });
  now += MINUTE;
  const redeemed = await callOperation(gw, 'supportLogin', { body: { token: new URLSearchParams(link.body.url.split('?')[1]).get('token') } });
  t.is(redeemed.status, 200);
  now += MINUTE;
  t.is((await callOperation(gw, 'adminPasswordResetLink', { as: as.admin.session, body: { email: target.email, reason: 'ticket 7001' } })).status, 200);
  now += MINUTE;
  t.is((await callOperation(gw, 'adminTopup', { as: as.billing.session, body: { email: target.email, amount: 500, reason: 'goodwill' } })).status, 200);
  t.is((await callOperation(gw, 'adminDeductCredits', { as: as.billing.session, body: { email: target.email, amount: 200, reason: 'duplicate grant' } })).status, 200);
  // a refused call is not an access
  t.is((await callOperation(gw, 'adminDeductCredits', { as: as.billing.session, body: { email: target.email, amount: 10_000_000, reason: 'too much' } })).status, 409);
  const team = await callOperation<{ id: number }>(gw, 'createTeam', { as: target.session, body: { name: 'studio' } });
  t.is((await callOperation(gw, 'adminTopup', { as: as.billing.session, query: { team_id: team.body.id }, body: { email: target.email, amount: 300, reason: 'team grant' } })).status, 200);

  const res = await list(target.session);
  t.deepEqual(res.body.items.map((e) => [e.kind, e.staff_role, e.reason, e.amount]), [
    ['debit', 'billing', 'duplicate grant', -200],
    ['credit', 'billing', 'goodwill', 500],
    ['password_reset_link', 'admin', 'ticket 7001', null],
    ['support_login', 'support', `ticket 7000 from user:${target.userId}`, null],
    ['support_login_link', 'support', `ticket 7000 from user:${target.userId}`, null],
  ]);
  t.is(res.body.items[3]!.expires_at, new Date(now - 2 * MINUTE + 30 * MINUTE).toISOString());
  // paged like the other lists
  const second = await list(target.session, { page: 2, page_size: 2 });
  t.like(second.body, { page: 2, page_size: 2, total: 5, has_more: true });
  t.deepEqual(second.body.items.map((e) => e.kind), ['password_reset_link', 'support_login']);
});
