// How the gateway compares email addresses, with no other import: the migrations use it too
// (db/pseudonymise.ts), and they are loaded by db/knex.ts, which most of db/ imports.

/** Emails are compared trimmed and lower-cased on both engines (MariaDB's collation is case-insensitive, SQLite's is not). */
export function normaliseEmail(email: string): string {
  return email.trim().toLowerCase();
}
