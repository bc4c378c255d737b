// Operator commands: run on the gateway's machine with its environment (DATABASE_URL or the
// SQLite file, ...), so an operator needs no SQL. They use the gateway's own code, not HTTP.
import { CliError, EXIT } from './client.ts';
import type { Output } from './commands.ts';
import { runMigrations } from '../main.ts';

export async function migrateCommand(env: NodeJS.ProcessEnv = process.env): Promise<Output> {
  try {
    const { database, applied } = await runMigrations(env);
    return {
      human: [applied.length ? `Applied ${applied.length} migration(s) to the ${database === 'mysql' ? 'MariaDB/MySQL' : 'SQLite'} database.` : 'The database is up to date.'],
      json: { database, applied },
    };
  } catch (err) {
    throw new CliError((err as Error).message, EXIT.error);
  }
}
