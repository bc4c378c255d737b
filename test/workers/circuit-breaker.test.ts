// The per-provider circuit breaker (workers/circuit-breaker.ts): opens after N retryable failures
// in a row within the window, refuses during the cool-down, lets one trial through afterwards.
import test from 'ava';
import { createCircuitBreaker } from '../../workers/circuit-breaker.ts';
import { reportFailure } from '../../workers/upstream-jobs.ts';
import { AdapterError } from '../../workers/adapters/types.ts';

function breaker(failures = 3, windowMs = 1000, cooldownMs = 5000) {
  const clock = { now: 1_000_000 };
  return { clock, b: createCircuitBreaker({ failures, windowMs, cooldownMs, now: () => clock.now }) };
}

test('closed until N failures in a row; then open, and other providers are unaffected', (t) => {
  const { b } = breaker();
  b.failure('replicate');
  b.failure('replicate');
  t.is(b.state('replicate'), 'closed');
  t.true(b.allow('replicate'));
  b.failure('replicate');
  t.is(b.state('replicate'), 'open');
  t.false(b.allow('replicate'));
  t.true(b.allow('openai'));
  t.is(b.state('openai'), 'closed');
});

test('a success in between starts the count again', (t) => {
  const { b } = breaker();
  b.failure('p');
  b.failure('p');
  b.success('p');
  b.failure('p');
  b.failure('p');
  t.is(b.state('p'), 'closed');
});

test('failures further apart than the window do not add up', (t) => {
  const { b, clock } = breaker(3, 1000);
  b.failure('p');
  b.failure('p');
  clock.now += 1500;
  b.failure('p');
  t.is(b.state('p'), 'closed');
  b.failure('p');
  b.failure('p');
  t.is(b.state('p'), 'open');
});

test('after the cool-down one trial goes through: success closes, failure opens for another cool-down', (t) => {
  const { b, clock } = breaker(1, 1000, 5000);
  b.failure('p');
  t.false(b.allow('p'));
  clock.now += 5000;
  t.is(b.state('p'), 'half-open');
  t.true(b.allow('p'), 'the trial');
  t.false(b.allow('p'), 'only one trial at a time');
  b.failure('p');
  t.is(b.state('p'), 'open');
  clock.now += 4999;
  t.false(b.allow('p'));
  clock.now += 1;
  t.true(b.allow('p'), 'the next trial');
  b.success('p');
  t.is(b.state('p'), 'closed');
  t.true(b.allow('p'));
  t.true(b.allow('p'));
});

test('a trial that never reports lets another through after the next cool-down', (t) => {
  const { b, clock } = breaker(1, 1000, 5000);
  b.failure('p');
  clock.now += 5000;
  t.true(b.allow('p'));
  clock.now += 5000;
  t.true(b.allow('p'));
});

test('what counts: retryable failures against the provider; answers about the request close the count; cancel and missing configuration say nothing', (t) => {
  const { b } = breaker(2);
  reportFailure(b, 'p', new AdapterError('503', true, { code: 'upstream_unavailable' }));
  reportFailure(b, 'p', new AdapterError('bad input', false, { code: 'upstream_rejected_input' }));
  reportFailure(b, 'p', new AdapterError('timeout', true, { code: 'upstream_timeout' }));
  t.is(b.state('p'), 'closed', 'the 4xx answer reset the count');
  reportFailure(b, 'p', new AdapterError('cancelled', false, { code: 'upstream_cancelled' }));
  reportFailure(b, 'p', new Error('not an adapter error'));
  reportFailure(b, 'p', new AdapterError('429', true, { code: 'upstream_unavailable' }));
  t.is(b.state('p'), 'open');
});
