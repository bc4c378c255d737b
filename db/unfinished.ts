// "Unfinished" (queued, pending or processing) as a WHERE condition on `predictions`, for the
// counts the generation and embed limits make (README "Rate limits on generation"). On
// MariaDB/MySQL it reads the virtual column `unfinished` (migration 20261126_0101), whose indexes
// a status change between those three states does not write, and a team's or an embed code's
// count reads the virtual column that holds its id only while the row is unfinished (migration
// 20261129_0201: a personal row's entry stays NULL when it finishes); SQLite keeps its (…, status)
// indexes, so there it is the status list itself.
import type { Knex } from 'knex';
import { isMysql } from './knex.ts';

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
