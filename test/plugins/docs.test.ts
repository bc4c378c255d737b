// The API reference loads nothing from the internet. No browser here (playwright is not a
// dependency), so a static check of what /docs serves: the initialiser, run against a stub
// SwaggerUIBundle, turns swagger-ui's validator badge off; every reference of the page and its
// stylesheet is same-origin (or data:); and the page's Content-Security-Policy only allows its
// own origin and the documented API. SQLite, in-process queue.
import test from 'ava';
import vm from 'node:vm';
import { startGateway } from '../helpers/gateway.ts';
import type { TestGateway } from '../helpers/gateway.ts';

let gw: TestGateway;
test.before(async () => {
  gw = await startGateway({ db: 'sqlite', queue: 'memory', env: { PUBLIC_URL: 'https://api.example.net' } });
});
test.after.always(async () => {
  await gw?.stop();
});

const get = (url: string) => gw.server.inject({ method: 'GET', url, headers: { host: 'docs.example.org' } });

test('the served initialiser sets validatorUrl to null, so no badge request leaves the page', async (t) => {
  const init = await get('/docs/init.js');
  t.is(init.statusCode, 200);
  let config: Record<string, unknown> | undefined;
  const SwaggerUIBundle = Object.assign((c: Record<string, unknown>) => { config = c; return {}; }, { presets: { apis: {} } });
  vm.runInNewContext(init.payload, { window: {}, SwaggerUIBundle, SwaggerUIStandalonePreset: {} });
  t.truthy(config);
  t.true(config !== undefined && 'validatorUrl' in config);
  t.is(config?.validatorUrl, null);
  t.is(config?.url, '/openapi.json');
});

test('every reference of the docs page and its stylesheet is same-origin', async (t) => {
  const page = await get('/docs');
  t.is(page.statusCode, 200);
  const refs = [...page.payload.matchAll(/\b(?:src|href)\s*=\s*["']([^"']*)["']/g)].map((m) => m[1]!);
  t.true(refs.length >= 4);
  for (const ref of refs) {
    t.true(ref.startsWith('/') && !ref.startsWith('//'), `external reference in /docs: ${ref}`);
    const res = await get(ref);
    t.is(res.statusCode, 200, ref);
  }
  const css = await get('/docs/assets/swagger-ui.css');
  const urls = [...css.payload.matchAll(/url\(\s*["']?([^"')]*)/g)].map((m) => m[1]!);
  for (const u of urls) t.true(u.startsWith('data:') || (u.startsWith('/') && !u.startsWith('//')) || !/^[a-z]+:|^\/\//i.test(u), `external url() in swagger-ui.css: ${u.slice(0, 60)}`);
  t.false(/@import/.test(css.payload));
});

test("the docs page's Content-Security-Policy allows only its own origin and the documented API", async (t) => {
  const page = await get('/docs');
  const csp = String(page.headers['content-security-policy'] ?? '');
  const directives = new Map(csp.split(';').map((d) => d.trim().split(/\s+/)).map(([name, ...values]) => [name!, values]));
  t.deepEqual(directives.get('default-src'), ["'self'"]);
  t.deepEqual(directives.get('img-src'), ["'self'", 'data:']);
  t.deepEqual(directives.get('connect-src'), ["'self'", 'https://api.example.net']);
  t.false(directives.has('script-src'), 'scripts fall back to default-src');
  for (const [name, values] of directives) {
    if (name === 'connect-src') continue;
    t.false(values.some((v) => /^https?:|^\*$/.test(v)), `${name} allows ${values.join(' ')}`);
  }
});
