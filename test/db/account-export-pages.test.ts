// The account export's prediction pages (db/account-export.ts exportPredictions) are bounded by
// size as well as by rows: an input may be as large as the request body allowed (MAX_BODY_BYTES,
// 1 MiB by default; a chat conversation reaches it), so 500 such rows would hold half a GiB in
// one page, and the export of an account anyone can fill for free (sandbox runs) would exhaust
// the API process. A page holds at most `maxBytes` of rows (at least one), and the pages still
// list every row once, in order.
import test from 'ava';
import { newAccount, startGateway } from '../helpers/gateway.ts';
import type { TestGateway } from '../helpers/gateway.ts';
import { newPredictionId } from '../../db/predictions/record.ts';
import { exportPredictions } from '../../db/account-export.ts';
import type { PredictionCursor } from '../../db/account-export.ts';

let gw: TestGateway;
test.before(async () => {
  gw = await startGateway({ db: process.env.TEST_MYSQL_URL ? 'mysql' : 'sqlite', queue: 'memory' });
});
test.after.always(async () => {
  await gw?.stop();
});

test('a page of large inputs holds at most the byte budget (at least one row); the pages still list every row once, in order', async (t) => {
  const acct = await newAccount(gw);
  const start = Date.parse('2026-02-01T00:00:00Z');
  const ids: string[] = [];
  const big = 'x'.repeat(300_000);
  for (let i = 0; i < 12; i++) {
    // pairs share a created_at: the keyset breaks ties by id
    const at = start + Math.floor(i / 2) * 1000;
    const id = newPredictionId(at);
    ids.push(id);
    await gw.app.db('predictions').insert({
      id, user_id: acct.userId, team_id: null, api_key_id: null, model: 'lexi-v1-balanced-chat', status: 'completed', is_test: true,
      // every third is small
      input: JSON.stringify({ prompt: i % 3 === 0 ? `small ${i}` : `${big} ${i}` }), outputs: '[]', nsfw: '[]', price: 0,
      created_at: at, started_at: at, completed_at: at + 10, updated_at: at + 10,
    });
  }
  const expected = [...ids].sort((a, b) => a.localeCompare(b));
  const seen: string[] = [];
  let after: PredictionCursor | null = null;
  for (let pages = 0; pages < 50; pages++) {
    const { rows, next } = await exportPredictions(gw.app.db, acct.userId, after, 500, false, 1_000_000);
    t.true(rows.length >= 1 || next === null, 'a page is never empty while rows remain');
    const bytes = rows.reduce((n, p) => n + JSON.stringify(p.input).length, 0);
    t.true(rows.length === 1 || bytes <= 1_000_000, `page of ${rows.length} rows holds ${bytes} bytes`);
    seen.push(...rows.map((p) => p.id));
    if (next === null) break;
    after = next;
  }
  // ids are time-ordered, so (created_at, id) order is id order here
  t.deepEqual(seen, expected);
});
