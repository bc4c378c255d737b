// Alerts and budgets: the settings routes; a low-balance alert and a monthly budget's alert go out
// exactly once (one row, one mail) when concurrent submits cross the line on MariaDB; a hard
// budget admits exactly what fits under concurrent submits and refuses the rest with 402
// budget_exceeded, holding nothing for them; a soft one only alerts; the same hard budget on SQLite.
import test from 'ava';
import { startGateway, newAccount } from '../helpers/gateway.ts';
import type { Account, TestGateway } from '../helpers/gateway.ts';
import { callOperation } from '../helpers/operation.ts';
import { startSmtp } from '../helpers/smtp.ts';
import type { SmtpCapture } from '../helpers/smtp.ts';
import { waitFor } from '../helpers/services.ts';
import { alertRecipients } from '../../db/alerts.ts';

const MODEL = 'canvas-v1-fast-text-to-image';
/** alerts are mailed to verified addresses only */
const VERIFIED = { emailVerified: true };
const BODY = { prompt: 'a kite', width: 64, height: 64 };

let smtp: SmtpCapture;
let gw: TestGateway;
let lite: TestGateway;
let price: number;
test.before(async () => {
  smtp = await startSmtp();
  const env = { SMTP_URL: smtp.url, MAIL_FROM: 'mediagate <alerts@gateway.test>' };
  gw = await startGateway({ env });
  lite = await startGateway({ db: 'sqlite', queue: 'memory', env });
  const acct = await newAccount(gw, 0, VERIFIED);
  price = (await callOperation<{ cost: number }>(gw, 'calculateDynamicCost', { as: acct.session, body: { model: MODEL, input: BODY } })).body.cost;
});
test.after.always(async () => {
  await gw?.stop();
  await lite?.stop();
  await smtp?.close();
});

async function emailOf(g: TestGateway, a: Account): Promise<string> {
  return (await g.app.db('users').where({ id: a.userId }).first<{ email: string }>())!.email;
}

async function submitAll(g: TestGateway, key: string, n: number) {
  return Promise.all(Array.from({ length: n }, () => g.server.inject({ method: 'POST', url: `/api/v1/${MODEL}`, headers: { 'x-api-key': key }, payload: BODY })));
}

/** The alert mails to `email` (registration sent it a code mail too). */
function alertMails(email: string) {
  return smtp.messages.filter((m) => m.to.includes(email.toLowerCase()) && /^Subject: mediagate: /m.test(m.raw));
}

async function alertRows(g: TestGateway, a: Account, kind: string) {
  return g.app.db('alerts').where({ user_id: a.userId, kind });
}

test('the settings are read and set per wallet; an unknown field or a zero threshold is 422; null turns a setting off', async (t) => {
  const a = await newAccount(gw, 0, VERIFIED);
  const none = await callOperation(gw, 'getAlertSettings', { as: a.session });
  t.deepEqual(none.body, { low_balance_threshold: null, monthly_budget: null, monthly_budget_mode: 'soft', webhook_url: null });
  const set = await callOperation(gw, 'updateAlertSettings', { as: a.session, body: { low_balance_threshold: 500, monthly_budget: 10_000, monthly_budget_mode: 'hard' } });
  t.is(set.status, 200, set.raw.payload);
  t.deepEqual((await callOperation(gw, 'getAlertSettings', { as: a.liveKey })).body, { low_balance_threshold: 500, monthly_budget: 10_000, monthly_budget_mode: 'hard', webhook_url: null });
  t.is((await callOperation(gw, 'updateAlertSettings', { as: a.session, body: { low_balance_threshold: 0 } })).status, 422);
  t.is((await callOperation(gw, 'updateAlertSettings', { as: a.session, body: { email_to: 'someone@example.com' } })).status, 422);
  t.deepEqual((await callOperation(gw, 'updateAlertSettings', { as: a.session, body: {} })).body, { low_balance_threshold: null, monthly_budget: null, monthly_budget_mode: 'soft', webhook_url: null });
  t.deepEqual((await callOperation(gw, 'listAlerts', { as: a.session })).body, { items: [] });
});

test('concurrent submits that cross the low-balance line send exactly one alert, by one mail', async (t) => {
  const a = await newAccount(gw, price * 20, VERIFIED);
  const threshold = price * 10 + 1;
  t.is((await callOperation(gw, 'updateAlertSettings', { as: a.session, body: { low_balance_threshold: threshold } })).status, 200);
  const replies = await submitAll(gw, a.liveKey, 16);
  t.deepEqual([...new Set(replies.map((r) => r.statusCode))], [200]);
  const email = await emailOf(gw, a);
  await waitFor(async () => (await alertRows(gw, a, 'low_balance')).length > 0 && alertMails(email).length > 0, { what: 'the alert and its mail' });
  // every submit's check has finished once the answers are in and the checks ran: submit once more (still below) and wait for its check
  const more = await submitAll(gw, a.liveKey, 2);
  t.deepEqual(more.map((r) => r.statusCode), [200, 200]);
  const rows = await waitFor(async () => {
    const r = await alertRows(gw, a, 'low_balance');
    return r.length >= 1 ? r : undefined;
  }, { what: 'the alert row' });
  t.is(rows.length, 1);
  t.is(Number(rows[0].threshold), threshold);
  t.true(Number(rows[0].value) < threshold);
  t.is(alertMails(email).length, 1);
  t.regex(alertMails(email)[0]!.raw, /^Subject: mediagate: low balance/m);
  const listed = await callOperation<{ items: Array<{ kind: string }> }>(gw, 'listAlerts', { as: a.session });
  t.deepEqual(listed.body.items.map((i) => i.kind), ['low_balance']);
});

test('a hard monthly budget admits exactly what fits under concurrent submits; the rest are 402 budget_exceeded and hold nothing', async (t) => {
  const a = await newAccount(gw, price * 100, VERIFIED);
  const budget = price * 6 + 1;
  t.is((await callOperation(gw, 'updateAlertSettings', { as: a.session, body: { monthly_budget: budget, monthly_budget_mode: 'hard' } })).status, 200);
  const replies = await submitAll(gw, a.liveKey, 20);
  const ok = replies.filter((r) => r.statusCode === 200);
  const refused = replies.filter((r) => r.statusCode === 402);
  t.is(ok.length, 6);
  t.is(refused.length, 14);
  const body = JSON.parse(refused[0]!.payload) as { code: string; detail: string };
  t.is(body.code, 'budget_exceeded');
  t.true(body.detail.includes(`monthly budget of ${budget} credits`), body.detail);
  const bal = (await callOperation<{ balance: number; held: number }>(gw, 'getBalance', { as: a.liveKey })).body;
  t.deepEqual([bal.balance, bal.held], [price * 94, price * 6]);
  t.is((await gw.app.db('predictions').where({ user_id: a.userId })).length, 6);
  const email = await emailOf(gw, a);
  await waitFor(async () => (await alertRows(gw, a, 'monthly_budget')).length > 0 && alertMails(email).length > 0, { what: 'the budget alert' });
  t.is((await alertRows(gw, a, 'monthly_budget')).length, 1);
  t.is(alertMails(email).length, 1);
});

test('a soft monthly budget refuses nothing and alerts once', async (t) => {
  const a = await newAccount(gw, price * 100, VERIFIED);
  t.is((await callOperation(gw, 'updateAlertSettings', { as: a.session, body: { monthly_budget: price * 3, monthly_budget_mode: 'soft' } })).status, 200);
  const replies = await submitAll(gw, a.liveKey, 10);
  t.deepEqual([...new Set(replies.map((r) => r.statusCode))], [200]);
  const email = await emailOf(gw, a);
  await waitFor(async () => alertMails(email).length > 0, { what: 'the budget alert' });
  t.is((await alertRows(gw, a, 'monthly_budget')).length, 1);
  t.regex(alertMails(email)[0]!.raw, /^Subject: mediagate: monthly budget reached/m);
});

test('sqlite: a hard monthly budget admits exactly what fits under concurrent submits', async (t) => {
  const a = await newAccount(lite, price * 100, VERIFIED);
  t.is((await callOperation(lite, 'updateAlertSettings', { as: a.session, body: { monthly_budget: price * 4, monthly_budget_mode: 'hard' } })).status, 200);
  const replies = await submitAll(lite, a.liveKey, 12);
  t.is(replies.filter((r) => r.statusCode === 200).length, 4);
  t.is(replies.filter((r) => r.statusCode === 402).length, 8);
  const bal = (await callOperation<{ balance: number; held: number }>(lite, 'getBalance', { as: a.liveKey })).body;
  t.is(bal.balance + bal.held, price * 100);
  t.is(bal.held, price * 4);
});

test('a key\'s soft spend limit refuses nothing and alerts once per period, besides its hard limit', async (t) => {
  const a = await newAccount(gw, price * 100, VERIFIED);
  const key = (await callOperation<{ id: number; key: string }>(gw, 'createApiKey', { as: a.session, body: { name: 'soft' } })).body;
  const set = await callOperation<{ soft_spend_limit: number | null; spend_limit: number | null }>(gw, 'updateApiKey', { as: a.session, params: { key_id: key.id }, body: { soft_spend_limit: price * 2, spend_limit: price * 5, spend_limit_period: 'day' } });
  t.is(set.status, 200, set.raw.payload);
  t.deepEqual([set.body.soft_spend_limit, set.body.spend_limit], [price * 2, price * 5]);
  const replies = await submitAll(gw, key.key, 8);
  t.is(replies.filter((r) => r.statusCode === 200).length, 5);
  t.is(replies.filter((r) => r.statusCode === 402).length, 3);
  const email = await emailOf(gw, a);
  await waitFor(async () => alertMails(email).length > 0, { what: 'the key alert' });
  const rows = await alertRows(gw, a, 'key_soft_limit');
  t.is(rows.length, 1);
  t.is(Number(rows[0].api_key_id), key.id);
  t.is(rows[0].period, new Date().toISOString().slice(0, 10));
  t.regex(alertMails(email)[0]!.raw, /^Subject: mediagate: API key spend alert/m);
  const listed = (await callOperation<Array<{ id: number; soft_spend_limit: number | null }>>(gw, 'getUserKeys', { as: a.session })).body;
  t.is(listed.find((k) => k.id === key.id)!.soft_spend_limit, price * 2);
});

test('alerts are mailed to verified addresses only: an address no one has proved is not mailed the balance, nor is a team\'s unverified billing member', async (t) => {
  const lead = await newAccount(gw, 0, VERIFIED);
  const billing = await newAccount(gw, 0);
  const developer = await newAccount(gw, 0, VERIFIED);
  const teamId = (await callOperation<{ id: number }>(gw, 'createTeam', { as: lead.session, body: { name: 'alerted team' } })).body.id;
  await gw.app.db('team_members').insert([
    { team_id: teamId, user_id: billing.userId, role: 'billing', created_at: Date.now() },
    { team_id: teamId, user_id: developer.userId, role: 'developer', created_at: Date.now() },
  ]);
  const roles = ['owner', 'admin', 'billing'];
  t.deepEqual(await alertRecipients(gw.app.db, { userId: lead.userId, teamId }, roles), [await emailOf(gw, lead)], 'the verified owner; not the unverified billing member, nor the developer');
  t.deepEqual(await alertRecipients(gw.app.db, { userId: billing.userId, teamId: null }, roles), [], 'an unverified account\'s own alerts are listed, not mailed');
  await gw.app.db('users').where({ id: billing.userId }).update({ email_verified: true });
  t.deepEqual(await alertRecipients(gw.app.db, { userId: billing.userId, teamId: null }, roles), [await emailOf(gw, billing)]);
  t.deepEqual((await alertRecipients(gw.app.db, { userId: lead.userId, teamId }, roles)).sort(), [await emailOf(gw, lead), await emailOf(gw, billing)].sort());
});

test('a deleted team\'s alerts are mailed to no one: a crossing its last submit made as it was being deleted tells no former member, on MariaDB and SQLite', async (t) => {
  for (const g of [gw, lite]) {
    const lead = await newAccount(g, 0, VERIFIED);
    const teamId = (await callOperation<{ id: number }>(g, 'createTeam', { as: lead.session, body: { name: 'alerted, then gone' } })).body.id;
    t.is((await alertRecipients(g.app.db, { userId: lead.userId, teamId }, ['owner'])).length, 1);
    t.is((await callOperation(g, 'deleteTeam', { as: lead.session, params: { team_id: teamId } })).status, 200);
    t.deepEqual(await alertRecipients(g.app.db, { userId: lead.userId, teamId }, ['owner']), []);
  }
});
