// The generated documentation is what the code says today: the errors page is lib/errors.ts's
// table, the configuration page is config.ts's schema, and every page's navigation follows the
// index. An edit of either without `npm run docs:gen` fails here.
import test from 'ava';
import Joi from 'joi';
import fs from 'node:fs';
import path from 'node:path';
import yaml from 'js-yaml';
import { ERRORS, codeForStatus, ApiKeyExpiredError, ConflictError, ForbiddenError, GoneError, ImpersonationForbiddenError, InsufficientCreditError, InvalidInputError, KeySpendLimitError, NotFoundError, NotImplementedError, PayloadTooLargeError, RateLimitedError, RoleRequiredError, SessionRequiredError, UnauthorizedError, UnavailableError, UnsupportedMediaTypeError, ValidationFailedError, EmbedRefusedError, StudioRefusedError } from '../../lib/errors.ts';
import type { DomainError } from '../../lib/errors.ts';
import { configSchema } from '../../config.ts';
import { allPages, indexOrder, renderConfiguration, renderErrors, staleFiles, withNavigation } from '../../docs/generate.ts';

test('the committed generated pages and navigation are what npm run docs:gen writes', (t) => {
  t.deepEqual(staleFiles(), [], 'run `npm run docs:gen` and commit the result');
});

test('the index links every page under docs/, and nothing else there', (t) => {
  t.deepEqual([...indexOrder()].sort(), [...new Set([...allPages(), 'api/errors.md', 'operating/configuration.md'])].sort());
});

test('the errors page has one row per code, with its statuses', (t) => {
  const page = renderErrors();
  for (const [code, info] of Object.entries(ERRORS)) {
    t.regex(page, new RegExp(`^\\| ${info.status.join(', ')} \\| \`${code}\` \\| .+ \\|$`, 'm'), code);
  }
  // the check can fail: a code added to the table shows up on the page
  t.false(page.includes('`no_such_code`'));
});

test('each error class answers a status its code lists', (t) => {
  const errors: DomainError[] = [
    new InvalidInputError('x'), new UnauthorizedError('x'), new InsufficientCreditError(5), new ApiKeyExpiredError('x'),
    new KeySpendLimitError('x'), new ForbiddenError('x'), new SessionRequiredError('x'), new RoleRequiredError('x'),
    new ImpersonationForbiddenError('x'), new NotFoundError('x'), new ConflictError('x'), new RateLimitedError('x', 1),
    new NotImplementedError(), new UnavailableError('x'), new ValidationFailedError([]), new GoneError('x'),
    new PayloadTooLargeError('x'), new UnsupportedMediaTypeError('x'), new EmbedRefusedError(402, 'embed_daily_cap_reached', 'x'),
    new StudioRefusedError(404, 'studio_not_found', 'x'),
  ];
  for (const e of errors) t.true((ERRORS[e.code].status as readonly number[]).includes(e.status), `${e.name}: ${e.code} ${e.status}`);
  for (const status of [400, 401, 402, 403, 404, 405, 408, 409, 410, 413, 415, 417, 422, 429, 431, 500, 501, 502, 503, 504]) {
    t.true((ERRORS[codeForStatus(status)].status as readonly number[]).includes(status), String(status));
  }
});

test('the configuration page lists every variable with its default and meaning', (t) => {
  const page = renderConfiguration();
  t.regex(page, /^\| `PORT` \| `8080` \| HTTP port \|$/m);
  t.regex(page, /^\| `DATABASE_URL` \| unset: SQLite file/m);
  t.regex(page, /^\| `UPSTREAM_<NAME>_KEY` \| unset \| /m);
  for (const name of Object.keys((configSchema.describe() as { keys: Record<string, unknown> }).keys)) t.true(page.includes(`| \`${name}\` |`), name);
});

test('a variable without a description stops the generator, naming it', (t) => {
  const schema = configSchema.keys({ NEW_SETTING: Joi.string() });
  t.throws(() => renderConfiguration(schema), { message: /NEW_SETTING/ });
});

test('a page gets the index, the previous and the next page at its end, once', (t) => {
  const order = ['api/a.md', 'api/b.md', 'partners/c.md'];
  const titles = new Map([['api/a.md', 'A'], ['api/b.md', 'B'], ['partners/c.md', 'C']]);
  const once = withNavigation('api/b.md', '# B\n\ntext\n', order, titles);
  t.true(once.endsWith('[Index](../README.md) · Previous: [A](a.md) · Next: [C](../partners/c.md)\n'));
  t.is(withNavigation('api/b.md', once, order, titles), once);
  t.true(withNavigation('api/a.md', '# A\n', order, titles).endsWith('[Index](../README.md) · Next: [B](b.md)\n'));
});

test("the spec's error body names every code, so a client reading only the API reference knows them", (t) => {
  const spec = yaml.load(fs.readFileSync(path.resolve(import.meta.dirname, '../../spec/v1/openapi.yaml'), 'utf8')) as {
    components: { schemas: { ErrorDetail: { properties: { code: { description: string } } } } };
  };
  const description = spec.components.schemas.ErrorDetail.properties.code.description;
  for (const code of Object.keys(ERRORS)) t.true(description.includes(`\`${code}\``), code);
});
