// Validation from hapi's parse (plugins/spec-routes.ts validateParsed) answers exactly what
// openapi-backend's validateRequest answers: same validity, same errors in the same order, same
// coerced query and path parameters, same defaults written into the body, for every operation of
// the real spec it takes and a spread of valid and invalid inputs.
import test from 'ava';
import type { Request } from '@hapi/hapi';
import type { Operation } from 'openapi-backend';
import { startGateway } from '../helpers/gateway.ts';
import { parsedValidationPlan, validateParsed } from '../../plugins/spec-routes.ts';

type Param = { in: string; name: string; schema?: { type?: string } };

function inputsFor(operation: Operation) {
  const params = (operation.parameters ?? []) as Param[];
  const pathNames = params.filter((p) => p.in === 'path').map((p) => p.name);
  const queryNames = params.filter((p) => p.in === 'query').map((p) => p.name);
  const hasBody = operation.requestBody !== undefined;
  const cases: Array<{ params: Record<string, string>; query: Record<string, string | string[]>; headers: Record<string, string>; body: unknown }> = [];
  for (const pathValue of ['1', 'abc', 'a b/c']) {
    const pathParams = Object.fromEntries(pathNames.map((n) => [n, pathValue]));
    const json = { 'content-type': 'application/json' };
    cases.push({ params: pathParams, query: {}, headers: {}, body: undefined });
    cases.push({ params: pathParams, query: { not_declared: 'x' }, headers: {}, body: undefined });
    for (const value of ['1', 'abc', 'true', '-5', '']) {
      cases.push({ params: pathParams, query: Object.fromEntries(queryNames.map((n) => [n, value])), headers: {}, body: undefined });
    }
    for (const headers of [{ 'idempotency-key': 'k-1' }, { 'idempotency-key': 'x'.repeat(300) }, { prefer: 'wait=5' }, { prefer: 'respond-async, wait=100000' }] as Array<Record<string, string>>) {
      cases.push({ params: pathParams, query: {}, headers, body: undefined });
    }
    if (queryNames.length) cases.push({ params: pathParams, query: Object.fromEntries(queryNames.map((n) => [n, ['1', '2']])), headers: {}, body: undefined });
    if (hasBody) {
      for (const body of [{}, { prompt: 'a cat' }, { prompt: 'a cat', width: '64', height: 64, unknown_field: 1 }, { prompt: 3 }, { email: 'a@b.c', password: 'x' }, { name: 'k', team_id: '3' }, [], null]) {
        cases.push({ params: pathParams, query: {}, headers: json, body });
      }
      cases.push({ params: pathParams, query: {}, headers: json, body: undefined });
    }
  }
  return cases;
}

test('for every operation it takes, validation from hapi\'s parse answers what openapi-backend answers', async (t) => {
  const gw = await startGateway({ db: 'sqlite', queue: 'memory' });
  try {
    const { api, operations } = gw.app.spec;
    const { validator } = api;
    let compared = 0;
    let taken = 0;
    for (const operation of operations) {
      const plan = parsedValidationPlan(operation);
      if (!plan) continue;
      taken++;
      const id = operation.operationId!;
      validator.requestValidators[id] ??= validator.buildRequestValidatorsForOperation(operation);
      for (const c of inputsFor(operation)) {
        const path = operation.path.replace(/\{([^}]+)\}/g, (_, n: string) => encodeURIComponent(c.params[n] ?? ''));
        const libBody = structuredClone(c.body);
        const ourBody = structuredClone(c.body);
        const theirs = validator.validateRequest({ method: operation.method, path, headers: c.headers, query: structuredClone(c.query), ...(libBody === undefined ? {} : { body: libBody as Record<string, unknown> }) }, operation);
        const request = { params: { ...c.params }, query: structuredClone(c.query), headers: c.headers } as unknown as Request;
        const ours = validateParsed(validator.requestValidators[id] ?? [], plan, request, ourBody);
        if (ours === undefined) continue; // a scalar body: openapi-backend's own path
        compared++;
        const label = `${id} ${JSON.stringify(c)}`;
        t.is(ours.valid, theirs.valid, label);
        t.deepEqual(JSON.parse(JSON.stringify(ours.errors ?? null)), JSON.parse(JSON.stringify(theirs.errors ?? null)), label);
        t.deepEqual(ourBody, libBody, label);
        if (theirs.valid) {
          const coerced = theirs.coerced as { query?: unknown; params?: unknown };
          t.deepEqual(ours.coerced?.query, coerced.query, label);
          t.deepEqual(ours.coerced?.params, coerced.params, label);
        }
      }
    }
    t.true(taken > 100, `operations taken: ${taken} of ${operations.length}`);
    t.log(`${compared} inputs compared over ${taken} of ${operations.length} operations`);
  } finally {
    await gw.stop();
  }
});
