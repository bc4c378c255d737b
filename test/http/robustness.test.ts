// No input produces a 500 or a hanging request: every operation of the spec, called by an
// authenticated admin session, with hostile path parameters, query strings and bodies. Every
// answer must be a JSON error body (or a success) with a status below 500, except the
// deliberate 501 of routes not built yet and 503 of unconfigured dependencies.
import test from 'ava';
import type { Operation } from 'openapi-backend';
import { startGateway, newAccount } from '../helpers/gateway.ts';

const PATH_VALUES = ['0', '-1', '99999999999999999999999', '%2e%2e%2f%2e%2e%2fetc%2fpasswd', '%F0%9F%92%A9', 'a'.repeat(300), 'null'];
const QUERIES = ['', '?page=0', '?page=abc&page_size=1000000', '?team_id=1e309', '?unknown=1', '?webhook=javascript:alert(1)', '?email=%00', '?q=' + 'x'.repeat(5000)];
const BODIES: Array<string | undefined> = [
  undefined,
  '',
  'null',
  '[]',
  '"a string"',
  '{"prompt": null}',
  '{"prompt": {"$ne": 1}, "duration": 1e308, "aspect_ratio": "9999:0"}',
  '{"email": "a@b.c", "password": ["x"], "otp": 123456, "scopes": "generate:write", "is_test": "yes"}',
  '{"__proto__": {"admin": true}, "constructor": {"prototype": {"x": 1}}}',
  '{"a":' + '['.repeat(2000) + ']'.repeat(2000) + '}',
  '{"bad json": ',
  '\u0000\u0001\u0002',
];

function fillPath(path: string, value: string): string {
  return path.replace(/\{[^}]+\}/g, value);
}

test('hostile input to every operation never produces a 500 or a non-JSON error', async (t) => {
  const gw = await startGateway({ queue: 'memory' });
  t.teardown(() => gw.stop());
  const acct = await newAccount(gw, 1_000);
  await gw.app.db('users').where({ id: acct.userId }).update({ role: 'admin' });
  const headers = { authorization: `Bearer ${acct.session}` };
  const failures: string[] = [];
  let requests = 0;

  const operations = gw.app.spec.operations as Operation[];
  for (const op of operations) {
    // logout would end the session every later request needs
    if (op.operationId === 'logout') continue;
    const method = op.method.toUpperCase();
    const hasBody = !['GET', 'HEAD', 'DELETE'].includes(method);
    const cases: Array<{ url: string; payload?: string }> = [];
    for (const v of PATH_VALUES) cases.push({ url: fillPath(op.path, v) });
    for (const q of QUERIES) cases.push({ url: fillPath(op.path, '1') + q });
    if (hasBody) for (const b of BODIES) cases.push({ url: fillPath(op.path, '1'), ...(b === undefined ? {} : { payload: b }) });
    for (const c of cases) {
      requests++;
      const res = await gw.server.inject({
        method,
        url: c.url,
        headers: { ...headers, ...(c.payload !== undefined ? { 'content-type': 'application/json' } : {}) },
        ...(c.payload !== undefined ? { payload: c.payload } : {}),
      });
      const deliberate = res.statusCode === 501 || res.statusCode === 503;
      const json = String(res.headers['content-type'] ?? '').includes('json') || res.statusCode < 300 || res.statusCode === 204 || res.statusCode === 302;
      if ((res.statusCode >= 500 && !deliberate) || (res.statusCode >= 400 && !json)) {
        failures.push(`${op.operationId}: ${method} ${c.url.slice(0, 80)} ${c.payload?.slice(0, 40) ?? ''} -> ${res.statusCode} ${res.payload.slice(0, 120)}`);
      }
    }
  }
  t.log(`${requests} requests over ${operations.length} operations`);
  t.deepEqual(failures, []);
});
