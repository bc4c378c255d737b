// A job the provider accepted and then does not know (its status or result answered 404 or 410)
// was lost by the provider: the prediction fails as the provider's fault (`upstream_failed`), not
// as the user's input. A 404 to a submit stays the input's (an unknown model, say). A cancel
// answered 404 or 410 is about a job the provider no longer knows too (`upstream_failed`, which
// the cancels of an erased account's jobs count as done), and fal's ALREADY_COMPLETED still ends
// quietly. Third-party HTTP: nock.
import test from 'ava';
import nock from 'nock';
import { failure, publicResolve } from '../../helpers/adapters.ts';
import { createFal } from '../../../workers/adapters/fal.ts';
import { createHttpJson } from '../../../workers/adapters/http-json.ts';
import { createReplicate } from '../../../workers/adapters/replicate.ts';
import { createWaveSpeed } from '../../../workers/adapters/wavespeed.ts';
import type { AdapterEnv, JobAdapter, JobContext } from '../../../workers/adapters/types.ts';

nock.disableNetConnect();
test.afterEach.always(() => {
  nock.cleanAll();
});

const ID = 'job-42';

function context(upstream: string, upstreamModel: string): JobContext {
  return { signal: new AbortController().signal, predictionId: 'p-lost', model: { operationId: 'lumen-dev-text-to-image', category: 'text-to-image', upstream, upstreamModel } };
}

interface Case {
  name: string;
  base: string;
  job: JobAdapter;
  ctx: JobContext;
  /** the poll's path under `base` */
  poll: string;
  /** the submit's path under `base` */
  submit: string;
}

const cases: Case[] = [
  {
    name: 'replicate', base: 'https://api.replicate.test/v1', poll: `/predictions/${ID}`, submit: '/models/black-forest-labs/flux-dev/predictions',
    job: createReplicate({ upstreams: new Map([['replicate', { url: 'https://api.replicate.test/v1', key: 'r8_k' }]]) }, { resolve: publicResolve }).job!,
    ctx: context('replicate', 'black-forest-labs/flux-dev'),
  },
  {
    name: 'fal', base: 'https://queue.fal.test', poll: `/fal-ai/flux/requests/${ID}/status?logs=1`, submit: '/fal-ai/flux/schnell',
    job: createFal({ upstreams: new Map([['fal', { url: 'https://queue.fal.test', key: 'fal-k' }]]) }, { resolve: publicResolve }).job!,
    ctx: context('fal', 'fal-ai/flux/schnell'),
  },
  {
    name: 'wavespeed', base: 'https://api.wavespeed.test/api/v3', poll: `/predictions/${ID}/result`, submit: '/wavespeed-ai/flux-dev',
    job: createWaveSpeed({ upstreams: new Map([['wavespeed', { url: 'https://api.wavespeed.test/api/v3', key: 'ws-k' }]]) } satisfies AdapterEnv, { resolve: publicResolve }).job!,
    ctx: context('wavespeed', 'wavespeed-ai/flux-dev'),
  },
  {
    name: 'http-json', base: 'https://api.acme.test', poll: `/v1/predictions/${ID}`, submit: '/v1/models/acme/flux-dev/predictions',
    job: createHttpJson({ upstreams: new Map([['acme', { url: 'https://api.acme.test', key: 'sk-k' }]]) }, { pollIntervalMs: 1 }, { resolve: publicResolve }).job!,
    ctx: context('acme', 'acme/flux-dev'),
  },
];

for (const c of cases) {
  for (const status of [404, 410]) {
    test.serial(`${c.name}: a poll answered ${status} is a job the provider lost, its fault, not the input's`, async (t) => {
      const scope = nock(c.base).get(c.poll).reply(status, { error: 'not found', detail: 'Not found.', message: 'task not found' });
      const err = await failure(t, c.job.poll(ID, c.ctx));
      t.is(err.code, 'upstream_failed');
      t.false(err.retryable, 'a lost job does not come back: polling again would not help');
      t.regex(err.message, new RegExp(`upstream "${c.name === 'http-json' ? 'acme' : c.name}" no longer knows the job`));
      t.notRegex(err.message, /rejected the input/);
      t.true(scope.isDone());
    });
  }

  if (c.name !== 'http-json') {
    test.serial(`${c.name}: a cancel answered 404 is a job the provider no longer knows, not the input's fault`, async (t) => {
      const cancel = { replicate: ['post', `/predictions/${ID}/cancel`], fal: ['put', `/fal-ai/flux/requests/${ID}/cancel`], wavespeed: ['post', '/predictions/delete'] }[c.name]!;
      const scope = (cancel[0] === 'put' ? nock(c.base).put(cancel[1]!) : nock(c.base).post(cancel[1]!)).reply(404, { detail: 'Not found.', message: 'task not found' });
      const err = await failure(t, c.job.cancel(ID, c.ctx));
      t.is(err.code, 'upstream_failed');
      t.false(err.retryable);
      t.regex(err.message, /no longer knows the job/);
      t.true(scope.isDone());
    });
  }

  test.serial(`${c.name}: a submit answered 404 is still the input's fault`, async (t) => {
    nock(c.base).post(c.submit).reply(404, { error: 'no such model', detail: 'no such model', message: 'no such model' });
    const err = await failure(t, c.job.submit({ prompt: 'a fox' }, c.ctx));
    t.is(err.code, 'upstream_rejected_input');
  });
}

test.serial('fal: a COMPLETED request whose result answers 404 was lost by the provider: failed as its fault', async (t) => {
  const fal = cases.find((c) => c.name === 'fal')!;
  nock(fal.base)
    .get(fal.poll).reply(200, { status: 'COMPLETED', response_url: `${fal.base}/fal-ai/flux/requests/${ID}` })
    .get(`/fal-ai/flux/requests/${ID}`).reply(404, { detail: 'Request not found' });
  const state = await fal.job.poll(ID, fal.ctx);
  t.is(state.kind, 'failed');
  t.is(state.kind === 'failed' ? state.error.code : undefined, 'upstream_failed');
});

test.serial('fal: a result refused as the input (422) stays the input\'s fault', async (t) => {
  const fal = cases.find((c) => c.name === 'fal')!;
  nock(fal.base)
    .get(fal.poll).reply(200, { status: 'COMPLETED', response_url: `${fal.base}/fal-ai/flux/requests/${ID}` })
    .get(`/fal-ai/flux/requests/${ID}`).reply(422, { detail: [{ loc: ['body', 'prompt'], msg: 'too long', type: 'value_error' }] });
  const state = await fal.job.poll(ID, fal.ctx);
  t.is(state.kind === 'failed' ? state.error.code : undefined, 'upstream_rejected_input');
});

test.serial('fal: a cancel answered 400 ALREADY_COMPLETED still ends quietly (cancel calls keep their mapping)', async (t) => {
  const fal = cases.find((c) => c.name === 'fal')!;
  nock(fal.base).put(`/fal-ai/flux/requests/${ID}/cancel`).reply(400, { status: 'ALREADY_COMPLETED' });
  await t.notThrowsAsync(fal.job.cancel(ID, fal.ctx));
});

test.serial('wavespeed: a poll whose envelope says 404 is a job the provider lost', async (t) => {
  const ws = cases.find((c) => c.name === 'wavespeed')!;
  nock(ws.base).get(ws.poll).reply(200, { code: 404, message: 'task not found', data: null });
  const err = await failure(t, ws.job.poll(ID, ws.ctx));
  t.is(err.code, 'upstream_failed');
  t.false(err.retryable);
});
