// `npm run admin -- grant you@example.com admin` | `npm run admin -- revoke you@example.com` |
// `npm run admin -- list` | `npm run admin -- topup you@example.com 5000 --reason "..."`: gives an
// account a role (README "Roles"), takes it back (the account becomes `user`), lists the accounts
// holding one, or adds credit to an account's own wallet (a `topup` ledger row). Run it with the gateway's own environment
// (DATABASE_URL, DATA_DIR): it reads the same configuration and database. The account must exist
// (register first). The change is recorded in the audit log (credential `cli`) and applies to the
// account's next request: sessions read the role on every request.
import { loadConfig, ConfigError } from '../config.ts';
import { createDb } from '../db/knex.ts';
import { countUsersWithRole, listUsersWithRoles, setUserRole } from '../db/users.ts';
import { insertAdminAudit } from '../db/admin-audit.ts';
import { adminTopUp } from '../db/wallet/admin.ts';
import { isRole, ROLES } from '../lib/caller.ts';
import { createCredentialBroadcast } from '../workers/queue/amqp/credential-broadcast.ts';
import type { Role } from '../lib/caller.ts';

const USAGE = `usage: npm run admin -- grant <email> <${ROLES.filter((r) => r !== 'user').join('|')}>
       npm run admin -- revoke <email>
       npm run admin -- list
       npm run admin -- topup <email> <credits> --reason <why>`;

/** Runs one command; answers the exit code and what to print. Exported for tests. */
export async function runAdmin(args: readonly string[], env: NodeJS.ProcessEnv): Promise<{ code: number; out: string }> {
  const [command, email, roleArg] = args;
  if (command === 'topup') return topup(args, env);
  if (command === 'grant' ? !(email && roleArg) || args.length !== 3 : command === 'revoke' ? !email || args.length !== 2 : command !== 'list' || args.length !== 1) {
    return { code: 2, out: USAGE };
  }
  if (command === 'grant' && !isRole(roleArg)) return { code: 2, out: `unknown role "${roleArg}": one of ${ROLES.join(', ')}\n${USAGE}` };
  const config = loadConfig(env);
  const db = createDb({ databaseUrl: config.databaseUrl, sqliteFile: config.sqliteFile, poolMax: 1 });
  try {
    if (command === 'list') {
      const rows = await listUsersWithRoles(db);
      return { code: 0, out: rows.length ? rows.map((r) => `${r.role}\t${r.email}\t(id ${r.id})`).join('\n') : 'no account holds a role' };
    }
    const role: Role = command === 'grant' ? roleArg as Role : 'user';
    if (role !== 'admin') {
      const current = await db('users').where({ email: email!.trim().toLowerCase() }).first('role');
      if (current?.role === 'admin' && await countUsersWithRole(db, 'admin') === 1) {
        return { code: 1, out: `${email} is the last administrator; grant the role to another account first` };
      }
    }
    const user = await setUserRole(db, email!, role);
    if (!user) return { code: 1, out: `no account with the email ${email}: register it first` };
    // README "Credential cache": a staff account's keys are never cached, so a role taken back is exact at
    // once anyway; a role granted reaches keys cached as `user` through this invalidation (with RabbitMQ)
    // or within the cache's five-minute entry lifetime (the embedded default's single process)
    if (config.amqpUrl) {
      const broadcast = await createCredentialBroadcast({ url: config.amqpUrl, prefix: config.amqpPrefix, db, log: () => {}, leaseMs: config.credentialCacheLeaseMs, cache: null });
      try {
        await broadcast.invalidate({ userIds: [user.id] });
      } finally {
        await broadcast.close();
      }
    }
    // an audit row never holds an address, as the route bridge's (plugins/admin-audit.ts): the account is `user:<id>`
    await insertAdminAudit(db, {
      actorUserId: null, actorRole: '', credential: 'cli', action: command === 'grant' ? 'cli_grant_role' : 'cli_revoke_role',
      targetUserId: user.id, targetTeamId: null, params: { email: `user:${user.id}`, role, previous_role: user.previousRole }, reason: null, status: 200,
      clientAddress: null, requestId: null, now: Date.now(),
    });
    return { code: 0, out: `${user.email} (id ${user.id}): role ${user.previousRole} -> ${role}` };
  } finally {
    await db.destroy();
  }
}

/** `topup <email> <credits> --reason <why>`: one `topup` row on the account's own wallet, audited. */
async function topup(args: readonly string[], env: NodeJS.ProcessEnv): Promise<{ code: number; out: string }> {
  const [, email, amountArg, flag, reason] = args;
  const amount = Number(amountArg);
  if (args.length !== 5 || !email || flag !== '--reason' || !reason?.trim() || !Number.isInteger(amount) || amount < 1 || amount > 1_000_000_000) {
    return { code: 2, out: `a top-up needs an email, a whole number of credits (1-1000000000) and a reason\n${USAGE}` };
  }
  const config = loadConfig(env);
  const db = createDb({ databaseUrl: config.databaseUrl, sqliteFile: config.sqliteFile, poolMax: 1 });
  try {
    const user = await db('users').where({ email: email.trim().toLowerCase() }).whereNull('deleted_at').first<{ id: number; email: string } | undefined>('id', 'email');
    if (!user) return { code: 1, out: `no account with the email ${email}: register it first` };
    const now = Date.now();
    // the audit row commits with the move: a run that fails moved nothing, so running it again credits once
    const move = await adminTopUp(db, { userId: user.id, teamId: null }, amount, reason.trim().slice(0, 255), now, (trx) => insertAdminAudit(trx, {
      actorUserId: null, actorRole: '', credential: 'cli', action: 'cli_topup', targetUserId: user.id, targetTeamId: null,
      params: { email: `user:${user.id}`, amount }, reason: reason.trim(), status: 200, clientAddress: null, requestId: null, now,
    }));
    // erased between the lookup and the move: nothing was credited
    if (!move) return { code: 1, out: `no account with the email ${email}: register it first` };
    return { code: 0, out: `${user.email} (id ${user.id}): +${amount} credits, balance ${move.balance} (ledger row ${move.transactionId})` };
  } finally {
    await db.destroy();
  }
}

if (import.meta.main) {
  try {
    const { code, out } = await runAdmin(process.argv.slice(2), process.env);
    (code === 0 ? process.stdout : process.stderr).write(`${out}\n`);
    process.exitCode = code;
  } catch (err) {
    process.stderr.write(`mediagate admin: ${err instanceof ConfigError ? err.message : (err as Error).message}\n`);
    process.exitCode = 1;
  }
}
