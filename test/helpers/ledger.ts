// The ledger check after money tests: every wallet (users and teams) must equal what its ledger
// rows sum to (db/wallet/ledger.ts checkLedger). `ledgerCheckedAfterEach(test, () => db)` registers it
// after every test of a file; `assertLedger(t, db)` runs it once.
import type { ExecutionContext, TestFn } from 'ava';
import type { Knex } from 'knex';
import { checkLedger } from '../../db/wallet/ledger.ts';

export async function assertLedger(t: ExecutionContext, db: Knex): Promise<void> {
  const { mismatches } = await checkLedger(db);
  t.deepEqual(mismatches, [], 'every wallet equals the sums of its ledger rows');
}

/** Runs the check after each test of the file; `db` is read when the hook runs (a database made in before()). */
export function ledgerCheckedAfterEach(test: TestFn, db: () => Knex | undefined): void {
  test.afterEach.always('the ledger adds up', async (t) => {
    const d = db();
    if (d) await assertLedger(t, d);
  });
}
