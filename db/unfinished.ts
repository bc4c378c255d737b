// "Unfinished" (queued, pending or processing) as a WHERE condition on `predictions`, for the
// counts the generation and embed limits make (README "Rate limits on generation"). On
// MariaDB/MySQL it reads the virtual column `unfinished` (migration 20261126_0101), whose indexes
// a status change between those three states does not write, and a team's or an embed code's
// count reads the virtual column that holds its id only while the row is unfinished (migration
// 20261129_0201: a personal row's entry stays NULL when it finishes); SQLite keeps its (…, status)
// indexes, so there it is the status list itself.
import type { Knex } from 'knex';
import { isMysql, num, rawRows } from './knex.ts';
import type { Owner } from '../lib/caller.ts';

const BY_COLUMN = 'unfinished = 1';
const BY_STATUS = "status in ('queued', 'pending', 'processing')";

/** The condition, unqualified (one table in the statement), for `whereRaw` or fixed SQL. */
export function unfinishedSql(db: Knex): string {
  return isMysql(db) ? BY_COLUMN : BY_STATUS;
}

/** The virtual columns of migration 20261129_0201: the scope's id while the row is unfinished, NULL after. */
const SCOPED = { team_id: 'team_unfinished', embed_code_id: 'embed_code_unfinished' } as const;

/** `column = ?` and unfinished, unqualified, for one binding (the team's or the code's id). */
export function unfinishedOfSql(db: Knex, column: keyof typeof SCOPED): string {
  return isMysql(db) ? `${SCOPED[column]} = ?` : `${column} = ? and ${BY_STATUS}`;
}

/** One count of unfinished predictions: of an API key, or of a wallet's account (a user's own predictions, or a team's). */
export type UnfinishedScope = { keyId: number } | { owner: Owner };

/**
 * The unfinished predictions of each scope, each counted up to its `bound` (a limit: only "at
 * least the limit" matters, so the count stops there and never walks a larger backlog), in one
 * round trip. Each count is its own index-backed subquery (api_key_id; user_id/team_id; on
 * MariaDB indexes on its virtual columns, db/unfinished.ts), not an OR that would defeat both
 * indexes. The caller holds the wallet row's lock (README "Rate limits on generation").
 */
export async function unfinishedCounts(trx: Knex, scopes: ReadonlyArray<{ scope: UnfinishedScope; bound: number }>): Promise<number[]> {
  if (scopes.length === 0) return [];
  const bindings: Knex.RawBinding[] = [];
  const columns = scopes.map(({ scope, bound }, i) => unfinishedCountColumn(trx, scope, bound, `c${i}`, bindings));
  const [row] = await rawRows<Record<string, number | string>>(trx, `select ${columns.join(', ')}`, bindings);
  return scopes.map((_, i) => num(row![`c${i}`]!));
}

/** One count of unfinishedCounts as a column of a SELECT named `alias`, its bindings appended to `bindings`. */
export function unfinishedCountColumn(db: Knex, scope: UnfinishedScope, bound: number, alias: string, bindings: Knex.RawBinding[]): string {
  let where: string;
  if ('keyId' in scope) {
    where = `api_key_id = ? and ${unfinishedSql(db)}`;
    bindings.push(scope.keyId);
  } else if (scope.owner.teamId === null) {
    where = `user_id = ? and team_id is null and ${unfinishedSql(db)}`;
    bindings.push(scope.owner.userId);
  } else {
    where = unfinishedOfSql(db, 'team_id');
    bindings.push(scope.owner.teamId);
  }
  bindings.push(bound);
  return `(select count(*) from (select 1 from predictions where ${where} limit ?) as u_${alias}) as ${alias}`;
}
