// db/prepared.ts expand: db.raw's bindings as one prepared statement's placeholders and values.
import test from 'ava';
import { expand } from '../../db/prepared.ts';

test('scalar bindings leave the text as it is, the values in order', (t) => {
  const sql = 'update t set a = ?, b = ? where id = ?';
  const out = expand(sql, [1, 'x', null]);
  t.is(out.text, sql);
  t.deepEqual(out.values, [1, 'x', null]);
});

test('a list binding becomes one placeholder per value, a list of rows one group per row', (t) => {
  const out = expand('select 1 from t where id in (?) and k = ?; insert into u (a, b) values ?', [[3, 4, 5], 'k', [[1, 'a'], [2, null]]]);
  t.is(out.text, 'select 1 from t where id in (?, ?, ?) and k = ?; insert into u (a, b) values (?, ?), (?, ?)');
  t.deepEqual(out.values, [3, 4, 5, 'k', 1, 'a', 2, null]);
});

test('question marks inside quotes and backquotes are text, not placeholders', (t) => {
  const sql = "select '?', \"a?\", `c?`, 'it\\'s ?' from t where a = ?";
  const out = expand(sql, [7]);
  t.is(out.text, sql);
  t.deepEqual(out.values, [7]);
});

test('what db.raw would take otherwise is refused before anything is sent', (t) => {
  t.throws(() => expand('select ?? from t', ['a']), { message: /no identifiers/ });
  t.throws(() => expand('select ? from t', [1, 2]), { message: /1 placeholders, 2 bindings/ });
  t.throws(() => expand('select 1 from t where id in (?)', [[]]), { message: /empty list/ });
});
