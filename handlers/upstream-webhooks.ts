// POST /api/v1/upstream-webhooks/{provider}/{token}: a provider's callback about a job (README
// "Providers", callbacks). While callbacks are off no address was ever handed out: 404. The address
// token is checked first, locally (404 for a wrong token and an unknown prediction alike), so a
// callback to an address nobody was given never makes the gateway fetch a provider's keys; then
// the provider's signature (401). A verified
// callback does not act on the body: it moves the prediction's poll chain on and publishes the
// next poll at once, so the worker asks the provider through the same step polling uses.
// Duplicates, replays within the tolerance and callbacks out of order therefore change nothing
// twice: the chain number lets one poll through, and a finished prediction ignores them.
import type { Handler } from './types.ts';
import type { App } from '../lib/context.ts';
import { NotFoundError, UnauthorizedError, UnavailableError } from '../lib/errors.ts';
import { createFalKeySet, readCallbackToken, verifyStandardWebhook, verifyWaveSpeedWebhook } from '../lib/upstream-callbacks.ts';
import type { CallbackProvider, SignatureProblem } from '../lib/upstream-callbacks.ts';
import { findPredictionById } from '../db/predictions/record.ts';
import { rewindUpstreamPolls, takeUpstreamCallback } from '../db/predictions/upstream.ts';

/** fal's key sets, one per JWKS URL, kept for the process (the set caches its keys). */
const falKeySets = new Map<string, ReturnType<typeof createFalKeySet>>();

async function signatureProblem(app: App, provider: CallbackProvider, headers: Record<string, string | string[] | undefined>, raw: Buffer): Promise<SignatureProblem> {
  const config = app.config.upstreamCallbacks;
  if (provider === 'replicate') {
    if (!config.replicateSecret) return 'REPLICATE_WEBHOOK_SECRET is not set on this gateway';
    return verifyStandardWebhook(config.replicateSecret, headers, raw, app.clock());
  }
  if (provider === 'wavespeed') {
    if (!config.wavespeedSecret) return 'WAVESPEED_WEBHOOK_SECRET is not set on this gateway';
    return verifyWaveSpeedWebhook(config.wavespeedSecret, headers, raw, app.clock());
  }
  let keys = falKeySets.get(config.falJwksUrl);
  if (!keys) {
    keys = createFalKeySet(config.falJwksUrl);
    falKeySets.set(config.falJwksUrl, keys);
  }
  try {
    return await keys.verify(headers, raw, app.clock());
  } catch (err) {
    // fal retries a callback that was not answered 2xx; polling carries on meanwhile.
    app.log.warn({ err: (err as Error).message }, 'could not fetch the fal webhook key set');
    throw new UnavailableError('the provider\'s signing keys cannot be fetched now; try again later');
  }
}

/** The provider's id of the job a callback body is about. */
function jobIdOf(provider: CallbackProvider, body: Record<string, unknown>): string | undefined {
  // Replicate and WaveSpeed post their prediction object; fal its {request_id, status, payload}.
  const id = provider === 'fal' ? body.request_id : body.id;
  return typeof id === 'string' && id !== '' ? id : undefined;
}

/**
 * Whether `provider` (an adapter name) may call back about this prediction: the provider that
 * took its job (any entry of x-model.providers, not only the first), or, before a job is
 * recorded, any of the model's providers with that adapter.
 */
function calledBy(app: App, p: NonNullable<Awaited<ReturnType<typeof findPredictionById>>>, provider: CallbackProvider): boolean {
  const entries = app.spec.models.get(p.model)?.providers ?? [];
  const ran = p.upstreamJob?.provider;
  return entries.some((e) => e.adapter === provider && (ran === undefined || (e.upstream ?? e.adapter) === ran));
}

export const receiveUpstreamWebhook: Handler<'receiveUpstreamWebhook'> = async ({ app, params, body, request }) => {
  const provider = params.provider;
  const raw = request.app.rawBody ?? Buffer.alloc(0);
  // The same answer for callbacks off, a made-up token and a prediction that is gone: nothing to learn here.
  const id = app.config.upstreamCallbacks.enabled ? readCallbackToken(app.config.upstreamCallbacks.key, provider, params.token) : undefined;
  if (id === undefined) throw new NotFoundError('no such callback');
  const problem = await signatureProblem(app, provider, request.headers as Record<string, string | string[] | undefined>, raw);
  if (problem) throw new UnauthorizedError(`the ${provider} signature was refused: ${problem}`);

  const p = await findPredictionById(app.db, id);
  if (!p || !calledBy(app, p, provider)) throw new NotFoundError('no such callback');

  const job = p.upstreamJob;
  // Not running this job (finished, cancelled, or a job submitted before the one recorded): the
  // callback is answered 200 so the provider stops retrying it, and changes nothing.
  if (p.status !== 'processing' || !job || jobIdOf(provider, body) !== job.id) return { status: 'ignored' as const };
  if (!(await takeUpstreamCallback(app.db, p.id, job.id, job.polls, app.clock()))) return { status: 'ignored' as const };
  try {
    const next = { id: p.id, poll: job.polls + 1, failures: 0, ...(p.httpRequestId ? { reqId: p.httpRequestId } : {}) };
    await app.queue.publish('predictions', next);
  } catch (err) {
    // Put the chain back so the delayed poll already queued is current again; the provider retries.
    await rewindUpstreamPolls(app.db, p.id, job.polls + 1);
    app.log.warn({ id: p.id, err: (err as Error).message }, 'could not queue the poll a provider callback asked for');
    throw new UnavailableError('the queue is unavailable; try again later');
  }
  app.log.info({ id: p.id, provider, reqId: p.httpRequestId ?? undefined }, 'provider callback: polling the job now');
  return { status: 'accepted' as const };
};
