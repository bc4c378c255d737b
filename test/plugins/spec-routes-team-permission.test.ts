// x-team-permission: the spec names the team permission an operation taking team_id needs, and
// start-up refuses a live operation that takes team_id without one, or names an unknown one.
import test from 'ava';
import type { Operation } from 'openapi-backend';
import { teamPermissionOf } from '../../plugins/spec-routes.ts';

const op = (extra: Record<string, unknown>): Operation => ({
  operationId: 'x', method: 'get', path: '/x', responses: {},
  parameters: [{ name: 'team_id', in: 'query', schema: { type: 'integer' } }], ...extra,
}) as unknown as Operation;

test('a declared permission is returned for the owner resolution', (t) => {
  t.is(teamPermissionOf('x', op({ 'x-team-permission': 'read_history' }), true), 'read_history');
});

test('an unknown permission stops start-up, naming the operation', (t) => {
  t.throws(() => teamPermissionOf('listThings', op({ 'x-team-permission': 'read_everything' }), true), { message: /^listThings: x-team-permission must be one of generate, read_history/ });
});

test('a live operation taking team_id without a permission stops start-up; a not-yet one may wait', (t) => {
  t.throws(() => teamPermissionOf('listThings', op({}), true), { message: /^listThings: takes team_id but declares no x-team-permission/ });
  t.is(teamPermissionOf('listThings', op({}), false), undefined);
  t.is(teamPermissionOf('x', op({ parameters: [{ name: 'team_id', in: 'path' }] }), true), undefined, 'a team route\'s path id is not an owner switch');
});

test('team_id in the JSON body counts as taking it', (t) => {
  const withBody = op({ parameters: [], requestBody: { content: { 'application/json': { schema: { properties: { team_id: { type: 'integer' } } } } } } });
  t.throws(() => teamPermissionOf('createThing', withBody, true), { message: /takes team_id/ });
});

test('every model endpoint of the shipped spec takes team_id, needs generate on the team and declares its 404', async (t) => {
  const { loadSpecDocument } = await import('../../spec/load.ts');
  const doc = loadSpecDocument('spec/v1');
  let models = 0;
  for (const item of Object.values(doc.paths)) {
    for (const op of Object.values(item) as Array<Record<string, unknown>>) {
      if (!op || typeof op !== 'object' || !op['x-model']) continue;
      models++;
      const refs = ((op.parameters ?? []) as Array<{ $ref?: string }>).map((p) => p.$ref);
      t.true(refs.includes('#/components/parameters/TeamId'), `${String(op.operationId)} declares team_id`);
      t.is(op['x-team-permission'], 'generate', `${String(op.operationId)} needs generate`);
      t.truthy((op.responses as Record<string, unknown>)['404'], `${String(op.operationId)} declares the 404 of an unknown team`);
    }
  }
  t.true(models > 0);
});
