// A transaction picked as a deadlock victim, once, through the real driver (MariaDB): a trigger
// makes the first insert of one account's row into a table fail with errno 1213, as InnoDB does
// to a victim, and a sequence (not cached: its table holds the next value) counts the inserts it
// saw; NEXTVAL is not rolled back with them. Creating and dropping the trigger is DDL: its metadata
// lock makes any transaction writing the table at that moment a deadlock victim too, so a test
// using it runs with test.serial (before the file's concurrent tests, never beside them).
import crypto from 'node:crypto';
import type { Db } from '../../db/knex.ts';

export interface LockVictim {
  /** how many of the account's inserts the trigger saw, the refused one included */
  seen(): Promise<number>;
  drop(): Promise<void>;
}

/** The first insert into `table` of a row with this `user_id` fails as a deadlock victim; every later one goes through. */
export async function deadlockOnce(db: Db, table: string, userId: number): Promise<LockVictim> {
  const name = `mg_victim_${crypto.randomBytes(4).toString('hex')}`;
  await db.raw(`create sequence ${name}_seen start with 1 increment by 1 nocache`);
  await db.raw(`create trigger ${name} before insert on ${table} for each row
    begin if new.user_id = ${Number(userId)} then if nextval(${name}_seen) = 1 then
      signal sqlstate '40001' set mysql_errno = 1213, message_text = 'Deadlock found when trying to get lock; try restarting transaction';
    end if; end if; end`);
  return {
    async seen() {
      const [rows] = await db.raw(`select next_not_cached_value - 1 as n from ${name}_seen`) as unknown as [Array<{ n: number | string }>];
      return Number(rows[0]!.n);
    },
    async drop() {
      await db.raw(`drop trigger if exists ${name}`);
      await db.raw(`drop sequence if exists ${name}_seen`);
    },
  };
}
