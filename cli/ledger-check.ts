// `npm run ledger:check`: verifies every wallet (users and teams) against its ledger
// (db/wallet/ledger.ts checkLedger: balance = sum(amount) - sum(held_change), held = sum(held_change)).
// Exit 0 when all agree, 1 naming each wallet that does not. Run it with the gateway's own
// environment (DATABASE_URL, DATA_DIR). README "The ledger".
import { loadConfig, ConfigError } from '../config.ts';
import { createDb } from '../db/knex.ts';
import { checkLedger } from '../db/wallet/ledger.ts';

if (import.meta.main) {
  try {
    const config = loadConfig(process.env);
    const db = createDb({ databaseUrl: config.databaseUrl, sqliteFile: config.sqliteFile, poolMax: 1 });
    try {
      const { checked, mismatches } = await checkLedger(db);
      for (const m of mismatches) {
        process.stderr.write(`${m.wallet} ${m.id}: balance ${m.balance}, held ${m.held}; the ledger says balance ${m.ledgerBalance}, held ${m.ledgerHeld}\n`);
      }
      process.stdout.write(`${checked} wallets checked, ${mismatches.length} mismatched\n`);
      process.exitCode = mismatches.length ? 1 : 0;
    } finally {
      await db.destroy();
    }
  } catch (err) {
    process.stderr.write(`mediagate ledger:check: ${err instanceof ConfigError ? err.message : (err as Error).message}\n`);
    process.exitCode = 2;
  }
}
