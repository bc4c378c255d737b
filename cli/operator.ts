// Operator commands: run on the gateway's machine with its environment (DATABASE_URL or the
// SQLite file, ...), so an operator needs no SQL. They use the gateway's own code, not HTTP.
import { CliError, EXIT } from './client.ts';
import type { Output } from './commands.ts';
import { runMigrations } from '../main.ts';
import { runAdmin } from './admin.ts';

export async function migrateCommand(env: NodeJS.ProcessEnv = process.env): Promise<Output> {
  try {
    // a wait for another run's lock is said on stderr, as the CLI's other notes are
    const { database, applied } = await runMigrations(env, { onLockHeld: (message) => process.stderr.write(`mediagate: ${message}\n`) });
    return {
      human: [applied.length ? `Applied ${applied.length} migration(s) to the ${database === 'mysql' ? 'MariaDB/MySQL' : 'SQLite'} database.` : 'The database is up to date.'],
      json: { database, applied },
    };
  } catch (err) {
    throw new CliError((err as Error).message, EXIT.error);
  }
}

/** `mediagate admin grant|revoke|list|topup ...`: the same code as `npm run admin` (cli/admin.ts). */
export async function adminCommand(args: readonly string[], env: NodeJS.ProcessEnv = process.env): Promise<Output> {
  const { code, out } = await runAdmin(args, env);
  if (code === 2) throw new CliError(out, EXIT.usage);
  if (code !== 0) throw new CliError(out, out.startsWith('no account') ? EXIT.notFound : EXIT.error);
  return { human: [out], json: { ok: true, message: out } };
}
