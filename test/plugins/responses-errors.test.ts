// The error vocabulary's rendering: every error body is {"detail", "code"}; detail is exactly the
// message (or the validation list), code is the class's, or derived from the status for Boom.
import test from 'ava';
import Hapi from '@hapi/hapi';
import Boom from '@hapi/boom';
import pino from 'pino';
import { errorsPlugin, httpError, validationError } from '../../plugins/responses.ts';
import {
  ConflictError, DuplicateError, InsufficientCreditError, NotFoundError, NotImplementedError, RateLimitedError, UnavailableError, ValidationFailedError,
} from '../../lib/errors.ts';
import { DuplicateError as DbDuplicateError, InsufficientCreditError as DbInsufficientCreditError } from '../../db/errors.ts';

async function serverThrowing(errors: Record<string, () => unknown>) {
  const server = Hapi.server();
  await server.register({ plugin: errorsPlugin, options: { log: pino({ level: 'silent' }) } });
  for (const [name, fn] of Object.entries(errors)) {
    server.route({ method: 'GET', path: `/${name}`, handler: () => { throw fn(); } });
  }
  return server;
}

const cases: Array<[string, () => unknown, number, unknown]> = [
  ['not-found', () => new NotFoundError('prediction not found'), 404, { detail: 'prediction not found', code: 'not_found' }],
  ['credit', () => new InsufficientCreditError(40), 402, { detail: 'insufficient credit: this request costs 40 credits; see GET /account/balance', code: 'insufficient_credit' }],
  ['conflict', () => new ConflictError('prediction is already completed and cannot be cancelled'), 409, { detail: 'prediction is already completed and cannot be cancelled', code: 'conflict' }],
  ['duplicate', () => new DuplicateError('an account with this email already exists'), 409, { detail: 'an account with this email already exists', code: 'conflict' }],
  ['not-yet', () => new NotImplementedError(), 501, { detail: 'not implemented', code: 'not_implemented' }],
  ['unavailable', () => new UnavailableError('upstream down'), 503, { detail: 'upstream down', code: 'unavailable' }],
  ['invalid', () => new ValidationFailedError([{ loc: ['query', 'webhook'], msg: 'bad', type: 'value_error' }]), 422,
    { detail: [{ loc: ['query', 'webhook'], msg: 'bad', type: 'value_error' }], code: 'validation_failed' }],
  ['legacy', () => httpError(404, 'API key not found'), 404, { detail: 'API key not found', code: 'not_found' }],
  ['legacy-validation', () => validationError([{ loc: ['body'], msg: 'JSON decode error', type: 'json_invalid' }]), 422,
    { detail: [{ loc: ['body'], msg: 'JSON decode error', type: 'json_invalid' }], code: 'validation_failed' }],
  ['boom', () => Boom.forbidden('internal wording'), 403, { detail: 'not allowed', code: 'forbidden' }],
  ['crash', () => new Error('secret internals'), 500, { detail: 'internal server error', code: 'internal' }],
];

for (const [name, make, status, body] of cases) {
  test(`${name}: answers ${status} with detail and code`, async (t) => {
    const server = await serverThrowing({ [name]: make });
    const res = await server.inject(`/${name}`);
    t.is(res.statusCode, status);
    t.deepEqual(JSON.parse(res.payload), body);
  });
}

test('a rate-limited error sets Retry-After', async (t) => {
  const server = await serverThrowing({ limited: () => new RateLimitedError('too many attempts, try again in 30 seconds', 30) });
  const res = await server.inject('/limited');
  t.is(res.statusCode, 429);
  t.is(res.headers['retry-after'], '30');
  t.deepEqual(JSON.parse(res.payload), { detail: 'too many attempts, try again in 30 seconds', code: 'rate_limited' });
});

test("hapi's own router 404 gets a code too", async (t) => {
  const server = await serverThrowing({});
  const res = await server.inject('/nowhere');
  t.deepEqual(JSON.parse(res.payload), { detail: 'not found', code: 'not_found' });
});

test('db/ modules keep importing the same classes from db/errors.ts', (t) => {
  t.is(DbDuplicateError, DuplicateError);
  t.is(DbInsufficientCreditError, InsufficientCreditError);
});
