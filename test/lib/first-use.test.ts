// lib/first-use.ts: a value made by the first call that needs it, a failure tried again.
import test from 'ava';
import { onFirstUse } from '../../lib/first-use.ts';

test('concurrent and later calls share one making; a failed one is made again by the next call', async (t) => {
  let makings = 0;
  const get = onFirstUse(async () => {
    makings++;
    if (makings === 1) throw new Error('the import failed');
    return { made: makings };
  });
  await t.throwsAsync(Promise.all([get(), get()]), { message: 'the import failed' });
  t.is(makings, 1, 'one making for two calls');
  const [a, b] = await Promise.all([get(), get()]);
  t.is(a, b);
  t.is(await get(), a);
  t.is(makings, 2);
});
