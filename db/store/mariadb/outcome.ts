// What a MariaDB program answers (db/store/mariadb/*.ts): one outcome, the last result set's one
// row, `mg_outcome`. A program either committed its whole transaction, or rolled it back before
// writing anything and says which condition stopped it; the engine then takes the portable path
// for that unit of work. An error inside a program (a deadlock, a lock wait timeout, a duplicate
// id) is not an outcome: its exit handler rolls back and raises it again, so the connection goes
// back to the pool outside any transaction and the caller's retry (db/retry.ts) or fallback sees it.
import type { Knex } from 'knex';
import type { Db } from '../../knex.ts';
import { executeRaw } from '../../prepared.ts';

export const PROGRAM_OUTCOMES = [
  /** everything written and committed */
  'committed',
  /** a submit batch: a wallet short, deleted or missing, or a request past a limit (submit-hold-first.ts) */
  'not every request accepted',
  /** a claim batch: a row already claimed, cancelled or changed since its submit (claim-batch.ts) */
  'not every row claimed',
  /** a completion group: a row no longer processing (complete-group.ts) */
  'not every row processing',
  /** a completion group: a wallet with expiring grants to spend, or none (complete-group.ts) */
  'a wallet not settled',
] as const;

export type ProgramOutcome = (typeof PROGRAM_OUTCOMES)[number];

/** `declare outcome ...` for a program's first line: every program keeps its answer in this variable. */
export const DECLARE_OUTCOME = "declare outcome varchar(32) default 'committed';";

/** The program's last statement: its answer. */
export const ANSWER = 'select outcome as mg_outcome;';

type Row = Record<string, unknown>;

/**
 * Runs a program as a prepared statement (db/prepared.ts) and answers its outcome and the result
 * sets before it (a RETURNING's rows). An answer that is no ProgramOutcome is an error.
 */
export async function runProgram(db: Db, sql: string, bindings: readonly Knex.RawBinding[]): Promise<{ outcome: ProgramOutcome; sets: Row[][] }> {
  const [answer] = await executeRaw(db, sql, bindings) as [unknown[]];
  const sets = answer.filter((s): s is Row[] => Array.isArray(s));
  const last = sets.pop();
  const outcome = last?.[0]?.mg_outcome;
  if (!(PROGRAM_OUTCOMES as readonly unknown[]).includes(outcome)) throw new Error(`a program answered ${String(outcome)}`);
  return { outcome: outcome as ProgramOutcome, sets };
}
