// Tenant scoping, written into the query: every lookup of an owned record goes through
// ownerWhere(owner), so another owner's row is never fetched (and never compared after the fetch).
import type { Knex } from 'knex';
import type { Owner } from '../lib/caller.ts';

export type { Owner };

/**
 * The rows an owner may see, as a knex `where` group: `.where(ownerWhere(owner))`.
 * Personal: the user's rows. A team (teamId set; lib/caller.ts checked membership): the team's
 * rows, whoever created them. Every owned table has a nullable `team_id` (migration 0701):
 * the personal branch is `user_id = ? AND team_id IS NULL`, here and only here (and its fixed-SQL
 * twin, ownerSql, below).
 */
export function ownerWhere(owner: Owner, table?: string): (qb: Knex.QueryBuilder) => void {
  const col = (name: string) => (table ? `${table}.${name}` : name);
  return (qb) => {
    // Personal: the user's own rows, not the team rows the user created as a member.
    if (owner.teamId === null) qb.where(col('user_id'), owner.userId).whereNull(col('team_id'));
    else qb.where(col('team_id'), owner.teamId);
  };
}

/**
 * The same condition as fixed SQL, for statements written once instead of built per call
 * (db.raw): `WHERE ... AND ${ownerSql(owner).sql}` with its bindings appended. The two strings are
 * constants, so a caller may cache statements by them.
 */
export function ownerSql(owner: Owner): { sql: string; bindings: [number] } {
  return owner.teamId === null
    ? { sql: OWNER_PERSONAL_SQL, bindings: [owner.userId] }
    : { sql: OWNER_TEAM_SQL, bindings: [owner.teamId] };
}
const OWNER_PERSONAL_SQL = 'user_id = ? AND team_id IS NULL';
const OWNER_TEAM_SQL = 'team_id = ?';
