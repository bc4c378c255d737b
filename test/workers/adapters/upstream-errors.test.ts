// The one error mapping every upstream adapter shares, and the spec's input mapping.
import test from 'ava';
import { errorDetail, errorForStatus, redact, transportError } from '../../../workers/adapters/upstream-errors.ts';
import { mapInput } from '../../../workers/adapters/upstream-config.ts';

const caller = { provider: 'acme', secrets: ['sk-secret', 'https://api.acme.test/v1'], signal: new AbortController().signal };

test('network errors, timeouts, 408, 425, 429 and 5xx are retryable; 429 keeps its Retry-After', (t) => {
  for (const status of [408, 425, 429, 500, 502, 503, 504]) {
    const error = errorForStatus(caller, status, '{}', 'submission', status === 429 ? 5000 : undefined);
    t.true(error.retryable, String(status));
    t.is(error.code, 'upstream_unavailable');
  }
  t.is(errorForStatus(caller, 429, '', 'polling', 5000).retryAfterMs, 5000);
  t.true(transportError(caller, Object.assign(new Error('fetch failed'), { cause: Object.assign(new Error('x'), { code: 'ECONNRESET' }) }), 'polling').retryable);
  const timeout = transportError(caller, Object.assign(new Error('t'), { name: 'TimeoutError' }), 'polling');
  t.like(timeout, { retryable: true, code: 'upstream_timeout' });
});

test('credentials and input errors are not retryable; a moderation code is content_moderated', (t) => {
  t.like(errorForStatus(caller, 401, '{}', 'submission'), { retryable: false, code: 'upstream_credentials' });
  t.like(errorForStatus(caller, 422, '{"detail":"bad width"}', 'submission'), { retryable: false, code: 'upstream_rejected_input', message: 'upstream rejected the input: bad width' });
  t.like(errorForStatus(caller, 400, '{"error":{"message":"no","code":"content_policy_violation"}}', 'submission'), { retryable: false, code: 'content_moderated' });
});

test('a cancelled signal is a cancellation, not a network error', (t) => {
  const controller = new AbortController();
  controller.abort();
  t.like(transportError({ ...caller, signal: controller.signal }, new Error('aborted'), 'polling'), { retryable: false, code: 'upstream_cancelled', message: 'cancelled' });
});

test('error bodies are read in the shapes the providers document', (t) => {
  t.deepEqual(errorDetail('{"error":{"message":"m","type":"invalid_request_error","code":"c"}}'), { detail: 'm', code: 'c' });
  t.deepEqual(errorDetail('{"title":"Input validation failed","detail":"d","status":422}'), { detail: 'd' });
  t.deepEqual(errorDetail('{"error":"plain"}'), { detail: 'plain' });
  t.deepEqual(errorDetail('  busy  '), { detail: 'busy' });
});

test('secrets and any URL are redacted from what the user sees', (t) => {
  const message = redact('key sk-secret at https://api.acme.test/v1/x and https://signed.cdn.test/a?token=1', caller.secrets);
  t.false(message.includes('sk-secret'));
  t.false(message.includes('acme.test'));
  t.false(message.includes('token=1'));
});

test('input_map renames or drops fields and fixed_input wins', (t) => {
  const model = { operationId: 'x', category: 'text-to-image', inputMap: { num_images: 'n', seed: '' }, fixedInput: { quality: 'high', n: 1 } };
  t.deepEqual(mapInput({ prompt: 'p', num_images: 3, seed: 9 }, model), { prompt: 'p', n: 1, quality: 'high' });
  t.deepEqual(mapInput({ prompt: 'p' }, { operationId: 'x', category: 'y' }), { prompt: 'p' });
});
