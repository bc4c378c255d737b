// db/prepared.ts executeRaw on the real MariaDB: the hot fixed statements (a batch of submits, a
// group of completions, a batch of claims, a batch of sandbox rows, result reads, rate-limit
// windows) go as server-side prepared statements. What they store and answer must be exactly what
// the same statement as text (db.raw) stores and answers; a text runs as text the first time and
// is prepared from its second run on, once per connection;
// a refusal of the server to prepare runs the text instead; in a transaction it runs on the
// transaction's connection; and knex's events still see every statement.
import test from 'ava';
import type { Knex } from 'knex';
import { createDb } from '../../db/knex.ts';
import type { Db } from '../../db/knex.ts';
import { executeRaw, preparedRows } from '../../db/prepared.ts';
import { freshDatabase } from '../helpers/services.ts';

let db: Db;
let drop: () => Promise<void>;
test.before(async () => {
  const fresh = await freshDatabase();
  drop = fresh.drop;
  // one connection: the session counters below are that connection's
  db = createDb({ databaseUrl: fresh.url, sqliteFile: '', poolMax: 1 });
  await db.raw(`create table t (id varchar(32) primary key, n bigint, s mediumtext, b tinyint(1), bin varbinary(64))`);
});
test.after.always(async () => {
  await db?.destroy();
  await drop?.();
});
test.serial.afterEach(async () => { await db.raw('delete from t'); });

const VALUES: Knex.RawBinding[][] = [
  ['a', 9_007_199_254_740_991, 'with ? marks, \'quotes\', "double", back\\slash and ünïcødé ✓', true, Buffer.from([0, 1, 254, 255])],
  ['b', -9_007_199_254_740_991, '', false, null],
  ['c', 0, null, null, Buffer.alloc(0)],
];

async function sessionCount(name: string): Promise<number> {
  const [rows] = await db.raw(`show session status like '${name}'`) as [Array<{ Value: string }>];
  return Number(rows[0]!.Value);
}

test.serial('rows written through a prepared multi-row INSERT read back exactly as the same INSERT as text writes them', async (t) => {
  const insert = 'insert into t (id, n, s, b, bin) values ?';
  // its first run goes as text (a text is prepared from its second run on)
  await executeRaw(db, insert, [VALUES.map(([id, ...rest]) => [`w${String(id)}`, ...rest]) as unknown as Knex.RawBinding]);
  await db.raw('delete from t');
  const prepares = await sessionCount('Com_stmt_prepare');
  await executeRaw(db, insert, [VALUES as unknown as Knex.RawBinding]);
  t.is(await sessionCount('Com_stmt_prepare') - prepares, 1);
  const prepared = await db('t').orderBy('id').select('id', 'n', 's', 'b', 'bin');
  await db.raw('delete from t');
  await db.raw(insert, [VALUES as unknown as Knex.RawBinding]);
  const asText = await db('t').orderBy('id').select('id', 'n', 's', 'b', 'bin');
  t.deepEqual(prepared, asText);
  t.is(String((prepared[0] as { n: unknown }).n), '9007199254740991');
  t.is(String((prepared[1] as { n: unknown }).n), '-9007199254740991');
});

test.serial('integers up to 2^53 - 1 are stored and computed with exactly (MariaDB takes them as DOUBLE); a larger one is refused', async (t) => {
  await executeRaw(db, 'insert into t (id, n) values (?, ?)', ['x', 1]);
  // as the batches do: a column set from itself and bound numbers, in a compound statement, the value kept in a user variable too
  const compound = `begin not atomic
update t set n = (@mg_n := n + ? + ?) where id = ?;
select @mg_n = 9007199254740991 as exact, row_count() as changed;
end`;
  await executeRaw(db, compound, [0, 0, 'none']); // its first run, as text
  const prepares = await sessionCount('Com_stmt_prepare');
  const [sets] = await executeRaw(db, compound, [4_503_599_627_370_496, 4_503_599_627_370_494, 'x']) as [[Array<{ exact: number; changed: number }>]];
  t.is(await sessionCount('Com_stmt_prepare') - prepares, 1, 'prepared');
  t.deepEqual(sets[0]![0], { exact: 1, changed: 1 });
  t.is(String((await db('t').where({ id: 'x' }).first('n') as { n: unknown }).n), '9007199254740991');
  const exact = 'select id from t where n = ? and n - ? = ?';
  await preparedRows(db, exact, [0, 0, 0]);
  t.deepEqual(await preparedRows(db, exact, [9_007_199_254_740_991, 1, 9_007_199_254_740_990]), [{ id: 'x' }]);
  await t.throwsAsync(executeRaw(db, 'update t set n = ? where id = ?', [2 ** 53, 'x']), { instanceOf: TypeError });
  t.is(String((await db('t').where({ id: 'x' }).first('n') as { n: unknown }).n), '9007199254740991');
});

test.serial('a text runs as text the first time, then is prepared once per connection and executed from then on', async (t) => {
  const sql = 'select id, n from t where id in (?) and n >= ?';
  await executeRaw(db, 'insert into t (id, n) values ?', [[['p', 1], ['q', 2]] as unknown as Knex.RawBinding]);
  const prepares = await sessionCount('Com_stmt_prepare');
  const executes = await sessionCount('Com_stmt_execute');
  const queries = await sessionCount('Com_select');
  for (let i = 0; i < 5; i++) t.deepEqual(await preparedRows(db, sql, [['p', 'q'], 2]), [{ id: 'q', n: 2 }]);
  t.is(await sessionCount('Com_stmt_prepare') - prepares, 1, 'prepared once, at its second run');
  t.is(await sessionCount('Com_stmt_execute') - executes, 4);
  // the first as text (the counters' own SHOW statements are not selects)
  t.is(await sessionCount('Com_select') - queries, 5);
});

test.serial('a value no statement can bind is refused before anything is sent', async (t) => {
  const executes = await sessionCount('Com_stmt_execute');
  await t.throwsAsync(executeRaw(db, 'insert into t (id, n) values (?, ?)', ['nan', Number.NaN]), { instanceOf: TypeError });
  await t.throwsAsync(executeRaw(db, 'insert into t (id, n) values (?, ?)', ['u', undefined as unknown as Knex.RawBinding]), { instanceOf: TypeError });
  t.is(await sessionCount('Com_stmt_execute'), executes);
  t.is((await db('t').select('id')).length, 0);
});

test.serial('in a transaction it runs on the transaction\'s connection: a rollback takes its write back', async (t) => {
  await t.throwsAsync(db.transaction(async (trx) => {
    await executeRaw(trx, 'insert into t (id, n) values (?, ?)', ['in-trx', 1]);
    t.deepEqual(await preparedRows(trx, 'select id from t where id = ?', ['in-trx']), [{ id: 'in-trx' }]);
    throw new Error('roll back');
  }), { message: 'roll back' });
  t.deepEqual(await db('t').select('id'), []);
});

test.serial('knex\'s query and query-response events see the statement as it was sent, and its answer', async (t) => {
  const seen: Array<{ sql: string; bindings: unknown[] }> = [];
  const answers: unknown[] = [];
  const onQuery = (q: { sql: string; bindings: unknown[] }) => seen.push(q);
  const onResponse = (response: unknown) => answers.push(response);
  await executeRaw(db, 'insert into t (id, n) values ?', [[['e0', 0], ['e00', 0]] as unknown as Knex.RawBinding]); // its first run, as text
  db.on('query', onQuery);
  db.on('query-response', onResponse);
  try {
    await executeRaw(db, 'insert into t (id, n) values ?', [[['e1', 1], ['e2', 2]] as unknown as Knex.RawBinding]);
  } finally {
    db.off('query', onQuery);
    db.off('query-response', onResponse);
  }
  t.deepEqual(seen.map((q) => [q.sql, q.bindings]), [['insert into t (id, n) values (?, ?), (?, ?)', ['e1', 1, 'e2', 2]]]);
  t.is((answers[0] as [{ affectedRows: number }])[0].affectedRows, 2);
});

test.serial('when the server refuses to prepare (max_prepared_stmt_count reached), the statement runs as text', async (t) => {
  // the server's refusal, as MariaDB answers it at PREPARE (errno 1461), on this pool's one connection;
  // setting the global limit to 0 instead would change the statements of every other test file
  // both statements run once first: only a text seen before is prepared
  await executeRaw(db, 'insert into t (id, n) values (?, ?)', ['warm', 1]);
  await preparedRows(db, 'select id, n from t where id = ?', ['warm']);
  await db.raw('delete from t');
  const client = db.client as { acquireConnection(): Promise<{ execute: unknown }>; releaseConnection(c: unknown): Promise<void> };
  const conn = await client.acquireConnection();
  await client.releaseConnection(conn);
  const execute = conn.execute;
  let refused = 0;
  conn.execute = (_sql: string, _values: unknown[], cb: (err: Error) => void) => {
    refused++;
    cb(Object.assign(new Error("Can't create more than max_prepared_stmt_count statements (current value: 0)"), { errno: 1461, code: 'ER_MAX_PREPARED_STMT_COUNT_REACHED' }));
  };
  try {
    await executeRaw(db, 'insert into t (id, n) values (?, ?)', ['text', 5]);
    t.deepEqual(await preparedRows(db, 'select id, n from t where id = ?', ['text']), [{ id: 'text', n: 5 }]);
  } finally {
    conn.execute = execute;
  }
  t.is(refused, 2);
  // any other error is the statement's own: raised, not run again as text
  await executeRaw(db, 'insert into t (id, n) values (?, ?)', ['dup', 1]);
  await t.throwsAsync(executeRaw(db, 'insert into t (id, n) values (?, ?)', ['dup', 2]), { code: 'ER_DUP_ENTRY' });
  t.is(Number((await db('t').where({ id: 'dup' }).first('n') as { n: unknown }).n), 1);
});

test.serial('with DB_PREPARED_PER_CONNECTION=0 every statement goes as text: nothing is prepared', async (t) => {
  const fresh = await freshDatabase();
  const plain = createDb({ databaseUrl: fresh.url, sqliteFile: '', poolMax: 1, preparedPerConnection: 0 });
  t.teardown(async () => { await plain.destroy(); await fresh.drop(); });
  await plain.raw('create table u (id varchar(8) primary key, n bigint)');
  const count = async (name: string) => Number(((await plain.raw(`show session status like '${name}'`)) as [Array<{ Value: string }>])[0][0]!.Value);
  const prepares = await count('Com_stmt_prepare');
  const sent: string[] = [];
  plain.on('query', (q: { sql: string }) => sent.push(q.sql));
  await executeRaw(plain, 'insert into u (id, n) values ?', [[['a', 1], ['b', 2]] as unknown as Knex.RawBinding]);
  t.deepEqual(await preparedRows(plain, 'select id, n from u where id in (?) order by id', [['a', 'b']]), [{ id: 'a', n: 1 }, { id: 'b', n: 2 }]);
  t.is(await count('Com_stmt_prepare'), prepares);
  t.deepEqual(sent.slice(0, 2), ['insert into u (id, n) values ?', 'select id, n from u where id in (?) order by id'], 'as db.raw sends them');
});
