// db/errors.ts: which driver errors mean "unavailable, nothing recorded", and an error as logged.
import test from 'ava';
import pino from 'pino';
import { isDbUnavailable, withoutBoundValues } from '../../db/errors.ts';
import { BatchWaitTimeoutError } from '../../lib/batch.ts';

test('waiting too long for the database is its being unavailable: for a pool connection, or behind batches in flight', (t) => {
  const acquire = Object.assign(new Error('Knex: Timeout acquiring a connection'), { name: 'KnexTimeoutError' });
  t.true(isDbUnavailable(acquire));
  t.true(isDbUnavailable(new BatchWaitTimeoutError(10_000)));
  t.true(isDbUnavailable(Object.assign(new Error('connect'), { code: 'ECONNREFUSED' })));
  t.false(isDbUnavailable(Object.assign(new Error('dup'), { code: 'ER_DUP_ENTRY' })));
  t.false(isDbUnavailable(new Error('anything else')));
});

test('an error as logged keeps its message and code but not the statement mysql2 sent nor the values knex bound, in every error nested in it', (t) => {
  const driver = Object.assign(new Error("insert into `t` (`a`) values (?) - Duplicate entry"), { code: 'ER_DUP_ENTRY', errno: 1062, sql: "insert into `t` (`a`) values ('https://hooks.example.com/?token=x')" });
  const wrapper = Object.assign(new Error('wrapped'), { inner: driver });
  const aggregate = new AggregateError([driver], 'several');
  // knex's timeout acquiring a connection for a raw statement carries its values as `bindings`
  const acquire = Object.assign(new Error('Knex: Timeout acquiring a connection'), { name: 'KnexTimeoutError', sql: 'select ?', bindings: ['https://hooks.example.com/?token=y'] });
  const logged = JSON.stringify([wrapper, aggregate, driver, acquire].map((e) => withoutBoundValues(pino.stdSerializers.err(e))));
  t.false(logged.includes('token=x'), logged);
  t.false(logged.includes('token=y'), logged);
  t.true(logged.includes('values (?) - Duplicate entry'));
  t.true(logged.includes('ER_DUP_ENTRY'));
  t.is(withoutBoundValues('not an error'), 'not an error');
});
