// db/batch.ts: natural batching, one batch in flight per batcher (per key for keyedBatcher) or a few (inFlight, keysOf).
import test from 'ava';
import { keyedBatcher, naturalBatcher } from '../../db/batch.ts';
import type { ItemOutcome } from '../../db/batch.ts';

/** A run that records its batches and waits until the test lets those in flight finish. */
function gatedRun() {
  const batches: string[][] = [];
  const open: Array<() => void> = [];
  const run = async (items: string[]): Promise<Array<ItemOutcome<string>>> => {
    batches.push(items);
    await new Promise<void>((resolve) => { open.push(resolve); });
    return items.map((i) => (i.startsWith('bad') ? { ok: false, error: new Error(i) } : { ok: true, value: i.toUpperCase() }));
  };
  const release = async () => {
    await new Promise((r) => setImmediate(r));
    for (const o of open.splice(0)) o();
    await new Promise((r) => setImmediate(r));
  };
  return { batches, run, release };
}

test('items of one job go together; arrivals while a batch is in flight form the next; each gets its own outcome', async (t) => {
  const g = gatedRun();
  const submit = naturalBatcher(g.run, { max: 10 });
  const first = [submit('a'), submit('b')];
  await new Promise((r) => setImmediate(r));
  const later = [submit('c'), submit('bad d')];
  t.deepEqual(g.batches, [['a', 'b']], 'one batch in flight at a time');
  await g.release();
  t.deepEqual(await Promise.all(first), ['A', 'B']);
  t.deepEqual(g.batches, [['a', 'b'], ['c', 'bad d']]);
  await g.release();
  t.is(await later[0], 'C');
  await t.throwsAsync(later[1]!, { message: 'bad d' });
});

test('keyed: keys run side by side, a key keeps one batch in flight, waiting counts what every key has queued', async (t) => {
  const g = gatedRun();
  const batcher = keyedBatcher<string, string>((s) => s.slice(-1), g.run, { max: 2 });
  const answers = ['1x', '2x', '3x', '1y'].map((s) => batcher.submit(s));
  await new Promise((r) => setImmediate(r));
  // key x: the first two (max 2) are in flight, the third waits; key y runs at the same time
  t.deepEqual(g.batches.map((b) => b.join()).sort(), ['1x,2x', '1y']);
  t.is(batcher.waiting, 1);
  await g.release();
  t.deepEqual(g.batches.map((b) => b.join()).sort(), ['1x,2x', '1y', '3x'], 'x\'s waiting item went next');
  await g.release();
  t.deepEqual((await Promise.all(answers)).sort(), ['1X', '1Y', '2X', '3X']);
  t.is(batcher.waiting, 0);
  t.deepEqual(g.batches.map((b) => b.join()).sort(), ['1x,2x', '1y', '3x']);
});

/** A run whose batches each wait until the test ends that one (by its index). */
function heldRun() {
  const batches: string[][] = [];
  const ends: Array<() => void> = [];
  const run = async (items: string[]): Promise<Array<ItemOutcome<string>>> => {
    batches.push(items);
    await new Promise<void>((resolve) => { ends.push(resolve); });
    return items.map((i) => ({ ok: true, value: i.toUpperCase() }));
  };
  const tick = () => new Promise((r) => setImmediate(r));
  const end = async (i: number) => {
    await tick();
    ends[i]!();
    await tick();
  };
  return { batches, run, end, tick };
}

test('inFlight 2: a second batch starts while the first is in flight, a third waits for a free slot', async (t) => {
  const g = heldRun();
  const submit = naturalBatcher(g.run, { max: 10, inFlight: 2 });
  const answers = [submit('a'), submit('b')];
  await g.tick();
  answers.push(submit('c'));
  await g.tick();
  answers.push(submit('d'), submit('e'));
  await g.tick();
  t.deepEqual(g.batches, [['a', 'b'], ['c']], 'two in flight, d and e wait');
  // the second batch ends first: its slot takes what waits, the first is still in flight
  await g.end(1);
  t.is(await answers[2], 'C');
  t.deepEqual(g.batches, [['a', 'b'], ['c'], ['d', 'e']]);
  await g.end(0);
  await g.end(2);
  t.deepEqual(await Promise.all(answers), ['A', 'B', 'C', 'D', 'E']);
});

test('inFlight with keysOf: an item touching a key in flight waits, and so does every later item sharing a key with it; disjoint items go side by side', async (t) => {
  const g = heldRun();
  // an item is "name:key1+key2"
  const keysOf = (s: string) => s.split(':')[1]!.split('+');
  const submit = naturalBatcher(g.run, { max: 10, inFlight: 3, keysOf });
  const answers = [submit('p:k1+a')];
  await g.tick();
  // q touches a (in flight): waits; r touches k2, shared with waiting q: waits behind it; s is disjoint: runs
  answers.push(submit('q:k2+a'), submit('r:k2+b'), submit('s:k3+b'));
  await g.tick();
  t.deepEqual(g.batches, [['p:k1+a']], 's waits too: it shares b with r, which waits');
  answers.push(submit('u:k4+c'));
  await g.tick();
  t.deepEqual(g.batches, [['p:k1+a'], ['u:k4+c']], 'u shares nothing with anything in flight or waiting: it runs');
  await g.end(0);
  // a is free: q, r, s go together (in their order), a slot was free
  t.deepEqual(g.batches, [['p:k1+a'], ['u:k4+c'], ['q:k2+a', 'r:k2+b', 's:k3+b']]);
  // a batch's keys are held until it ends: v (k2) waits while q, r, s are in flight
  answers.push(submit('v:k2+d'));
  await g.tick();
  t.is(g.batches.length, 3);
  await g.end(2);
  t.deepEqual(g.batches[3], ['v:k2+d']);
  await g.end(1);
  await g.end(3);
  t.deepEqual(await Promise.all(answers), ['P:K1+A', 'Q:K2+A', 'R:K2+B', 'S:K3+B', 'U:K4+C', 'V:K2+D']);
});
