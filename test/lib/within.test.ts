// lib/within.ts: waiting for something at most so long, the timer cleared either way.
import test from 'ava';
import { TIMED_OUT, within } from '../../lib/within.ts';

const timers = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
const after = <T>(ms: number, value: T) => new Promise<T>((resolve) => setTimeout(resolve, ms, value));

test.serial('work that settles in time gives its value, or its rejection, and leaves no timer behind', async (t) => {
  const before = timers();
  t.is(await within(Promise.resolve(7), 60_000), 7);
  t.is(await within(after(5, 'soon'), 60_000), 'soon');
  await t.throwsAsync(within(Promise.reject(new Error('refused')), 60_000), { message: 'refused' });
  t.is(timers(), before);
});

test.serial('work still running when the time is up gives TIMED_OUT; a rejection after that is not left unhandled', async (t) => {
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => unhandled.push(reason);
  process.on('unhandledRejection', onUnhandled);
  try {
    t.is(await within(new Promise(() => {}), 5), TIMED_OUT);
    t.is(await within(after(50, 'late'), 0), TIMED_OUT, 'no time at all still answers');
    const failsLate = new Promise((_, reject) => setTimeout(reject, 20, new Error('late refusal')));
    t.is(await within(failsLate, 5), TIMED_OUT);
    await after(40, null);
    t.deepEqual(unhandled, []);
  } finally {
    process.off('unhandledRejection', onUnhandled);
  }
});
