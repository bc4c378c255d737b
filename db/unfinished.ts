// "Unfinished" (queued, pending or processing) as a WHERE condition on `predictions`, for the
// counts the generation and embed limits make (README "Rate limits on generation"). On
// MariaDB/MySQL it reads the virtual column `unfinished` (migration 20261126_0101), whose indexes
// a status change between those three states does not write; SQLite keeps its (…, status)
// indexes, so there it is the status list itself.
import type { Knex } from 'knex';
import { isMysql } from './knex.ts';

const BY_COLUMN = 'unfinished = 1';
const BY_STATUS = "status in ('queued', 'pending', 'processing')";

/** The condition, unqualified (one table in the statement), for `whereRaw` or fixed SQL. */
export function unfinishedSql(db: Knex): string {
  return isMysql(db) ? BY_COLUMN : BY_STATUS;
}
