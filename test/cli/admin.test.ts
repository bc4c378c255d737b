// `npm run admin` and `npm run ledger:check` as real processes against a MariaDB test database,
// configured like the gateway (DATABASE_URL, ENCRYPTION_KEY), and the migration's opening rows.
import test from 'ava';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { startGateway, newAccount } from '../helpers/gateway.ts';
import { freshDatabase } from '../helpers/services.ts';
import { callOperation } from '../helpers/operation.ts';
import { createDb } from '../../db/knex.ts';
import { migrationSource } from '../../db/migrations/index.ts';
import { checkLedger } from '../../db/wallet/ledger.ts';
import { runAdmin } from '../../cli/admin.ts';

const ROOT = path.resolve(import.meta.dirname, '..', '..');

function run(script: string, args: string[], env: Record<string, string>): Promise<{ code: number | null; out: string }> {
  const child = spawn(process.execPath, [script, ...args], { cwd: ROOT, env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d: Buffer) => { out += d.toString(); });
  child.stderr.on('data', (d: Buffer) => { out += d.toString(); });
  return new Promise((resolve) => child.on('exit', (code) => resolve({ code, out })));
}

test('npm run admin grants and revokes a role in the gateway\'s database; the session gets in at once; ledger:check passes', async (t) => {
  const gw = await startGateway({ queue: 'memory' });
  t.teardown(() => gw.stop());
  const acct = await newAccount(gw, 500);
  const email = String((await gw.app.db('users').where({ id: acct.userId }).first()).email);
  const env = { DATABASE_URL: gw.env.DATABASE_URL!, ENCRYPTION_KEY: gw.env.ENCRYPTION_KEY!, DATA_DIR: gw.env.DATA_DIR!, LOG_LEVEL: 'silent' };

  t.is((await callOperation(gw, 'adminAuditLog', { as: acct.session })).status, 403);
  const granted = await run('cli/admin.ts', ['grant', email.toUpperCase(), 'admin'], env);
  t.is(granted.code, 0, granted.out);
  t.regex(granted.out, /role user -> admin/);
  t.is((await callOperation(gw, 'adminAuditLog', { as: acct.session })).status, 200, 'the existing session has the role on its next request');
  const listed = await run('cli/admin.ts', ['list'], env);
  t.regex(listed.out, new RegExp(`admin\\t${email}`));

  const last = await run('cli/admin.ts', ['revoke', email], env);
  t.is(last.code, 1, 'the last administrator is not revoked');
  t.regex(last.out, /last administrator/);

  t.is((await run('cli/admin.ts', ['grant', 'nobody@example.com', 'support'], env)).code, 1);
  t.is((await run('cli/admin.ts', ['grant', email, 'root'], env)).code, 2);
  t.is((await run('cli/admin.ts', [], env)).code, 2);

  const other = await newAccount(gw);
  const otherEmail = String((await gw.app.db('users').where({ id: other.userId }).first()).email);
  t.is((await run('cli/admin.ts', ['grant', otherEmail, 'admin'], env)).code, 0);
  const revoked = await run('cli/admin.ts', ['revoke', email], env);
  t.is(revoked.code, 0, revoked.out);
  t.is((await callOperation(gw, 'adminAuditLog', { as: acct.session })).status, 403);
  const audit = await gw.app.db('admin_audit').where({ credential: 'cli' }).orderBy('id');
  t.deepEqual(audit.map((a: { action: string; target_user_id: number }) => [a.action, Number(a.target_user_id)]), [
    ['cli_grant_role', acct.userId], ['cli_grant_role', other.userId], ['cli_revoke_role', acct.userId],
  ]);

  const check = await run('cli/ledger-check.ts', [], env);
  t.is(check.code, 0, check.out);
  t.regex(check.out, /wallets checked, 0 mismatched/);
  // a wallet changed behind the ledger's back is named, and the exit code says so
  await gw.app.db('users').where({ id: other.userId }).update({ balance: 7 });
  const bad = await run('cli/ledger-check.ts', [], env);
  t.is(bad.code, 1);
  t.regex(bad.out, new RegExp(`user ${other.userId}: balance 7, held 0; the ledger says balance 0, held 0`));
  await gw.app.db('users').where({ id: other.userId }).update({ balance: 0 });
});

test('migration 1601 writes an opening row for every wallet its earlier rows do not explain, so existing data adds up', async (t) => {
  const database = await freshDatabase();
  t.teardown(() => database.drop());
  const db = createDb({ databaseUrl: database.url, sqliteFile: '' });
  t.teardown(() => db.destroy());
  const all = await migrationSource.getMigrations([]);
  const names = all.map((m) => migrationSource.getMigrationName(m));
  const before = names.indexOf('20261123_1601_ledger_and_audit');
  for (const m of all.slice(0, before)) await (await migrationSource.getMigration(m)).up(db);
  const now = Date.now();
  const [plain] = await db('users').insert({ email: 'plain@example.com', balance: 900, held: 0, created_at: now });
  const [signup] = await db('users').insert({ email: 'signup@example.com', balance: 1000, held: 0, created_at: now });
  const [busy] = await db('users').insert({ email: 'busy@example.com', balance: 70, held: 30, created_at: now });
  const [none] = await db('users').insert({ email: 'none@example.com', created_at: now });
  await db('credit_transactions').insert({ user_id: signup, amount: 1000, kind: 'signup', description: 'sign-up credit', balance_after: 1000, created_at: now });
  await db('credit_transactions').insert({ user_id: busy, amount: -20, kind: 'prediction', prediction_id: 'p1', description: 'm', balance_after: 70, created_at: now });
  const [team] = await db('teams').insert({ name: 'T', balance: 50, held: 5, created_at: now });
  await db('team_members').insert({ team_id: team, user_id: busy, role: 'owner', created_at: now });
  await (await migrationSource.getMigration(all[before]!)).up(db);
  const openings = await db('credit_transactions').where({ kind: 'opening' }).orderBy('id');
  const byWallet = Object.fromEntries(openings.map((r: Record<string, unknown>) => [r.team_id === null ? `u${Number(r.user_id)}` : `t${Number(r.team_id)}`, [Number(r.amount), Number(r.held_change)]]));
  t.deepEqual(byWallet, { [`u${plain}`]: [900, 0], [`u${busy}`]: [120, 30], [`t${team}`]: [55, 5] });
  t.false(`u${none}` in byWallet);
  t.false(`u${signup}` in byWallet, 'its sign-up row already explains it');
  t.deepEqual((await checkLedger(db)).mismatches, []);
});

test("npm run admin never gives a role to an erased account's anonymised row, so it cannot stand in for the last administrator", async (t) => {
  const gw = await startGateway({ queue: 'memory' });
  t.teardown(() => gw.stop());
  const env = { DATABASE_URL: gw.env.DATABASE_URL!, ENCRYPTION_KEY: gw.env.ENCRYPTION_KEY!, DATA_DIR: gw.env.DATA_DIR!, LOG_LEVEL: 'silent' };
  const admin = await newAccount(gw);
  const adminEmail = String((await gw.app.db('users').where({ id: admin.userId }).first()).email);
  t.is((await run('cli/admin.ts', ['grant', adminEmail, 'admin'], env)).code, 0);
  const gone = await newAccount(gw);
  const goneEmail = String((await gw.app.db('users').where({ id: gone.userId }).first()).email);
  t.is((await callOperation(gw, 'adminDeleteUser', { as: admin.session, body: { email: goneEmail } })).status, 200);

  const granted = await run('cli/admin.ts', ['grant', `deleted-${gone.userId}@deleted.invalid`, 'admin'], env);
  t.is(granted.code, 1, granted.out);
  t.regex(granted.out, /no account with the email/);
  t.is((await gw.app.db('users').where({ id: gone.userId }).first()).role, 'user');
  const last = await run('cli/admin.ts', ['revoke', adminEmail], env);
  t.is(last.code, 1, 'the only live administrator is still the last one');
});

test('a top-up from the command line commits with its audit row or not at all: a failed run moves nothing, so running it again credits once', async (t) => {
  const gw = await startGateway({ queue: 'memory' });
  t.teardown(() => gw.stop());
  const env = { DATABASE_URL: gw.env.DATABASE_URL!, ENCRYPTION_KEY: gw.env.ENCRYPTION_KEY!, DATA_DIR: gw.env.DATA_DIR!, LOG_LEVEL: 'silent' };
  const acct = await newAccount(gw);
  const email = String((await gw.app.db('users').where({ id: acct.userId }).first()).email);
  // the audit row cannot be written
  await gw.app.db.schema.renameTable('admin_audit', 'admin_audit_away');
  const failed = await runAdmin(['topup', email, '750', '--reason', 'goodwill'], env).catch((err: Error) => ({ code: 1, out: err.message }));
  await gw.app.db.schema.renameTable('admin_audit_away', 'admin_audit');
  t.not(failed.code, 0, failed.out);
  t.is(Number((await gw.app.db('users').where({ id: acct.userId }).first()).balance), 0, 'nothing moved without its audit row');
  t.is((await gw.app.db('credit_transactions').where({ user_id: acct.userId, kind: 'topup' })).length, 0);

  const again = await runAdmin(['topup', email, '750', '--reason', 'goodwill'], env);
  t.is(again.code, 0, again.out);
  t.is(Number((await gw.app.db('users').where({ id: acct.userId }).first()).balance), 750);
  t.like(await gw.app.db('admin_audit').where({ action: 'cli_topup', target_user_id: acct.userId }).first(), { credential: 'cli', reason: 'goodwill' });
  t.deepEqual((await checkLedger(gw.app.db)).mismatches, []);
});

test('the command line\'s audit rows name the account by id, never by its address (an erased account leaves only anonymous rows)', async (t) => {
  const gw = await startGateway({ queue: 'memory' });
  t.teardown(() => gw.stop());
  const env = { DATABASE_URL: gw.env.DATABASE_URL!, ENCRYPTION_KEY: gw.env.ENCRYPTION_KEY!, DATA_DIR: gw.env.DATA_DIR!, LOG_LEVEL: 'silent' };
  const acct = await newAccount(gw);
  const email = String((await gw.app.db('users').where({ id: acct.userId }).first()).email);
  t.is((await runAdmin(['topup', email, '5', '--reason', 'goodwill'], env)).code, 0);
  t.is((await runAdmin(['grant', email, 'support'], env)).code, 0);
  t.is((await runAdmin(['revoke', email], env)).code, 0);
  const rows = await gw.app.db('admin_audit').where({ credential: 'cli', target_user_id: acct.userId }).orderBy('id').select('action', 'params');
  t.deepEqual(rows.map((r: { action: string; params: string }) => [r.action, JSON.parse(r.params)]), [
    ['cli_topup', { email: `user:${acct.userId}`, amount: 5 }],
    ['cli_grant_role', { email: `user:${acct.userId}`, role: 'support', previous_role: 'user' }],
    ['cli_revoke_role', { email: `user:${acct.userId}`, role: 'user', previous_role: 'support' }],
  ]);
});
