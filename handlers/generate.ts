// POST /api/v1/{model-endpoint}: every model endpoint of the spec lands here.
import { BudgetExceededError, EmbedRefusedError, MaxCostExceededError, NotFoundError, RateLimitedError, UnavailableError, ValidationFailedError } from '../lib/errors.ts';
import { generationLimits } from './policies.ts';
import { codeSetsField } from './embeds.ts';
import { urlProblem } from '../lib/destination-policy.ts';
import { alertsAfterSubmit, budgetRefused, paysOwnWallet, preferredWait, priceFor, refuseStudioSpender, refuseUnservable, resolveInputLoras, studioHides, walletAlertSettings } from './admission.ts';
import { configuredProviders } from '../workers/adapters/index.ts';
import { configureHint } from '../workers/adapters/upstream-config.ts';
import { findPrediction, newPredictionId, providerMetadataOf } from '../db/predictions/record.ts';
import { dropFilter, insertFilter } from '../db/webhooks.ts';
import { parseEventsFilter } from '../lib/webhook-events.ts';
import type { WebhookEvent } from '../lib/webhook-events.ts';
import { getBalance, getTeamBalance } from '../db/wallet/ledger.ts';
import { predictionView } from '../lib/prediction-view.ts';
import type { PredictionView } from '../lib/prediction-view.ts';
import type { components } from '../spec/v1.generated.ts';
import { storePriceRule } from '../spec/pricing.ts';
import { disconnectSignal, waitForTerminal } from './prediction-watch.ts';
import type { ModelContext, ModelHandler } from './types.ts';

type Submitted = components['schemas']['PredictionSubmitted'];

/** Retry-After of a submit refused by a concurrency limit: a prediction may finish at any moment. */
const CONCURRENCY_RETRY_SECONDS = 1;

/**
 * The submit answer (README "What the submit answer returns"): the request id, its state, where
 * to poll and cancel it, and the price held; `X-Cost` repeats the price and `X-Balance-Remaining`
 * gives the paying wallet's spendable balance after the hold. With `Prefer: wait=N` (README
 * "Following a prediction") and a prediction finished within N seconds, the result body instead,
 * with `Preference-Applied: wait=N` and the same headers.
 */
async function submitted(ctx: ModelContext, id: string, status: Submitted['status'], price: number, knownBalance: number | undefined) {
  const { app, h, caller, request } = ctx;
  const base = app.config.publicUrl;
  // A submit that named its team gets urls naming it too: without team_id a member's credential
  // reads personally, and the team's prediction would be 404 to the very caller it was made for.
  const team = ctx.query.team_id === undefined ? '' : `?team_id=${ctx.query.team_id}`;
  let answer: Submitted | PredictionView = {
    request_id: id,
    status,
    urls: { get: `${base}/api/v1/predictions/${id}/result${team}`, cancel: `${base}/app/cancel_prediction/${id}${team}` },
    price,
  };
  const wait = ctx.answerAtOnce ? undefined : preferredWait(request.headers.prefer as string | string[] | undefined);
  let applied = false;
  if (wait !== undefined && wait > 0) {
    // no database connection is held while waiting: each read borrows one from the pool
    const client = disconnectSignal(request);
    try {
      const done = await waitForTerminal(app, caller.owner, id, wait * 1000, client.signal);
      if (done) {
        // the result route's body: with the provider's metadata of a completed result
        const metadata = await providerMetadataOf(app.db, done);
        const view = { ...predictionView(app, done), urls: { get: answer.urls.get } };
        answer = metadata ? { ...view, provider_metadata: metadata } : view;
        applied = true;
      }
    } finally {
      client.dispose();
    }
  }
  const { teamId, userId } = caller.owner;
  let response = h.response(answer).header('X-Cost', String(price));
  // an embed code's visitor never learns the owner's balance, nor a studio's user the owner's (owner_pays)
  if (!caller.embed && ctx.studio?.payerMode !== 'owner_pays') {
    // known without another read: the hold's (production) or the key's owner read with the key (sandbox, which moves nothing)
    const balance = knownBalance ?? (teamId === null ? await getBalance(app.db, userId) : await getTeamBalance(app.db, teamId)).balance;
    response = response.header('X-Balance-Remaining', String(balance));
  }
  return applied ? response.header('Preference-Applied', `wait=${wait}`) : response;
}

/**
 * The most the caller will pay (`Max-Cost` header, `max_cost` query parameter; both validated as
 * integers >= 0 by the spec): the lower of the two, or undefined when neither is sent.
 */
export function maxCostOf(ctx: Pick<ModelContext, 'request' | 'query'>): number | undefined {
  const header = ctx.request.headers['max-cost'];
  const caps = [typeof header === 'string' && header.trim() !== '' ? Number(header) : undefined, ctx.query.max_cost]
    .filter((n): n is number => typeof n === 'number' && Number.isSafeInteger(n));
  return caps.length === 0 ? undefined : Math.min(...caps);
}

/**
 * `webhook_events_filter` (lib/webhook-events.ts): the events asked for, or null when the
 * parameter is absent (the result only). 422 for an unknown name, or for a filter without a webhook.
 */
function eventsFilterOf(values: readonly string[] | undefined, webhook: string | null): WebhookEvent[] | null {
  if (values === undefined) return null;
  const loc = ['query', 'webhook_events_filter'];
  const parsed = parseEventsFilter(values);
  if ('problem' in parsed) throw new ValidationFailedError([{ loc, msg: parsed.problem, type: 'value_error' }]);
  if (webhook === null) throw new ValidationFailedError([{ loc, msg: 'webhook_events_filter needs a webhook to send the events to: add ?webhook=<https URL>', type: 'value_error' }]);
  return parsed.events;
}

export const generate: ModelHandler = async (ctx) => {
  const { app, caller, model, query, request, studio, idempotency } = ctx;
  const now = app.clock();
  // With an Idempotency-Key the prediction id is the key's (plugins/spec-routes.ts runIdempotent),
  // the same for every run of it: a retry that took over the key of a run that died finds that
  // run's prediction and answers it as its submit would have been, never creating and charging
  // another; if there is none, it creates it under that id, so two runs can never both create one.
  const id = idempotency?.workId ?? newPredictionId(now);
  const created = async () => await findPrediction(app.db, caller.owner, id) !== undefined;
  if (idempotency?.takenOver) {
    const earlier = await findPrediction(app.db, caller.owner, id);
    if (earlier) return submitted(ctx, id, earlier.isTest ? 'completed' : 'queued', earlier.price, undefined);
    // an event filter the earlier run wrote before it died (this run writes its own)
    await dropFilter(app.db, id);
  }
  // README "Whitelabel studios": in a studio's context only its allowed models exist
  if (studioHides(studio, model.operationId)) throw new NotFoundError(`no model ${model.operationId} in this studio`);
  // a team's owner_pays studio: a member of the team needs `generate`, as with team_id
  await refuseStudioSpender(app, caller, studio);
  // `loras` (families whose schema declares it): 422 for an unknown, foreign or other-family LoRA, sandbox included.
  // An embed code's visitor names public LoRAs only, so the owner's private ones cannot be probed;
  // the LoRAs the code itself sets (preset or locked inputs) are the owner's choice, among its own.
  const code = request.app.embedCode;
  const loraOwner = caller.embed && !(code && codeSetsField(app, code, model.operationId, 'loras')) ? null : caller.owner;
  const body = await resolveInputLoras(app, loraOwner, model, ctx.body);
  // set by plugins/responses.ts; carried into the queue messages for the worker's log lines
  const { requestId } = request.app;
  const webhook = query.webhook ?? null;
  if (webhook !== null) {
    const problem = urlProblem(webhook, { allowInsecure: app.config.webhookAllowInsecure });
    if (problem) throw new ValidationFailedError([{ loc: ['query', 'webhook'], msg: problem, type: 'value_error' }]);
  }
  const events = eventsFilterOf(query.webhook_events_filter, webhook);
  // A value no provider of the model can take (its limits, its value maps) is the caller's 422 now, not a failed run later.
  refuseUnservable(app, model, body, ['body']);
  // A team owner (team_id, or a team's key) pays from the team wallet and owns the record.
  const { embed } = caller;
  // source: an embed code's kind; a session is the dashboard; keys and tokens are the API
  const source = embed ? embed.kind : studio ? 'studio' as const : caller.via === 'session' ? 'dashboard' as const : 'api' as const;
  const base = {
    // a filter without `completed` asks for no result: the prediction then has no result delivery at all
    id, userId: caller.owner.userId, teamId: caller.owner.teamId, apiKeyId: caller.apiKeyId, model: model.operationId, input: body,
    webhookUrl: events === null || events.includes('completed') ? webhook : null,
    httpRequestId: requestId ?? null, source,
    // README "Embeds": the code and visitor it was made for (plugins/credentials.ts refused a webhook)
    ...(embed ? { embedCodeId: embed.codeId, embedVisitor: embed.visitorHash } : {}),
    ...(studio ? { studioId: studio.id } : {}),
  };

  if (caller.isTest) {
    // a personal wallet's balance is read by the insert itself (X-Balance-Remaining; a sandbox submit moves no money)
    const personal = caller.owner.teamId === null && !caller.embed && ctx.studio?.payerMode !== 'owner_pays' ? { balanceOf: caller.owner.userId } : {};
    // should this request fail after the insert, its key stays for the retry, which answers with it
    idempotency?.watch(created);
    const { deliveryId, balance } = await app.store.insertSandbox({ p: base, outputs: [app.storage.sandboxKey(model.output)], now, ...personal });
    app.metrics.predictions.inc({ model: model.operationId, outcome: 'sandbox' });
    if (deliveryId) await app.dispatcher.dispatchWebhook(deliveryId, requestId);
    return submitted(ctx, id, 'completed', 0, balance);
  }

  // Any one configured provider serves it (x-model.providers: the worker fails over in order).
  if (configuredProviders(model, app.adapterEnv).length === 0) {
    const names = model.providers.map((p) => p.upstream ?? p.adapter);
    const env = model.providers.map((p) => configureHint(p.upstream ?? '')).join(' or ');
    const which = names.length === 1 ? `its upstream provider "${names[0]}" is not configured` : `none of its upstream providers (${names.map((n) => `"${n}"`).join(', ')}) is configured`;
    throw new UnavailableError(`${model.operationId} is not available on this gateway: ${which} (operator: set ${env}); sandbox keys still work`);
  }

  // The hold fails with InsufficientCreditError (402 insufficient_credit, lib/errors.ts).
  // the one price function (the quote's too): list price, the paying wallet's discount, the price after it,
  // and in a studio its markup (end_user_pays: the end user pays it, the owner is credited it on the
  // charge; owner_pays: the studio owner's wallet pays the list price)
  const { price, listPrice, discountPercent, studioMarkup } = await priceFor(app, caller.owner, model, body, studio, caller);
  // Max-Cost: refused before anything is held or recorded
  const maxCost = maxCostOf(ctx);
  if (maxCost !== undefined && price > maxCost) throw new MaxCostExceededError(price, maxCost);
  const studioBilling = studio
    ? (studio.payerMode === 'owner_pays' ? { payer: { userId: studio.userId, teamId: studio.teamId } } : { studioMarkup })
    : {};
  // The concurrency limits are counted in the hold's transaction (the requests-per-minute ones
  // were counted before the handler: x-rate-limit: generations).
  const limits = generationLimits(app.config.generateRateLimit, caller);
  if (embed && embed.maxCostPerRun !== null && price > embed.maxCostPerRun) {
    throw new EmbedRefusedError(402, 'embed_cost_cap_exceeded', `this request costs ${price} credits, more than this embed code allows per run (${embed.maxCostPerRun})`);
  }
  const embedLimits = embed ? { codeId: embed.codeId, dailyCap: embed.dailyCap, monthlyCap: embed.monthlyCap, maxConcurrent: embed.maxConcurrent } : undefined;
  // A key's spend limit (402 key_spend_limit_exceeded) is checked in the hold's transaction too (db/key-spend.ts),
  // and so is the paying wallet's hard monthly budget (402 budget_exceeded, db/alerts.ts), when it has one.
  const payer = studio?.payerMode === 'owner_pays' ? { userId: studio.userId, teamId: studio.teamId } : caller.owner;
  const alerts = await walletAlertSettings(app, payer);
  const hardBudget = alerts !== undefined && alerts.monthlyBudget !== null && alerts.monthlyBudgetHard;
  // Events while it runs: their filter is written before the prediction is accepted (so no worker
  // can start it without), and taken back when it is not.
  const running = webhook !== null && events !== null && events.some((e) => e !== 'completed');
  idempotency?.watch(created);
  if (running) await insertFilter(app.db, { predictionId: id, userId: caller.owner.userId, url: webhook, events }, now);
  // a language model is charged by its usage when it completes, at the price it was held by
  const priceRule = model.category === 'llm' && model.price.tokens && price > 0 ? { priceRule: storePriceRule(model.price) } : {};
  const outcome = await app.store.submit({
    p: { ...base, ...studioBilling, price, listPrice, discountPercent, ...priceRule }, now, limits: { perKey: limits.concurrentPerKey, perAccount: limits.concurrentPerAccount },
    keySpendLimited: caller.keySpendLimited === true, ...(hardBudget ? { hardBudget } : {}), ...(embedLimits ? { embed: embedLimits } : {}),
  }).catch(async (err: unknown) => {
    if (running) await dropFilter(app.db, id);
    throw err;
  });
  if (running && !outcome.accepted) await dropFilter(app.db, id);
  const afterwards = (work: Promise<void>) => { work.catch((err: unknown) => app.log.warn({ err, requestId }, 'alerts: a crossing could not be checked')); };
  if (!outcome.accepted && outcome.scope === 'budget') {
    afterwards(budgetRefused(app, payer, outcome.limit, now));
    // the budget and the arithmetic only to the wallet's own caller, not a studio's user or an embed's visitor
    throw new BudgetExceededError(paysOwnWallet(caller, payer) ? { price, budget: outcome.limit } : null);
  }
  if (!outcome.accepted && outcome.scope === 'embed-daily') throw new EmbedRefusedError(402, 'embed_daily_cap_reached', 'this embed code has reached its daily spending cap; try again tomorrow (UTC)');
  if (!outcome.accepted && outcome.scope === 'embed-monthly') throw new EmbedRefusedError(402, 'embed_monthly_cap_reached', 'this embed code has reached its monthly spending cap');
  if (!outcome.accepted && outcome.scope === 'embed') throw new RateLimitedError(`this embed code already has ${outcome.limit} unfinished predictions, the most it may have at once; retry when one finishes`, CONCURRENCY_RETRY_SECONDS);
  if (!outcome.accepted) {
    const who = outcome.scope === 'key' ? 'this API key' : 'this account';
    throw new RateLimitedError(`${who} already has ${outcome.limit} unfinished predictions, the most it may have at once; retry when one finishes`, CONCURRENCY_RETRY_SECONDS);
  }
  // Persisted: from here the request is never lost. If the queue does not confirm now, the
  // sweeper publishes it when the broker is back.
  app.metrics.predictions.inc({ model: model.operationId, outcome: 'submitted' });
  await app.dispatcher.dispatch(id, requestId, outcome.ticket, { events: running });
  // low balance, monthly budget, the key's soft limit: after the answer's work, never failing it
  afterwards(alertsAfterSubmit(app, { payer, apiKeyId: caller.apiKeyId, now }));
  return submitted(ctx, id, 'queued', price, outcome.balance);
};
