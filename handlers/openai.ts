// The OpenAI-compatible surface: POST /v1/chat/completions (inline: the API process calls the
// provider while the client waits, streamed or not), GET /v1/models and /v1/models/{model}.
// A chat call is a prediction like any other: recorded `processing` with a hold of the most it
// can cost (Store.startInline), then settled by the usage the provider reports in one
// transaction (Store.settleInline). Errors are rendered in OpenAI's body by plugins/responses.ts.
import { PassThrough } from 'node:stream';
import type { App } from '../lib/context.ts';
import type { Config } from '../config.ts';
import { BudgetExceededError, EmbedRefusedError, OpenAIRouteError, RateLimitedError, UnavailableError, ValidationFailedError } from '../lib/errors.ts';
import type { ValidationItem } from '../lib/errors.ts';
import type { ModelInfo } from '../spec/catalog.ts';
import { countedTokens, tokensOfBytes, usagePrice } from '../spec/pricing.ts';
import type { HeldPrice, TokenUsage } from '../spec/pricing.ts';
import { newPredictionId } from '../db/predictions/record.ts';
import type { NewPrediction } from '../db/predictions/record.ts';
import { ChatUpstreamError, chatProviders, completeChat, reportedTokenCount, streamChat } from '../workers/adapters/openai-chat.ts';
import { configureHint } from '../workers/adapters/upstream-config.ts';
import { validatedInput } from './catalog.ts';
import { alertsAfterSubmit, budgetRefused, paysOwnWallet, priceFor, refuseStudioSpender, studioHides, walletAlertSettings } from './admission.ts';
import { generate } from './generate.ts';
import { predictionView } from '../lib/prediction-view.ts';
import { embedInput } from './embeds.ts';
import { generationLimits } from './policies.ts';
import { disconnectSignal, waitForTerminal } from './prediction-watch.ts';
import type { BodyOf, Handler, ModelContext, OperationContext } from './types.ts';

type ChatBody = BodyOf<'createChatCompletion'>;
/** How an inline call ended, as the store settles it (app.store.settleInline). */
type InlineOutcome = Parameters<App['store']['settleInline']>[0]['outcome'];
type InlineUsage = Extract<InlineOutcome, { status: 'completed' | 'cancelled' }>['usage'];

/** Retry-After of a call refused by a concurrency limit (as a submit's). */
const CONCURRENCY_RETRY_SECONDS = 1;

/** The request fields passed to the provider as they are (besides messages and the answer's length). */
// store, metadata and service_tier are taken and not passed on: the gateway keeps the call itself,
// and a tier the model's price does not cover is the operator's provider account's to choose
const PASSED = ['temperature', 'top_p', 'stop', 'seed', 'response_format', 'tools', 'tool_choice', 'parallel_tool_calls', 'frequency_penalty', 'presence_penalty', 'logit_bias', 'logprobs', 'top_logprobs', 'reasoning_effort', 'user'] as const;

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Where a model of another category is called, for the 400 that names it. */
function routeFor(model: ModelInfo): string {
  if (model.category === 'llm') return 'POST /v1/chat/completions';
  if (model.category === 'text-to-image') return 'POST /v1/images/generations (or POST /api/v1/' + model.operationId + ')';
  return `POST /api/v1/${model.operationId}`;
}

/** The model named by an OpenAI-compatible call, of the category the route serves. */
export function modelFor(app: App, studio: OperationContext<'createChatCompletion'>['studio'], slug: string, category: string, route: string): ModelInfo {
  const model = app.spec.models.get(slug);
  if (!model || studioHides(studio, slug)) throw new OpenAIRouteError(404, 'model_not_found', `The model \`${slug}\` does not exist on this gateway; GET /v1/models lists them.`, 'model');
  if (model.category !== category) throw new OpenAIRouteError(400, 'wrong_model_category', `The model \`${slug}\` is a ${model.category} model, not served by ${route}: use ${routeFor(model)}.`, 'model');
  return model;
}

/** The input schema's properties of a model endpoint. */
function inputProperties(app: App, model: ModelInfo): Record<string, { maximum?: unknown; default?: unknown; enum?: unknown[] }> {
  const op = app.spec.operationById.get(model.operationId);
  const schema = (op?.requestBody as { content?: Record<string, { schema?: { properties?: Record<string, { maximum?: unknown; default?: unknown; enum?: unknown[] }> } }> } | undefined)?.content?.['application/json']?.schema;
  return schema?.properties ?? {};
}

/** The longest answer the model allows: its token rule's, else its input's max_tokens maximum, else 4096. */
function answerCap(app: App, model: ModelInfo): number {
  const rule = model.price.tokens;
  if (rule && 'tokens' in rule.maxOutput) return rule.maxOutput.tokens;
  const field = rule && 'field' in rule.maxOutput ? rule.maxOutput.field : 'max_tokens';
  const max = inputProperties(app, model)[field]?.maximum;
  return typeof max === 'number' && max > 0 ? max : 4096;
}

/** Content parts a hold bounds by their UTF-8 bytes (an image part is held at the model's image_tokens). */
const BYTE_BOUNDED_PARTS: ReadonlySet<unknown> = new Set(['text', 'refusal', 'input_audio']);

/**
 * A model priced by tokens is held the most a call can cost before it runs, so every content
 * part must have a bound: text and audio their bytes, an image the model's `image_tokens`. A part
 * billed otherwise (a file, whose pages are billed as images however few bytes it has; a type the
 * gateway does not know) is refused, as is an image for a model whose price gives no
 * image_tokens: either would let a call use more than it holds, uncharged.
 */
function refuseUnboundedParts(model: ModelInfo, messages: ChatBody['messages']): void {
  const rule = model.price.tokens;
  if (!rule) return;
  const problems: ValidationItem[] = [];
  messages.forEach((m, i) => {
    if (!Array.isArray(m.content)) return;
    m.content.forEach((part, j) => {
      const type = isRecord(part) ? part.type : undefined;
      const loc = ['body', 'messages', i, 'content', j, 'type'];
      if (type === 'image_url') {
        if (rule.imageTokens === undefined) problems.push({ loc, msg: `${model.operationId} takes no image parts on this gateway; send text`, type: 'value_error' });
      } else if (!BYTE_BOUNDED_PARTS.has(type)) {
        problems.push({ loc, msg: `a content part of type ${JSON.stringify(type ?? null)} is not taken: its cost cannot be known before the call, which holds the most it can cost; send text, image_url or input_audio parts`, type: 'value_error' });
      }
    });
  });
  if (problems.length) throw new ValidationFailedError(problems);
}

/**
 * The model's input a call is priced as: the schema's defaults, the whole prompt material
 * (messages, tools, the response format) as the token rule's first prompt field (a hold counts
 * its UTF-8 bytes as tokens, and each image part as the rule's image_tokens), and the answer's
 * length as its max_tokens field.
 */
function pricedInput(app: App, model: ModelInfo, body: ChatBody, maxTokens: number): Record<string, unknown> {
  const input: Record<string, unknown> = {};
  for (const [k, p] of Object.entries(inputProperties(app, model))) if (p.default !== undefined) input[k] = p.default;
  // kept as an object (spec/pricing.ts counts its JSON's bytes, and finds its image parts)
  const prompt = { messages: body.messages, tools: body.tools, tool_choice: body.tool_choice, response_format: body.response_format };
  const rule = model.price.tokens;
  const fields = rule?.inputFields ?? ['prompt'];
  for (const f of fields) input[f] = '';
  input[fields[0]!] = prompt;
  input[rule && 'field' in rule.maxOutput ? rule.maxOutput.field : 'max_tokens'] = maxTokens;
  return input;
}

/** The provider's usage of an answer or chunk, when it reports one the gateway can record (reportedTokenCount). */
function reportedUsage(v: unknown): { inputTokens: number; outputTokens: number } | undefined {
  if (!isRecord(v)) return undefined;
  const inputTokens = reportedTokenCount(v.prompt_tokens);
  const outputTokens = reportedTokenCount(v.completion_tokens);
  return inputTokens !== undefined && outputTokens !== undefined ? { inputTokens, outputTokens } : undefined;
}

/** The usage of a call the provider did not report: its prompt's tokens as spec/pricing.ts countedTokens counts them, and the answer's (countedOutput). */
function countedUsage(input: Record<string, unknown>, model: ModelInfo, outputTokens: number): InlineUsage {
  return { inputTokens: countedTokens(model.price.tokens, input, '').inputTokens, outputTokens, source: 'counted' };
}

/**
 * The tokens of an answer the provider did not count: its UTF-8 bytes as spec/pricing.ts
 * tokensOfBytes counts them, and at least one for each chunk that carried some of it (a provider
 * streams a token at least per chunk).
 */
function countedOutput(relayed: Relayed): number {
  return Math.max(relayed.chunks, tokensOfBytes(relayed.bytes));
}

/**
 * Whether a stream has gone on longer than an answer of `maxTokens` can: more chunks than twice
 * its tokens (a provider streams at most a chunk a token, and a few around the answer: its role,
 * its finish, its usage), or more bytes relayed than 256 a token (far past the longest token,
 * with a tool call's JSON around it). A provider that ignores max_tokens, or that sends chunks of
 * nothing without end, would otherwise stream forever, each chunk restarting its wait: relayed
 * past what the call holds and so uncharged, its row kept alive for as long as it goes on.
 */
function pastAnswerBound(chunks: number, relayed: Relayed, maxTokens: number): boolean {
  return chunks > 2 * maxTokens + 64 || relayed.bytes > 256 * maxTokens + 1024 * 1024;
}

/** What a stream relayed of its answer: its bytes (content, reasoning, refusal, tool calls) and the chunks that carried them. */
interface Relayed {
  bytes: number;
  chunks: number;
}

/** The answer's bytes a chunk's delta (or a whole answer's message) carries: every field but its role (a tool call or another structured field as its JSON). */
function deltaBytes(delta: Record<string, unknown>): number {
  let bytes = 0;
  for (const [k, v] of Object.entries(delta)) {
    if (k === 'role' || v === null || v === undefined) continue;
    bytes += Buffer.byteLength(typeof v === 'string' ? v : JSON.stringify(v), 'utf8');
  }
  return bytes;
}

/**
 * A stream's usage when it ends. The provider's report of the whole answer (its usage chunk, or a
 * usage sent with or after the answer's finish_reason) is taken as it is. A stream that stopped
 * before it (the client left, or its owner cancelled it) is charged what it relayed: the prompt as
 * the provider reported it (else counted), and the answer as the provider reported it so far or as
 * counted from what was relayed (countedOutput), whichever is more, so that a report sent early
 * (the prompt's tokens before any answer) never makes the rest free. A completed stream the
 * provider never reported is counted the same way.
 */
function streamUsage(input: Record<string, unknown>, model: ModelInfo, reported: { final?: InlineUsage; latest?: InlineUsage }, relayed: Relayed, complete: boolean): InlineUsage {
  if (reported.final) return reported.final;
  const output = countedOutput(relayed);
  const latest = reported.latest;
  if (latest && (complete || latest.outputTokens >= output)) return latest;
  if (latest) return { inputTokens: latest.inputTokens, outputTokens: output, source: 'counted' };
  return countedUsage(input, model, output);
}

/** A provider's failure as the caller's error: its refusal of the input 400, a timeout 504, anything else 502. */
function upstreamRefusal(err: ChatUpstreamError): OpenAIRouteError {
  if (err.code === 'upstream_timeout') return new OpenAIRouteError(504, 'upstream_timeout', `${err.message}; nothing was charged`);
  if (err.code === 'upstream_rejected_input') return new OpenAIRouteError(400, 'upstream_failed', `${err.message}; nothing was charged`, typeof err.upstreamError?.param === 'string' ? err.upstreamError.param : null);
  return new OpenAIRouteError(502, 'upstream_failed', `${err.message}; nothing was charged`);
}

/** The providers of a chat model that get their whole CHAT_UPSTREAM_TIMEOUT_MS each; a third and later share what is left. */
const CHAT_PROVIDERS_WAITED = 2;

/** The longest a chat call waits for its answer or first chunk, across failover: its route answers within this and 30 s more (handlers/index.ts longestWaitMs). */
export const chatWaitMs = (config: Pick<Config, 'chatUpstreamTimeoutMs'>) => CHAT_PROVIDERS_WAITED * config.chatUpstreamTimeoutMs;

/**
 * How often a stream touches its row while chunks come (Store.touchInline): the sweeper fails an
 * inline call only once it has been silent for INLINE_ABANDONED_AFTER_MS (30 min, workers/
 * dispatch.ts), and a live stream is silent at most this plus one wait for a chunk (at most 2 x
 * CHAT_UPSTREAM_TIMEOUT_MS before the first, CHAT_UPSTREAM_TIMEOUT_MS between two: 20 and 10 min
 * at most), so a stream of any length is never taken for abandoned while it runs.
 */
export const INLINE_TOUCH_MS = 60_000;

/**
 * The header of an error whose prediction lives on (still running, or completed and charged): the
 * OpenAI SDKs retry a 5xx by default, and each retry would submit, and charge, the images again.
 * The SDKs obey it over the status (openai-node's and openai-python's shouldRetry).
 */
const DO_NOT_RETRY = { 'x-should-retry': 'false' };

/** The longest POST /v1/images/generations spends reading its images back for `b64_json`, all of them together. */
export const IMAGES_READ_MS = 20_000;

/** The mock answer of a sandbox key. */
const SANDBOX_TEXT = 'This is a sandbox completion: sandbox keys answer instantly with this text, free of charge. Use a live key for the model\'s own answer.';

function completionObject(id: string, slug: string, created: number, text: string, usage: { inputTokens: number; outputTokens: number }) {
  return {
    id, object: 'chat.completion' as const, created, model: slug, system_fingerprint: null,
    choices: [{ index: 0, message: { role: 'assistant', content: text, refusal: null }, logprobs: null, finish_reason: 'stop' }],
    usage: { prompt_tokens: usage.inputTokens, completion_tokens: usage.outputTokens, total_tokens: usage.inputTokens + usage.outputTokens },
  };
}

/** An event-stream response body: each event is written as it comes (eventHeaders keeps it uncompressed). */
function eventStream(): { stream: PassThrough; send(data: string): void } {
  const stream = new PassThrough();
  return {
    stream,
    send(data: string) {
      if (stream.writableEnded || stream.destroyed) return;
      stream.write(`data: ${data}\n\n`);
    },
  };
}

function chunkObject(id: string, slug: string, created: number, delta: Record<string, unknown>, finish: string | null, usage?: unknown) {
  return { id, object: 'chat.completion.chunk', created, model: slug, system_fingerprint: null, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }], ...(usage !== undefined ? { usage } : {}) };
}

/** The last chunk of a stream that asked for its usage (stream_options.include_usage): no choices, the usage. */
function usageChunkObject(id: string, slug: string, created: number, usage: TokenUsage) {
  return {
    id, object: 'chat.completion.chunk', created, model: slug, system_fingerprint: null, choices: [],
    usage: { prompt_tokens: usage.inputTokens, completion_tokens: usage.outputTokens, total_tokens: usage.inputTokens + usage.outputTokens },
  };
}

/**
 * The event stream's answer. Never compressed (hapi leaves an encoded response alone): gzip would
 * flush once per event, each a trip through zlib's thread pool on both ends, which delayed the
 * first token by 3-4 ms on the loaded benchmark machine and cost more CPU than the relay itself
 * (test/bench/stream-stages.ts).
 * No proxy buffering either: each event goes out as written.
 */
function eventHeaders(h: OperationContext<'createChatCompletion'>['h'], stream: PassThrough, predictionId: string) {
  return h.response(stream).type('text/event-stream; charset=utf-8').header('Cache-Control', 'no-cache').header('Content-Encoding', 'identity').header('X-Accel-Buffering', 'no').header('X-Prediction-Id', predictionId);
}

export const createChatCompletion: Handler<'createChatCompletion'> = async ({ app, caller, body, request, h, studio }) => {
  const model = modelFor(app, studio, body.model, 'llm', 'POST /v1/chat/completions');
  refuseUnboundedParts(model, body.messages);
  // a team's owner_pays studio: a member of the team needs `generate`, as with team_id
  await refuseStudioSpender(app, caller, studio);
  const cap = answerCap(app, model);
  const asked = [body.max_tokens, body.max_completion_tokens].filter((n): n is number => typeof n === 'number');
  const maxTokens = asked.length ? Math.min(...asked) : cap;
  if (maxTokens > cap) {
    throw new ValidationFailedError([{ loc: ['body', body.max_tokens === maxTokens ? 'max_tokens' : 'max_completion_tokens'], msg: `at most ${cap} tokens for ${model.operationId}`, type: 'less_than_equal' }]);
  }
  const now = app.clock();
  const id = newPredictionId(now);
  const completionId = `chatcmpl-${id}`;
  const created = Math.floor(now / 1000);
  const stream = body.stream === true;
  const includeUsage = stream && body.stream_options?.include_usage === true;
  const input: Record<string, unknown> = { ...body };
  // an embed code's visitor (plugins/credentials.ts checked the code's model, origin and input rules)
  const { embed } = caller;
  const base = {
    id, userId: caller.owner.userId, teamId: caller.owner.teamId, apiKeyId: caller.apiKeyId, model: model.operationId, input, webhookUrl: null,
    httpRequestId: request.app.requestId ?? null, source: embed ? embed.kind : studio ? 'studio' as const : caller.via === 'session' ? 'dashboard' as const : 'api' as const,
    ...(embed ? { embedCodeId: embed.codeId, embedVisitor: embed.visitorHash } : {}),
    ...(studio ? { studioId: studio.id } : {}),
  };

  if (caller.isTest) {
    // README "Sandbox": an instant mock answer, recorded completed and free
    await app.store.insertSandbox({ p: base, outputs: [], now });
    app.metrics.predictions.inc({ model: model.operationId, outcome: 'sandbox' });
    const usage = { inputTokens: 0, outputTokens: SANDBOX_TEXT.split(' ').length };
    if (!stream) return h.response(completionObject(completionId, body.model, created, SANDBOX_TEXT, usage)).header('X-Prediction-Id', id).header('X-Sandbox', 'true');
    const events = eventStream();
    events.send(JSON.stringify(chunkObject(completionId, body.model, created, { role: 'assistant', content: '' }, null, includeUsage ? null : undefined)));
    for (const word of SANDBOX_TEXT.split(/(?<= )/)) events.send(JSON.stringify(chunkObject(completionId, body.model, created, { content: word }, null, includeUsage ? null : undefined)));
    events.send(JSON.stringify(chunkObject(completionId, body.model, created, {}, 'stop', includeUsage ? null : undefined)));
    if (includeUsage) events.send(JSON.stringify(usageChunkObject(completionId, body.model, created, usage)));
    events.send('[DONE]');
    events.stream.end();
    return eventHeaders(h, events.stream, id).header('X-Sandbox', 'true');
  }

  const providers = chatProviders(app.adapterEnv, model);
  if (providers.length === 0) {
    const env = model.providers.map((p) => configureHint(p.upstream ?? '')).join(' or ');
    throw new UnavailableError(`${model.operationId} is not available on this gateway: no provider of it is configured (operator: set ${env}); sandbox keys still work`);
  }
  const priced = pricedInput(app, model, body, maxTokens);
  // held at the studio's price (its markup within it, paid out to its owner when the call settles)
  const held: HeldPrice = await priceFor(app, caller.owner, model, priced, studio, caller);
  const { price, listPrice, discountPercent, studioMarkup } = held;
  const limits = generationLimits(app.config.generateRateLimit, caller);
  const p: NewPrediction = {
    ...base, price, listPrice, discountPercent,
    ...(studio ? (studio.payerMode === 'owner_pays' ? { payer: { userId: studio.userId, teamId: studio.teamId } } : { studioMarkup }) : {}),
  };
  // an embed code's caps, as on the model's own endpoint (handlers/generate.ts): its cost per call
  // now, its spend caps and calls at once under the code's row lock with the hold
  if (embed && embed.maxCostPerRun !== null && price > embed.maxCostPerRun) {
    throw new EmbedRefusedError(402, 'embed_cost_cap_exceeded', `this call may cost up to ${price} credits, more than this embed code allows per call (${embed.maxCostPerRun}): ask for fewer max_tokens`);
  }
  const embedLimits = embed ? { embed: { codeId: embed.codeId, dailyCap: embed.dailyCap, monthlyCap: embed.monthlyCap, maxConcurrent: embed.maxConcurrent } } : {};
  // the paying wallet's hard monthly budget (402 budget_exceeded), checked with the hold, as on the model's own endpoint
  const payer = p.payer ?? caller.owner;
  const alerts = await walletAlertSettings(app, payer);
  const hardBudget = alerts !== undefined && alerts.monthlyBudget !== null && alerts.monthlyBudgetHard;
  const outcome = await app.store.startInline({
    p, now, limits: { perKey: limits.concurrentPerKey, perAccount: limits.concurrentPerAccount }, keySpendLimited: caller.keySpendLimited === true,
    ...(hardBudget ? { hardBudget } : {}), ...embedLimits,
  });
  const afterwards = (work: Promise<void>) => { work.catch((err: unknown) => app.log.warn({ err, predictionId: id }, 'alerts: a crossing could not be checked')); };
  if (!outcome.accepted && outcome.scope === 'budget') {
    afterwards(budgetRefused(app, payer, outcome.limit, now));
    // the budget and the arithmetic only to the wallet's own caller, not a studio's user or an embed's visitor
    throw new BudgetExceededError(paysOwnWallet(caller, payer) ? { price, budget: outcome.limit } : null);
  }
  if (!outcome.accepted) {
    if (outcome.scope === 'embed-daily') throw new EmbedRefusedError(402, 'embed_daily_cap_reached', 'this embed code has reached its daily spending cap; try again tomorrow (UTC)');
    if (outcome.scope === 'embed-monthly') throw new EmbedRefusedError(402, 'embed_monthly_cap_reached', 'this embed code has reached its monthly spending cap');
    const who = outcome.scope === 'key' ? 'this API key' : outcome.scope === 'embed' ? 'this embed code' : 'this account';
    throw new RateLimitedError(`${who} already has ${outcome.limit} unfinished predictions, the most it may have at once; retry when one finishes`, CONCURRENCY_RETRY_SECONDS);
  }
  app.metrics.predictions.inc({ model: model.operationId, outcome: 'submitted' });
  // low balance, monthly budget, the key's soft limit: as after a submit, never failing the call
  afterwards(alertsAfterSubmit(app, { payer, apiKeyId: caller.apiKeyId, now }));

  const upstreamBody: Record<string, unknown> = { messages: body.messages, max_tokens: maxTokens };
  for (const k of PASSED) if (body[k] !== undefined && body[k] !== null) upstreamBody[k] = body[k];
  const started = performance.now();
  const settle = (o: InlineOutcome) => app.store.settleInline({ p, outcome: o, now: app.clock() }).catch((err: unknown) => {
    // the sweeper fails it later (failAbandonedInline), releasing the hold
    app.log.error({ err, predictionId: id }, 'an inline call could not be settled');
  });
  const failed = (err: unknown) => {
    const e = err instanceof ChatUpstreamError ? err : new ChatUpstreamError(String((err as Error).message), 'upstream_failed');
    return settle({ status: 'failed', error: e.code === 'cancelled' ? 'the client closed the connection before the answer' : e.message, code: e.code === 'cancelled' ? 'client_closed' : e.code, inferenceMs: performance.now() - started });
  };
  const client = disconnectSignal(request);
  const opts = {
    signal: client.signal, timeoutMs: app.config.chatUpstreamTimeoutMs, totalMs: chatWaitMs(app.config),
    warn: (fields: Record<string, unknown>, message: string) => app.log.warn({ ...fields, predictionId: id }, message),
  };

  if (!stream) {
    try {
      const { body: answer } = await completeChat(providers, upstreamBody, opts);
      const choice = Array.isArray(answer.choices) && isRecord(answer.choices[0]) ? answer.choices[0] : {};
      const message = isRecord(choice.message) ? choice.message : {};
      const text = typeof message.content === 'string' ? message.content : Array.isArray(message.tool_calls) ? JSON.stringify(message.tool_calls) : '';
      const reported = reportedUsage(answer.usage);
      // unreported, the answer is counted whole as a stream's is (deltaBytes): its text, tool calls, reasoning and any other field
      const usage: InlineUsage = reported ? { ...reported, source: 'reported' } : countedUsage(priced, model, tokensOfBytes(deltaBytes(message)));
      const { charge, listCharge, studioMarkup: markup } = usagePrice(model.price, priced, usage, held);
      await settle({ status: 'completed', charge, listCharge, studioMarkup: markup, usage, text, inferenceMs: performance.now() - started });
      const reply = { ...answer, id: completionId, object: 'chat.completion' as const, created, model: body.model, usage: { prompt_tokens: usage.inputTokens, completion_tokens: usage.outputTokens, total_tokens: usage.inputTokens + usage.outputTokens } };
      return h.response(reply).header('X-Prediction-Id', id);
    } catch (err) {
      await failed(err);
      throw err instanceof ChatUpstreamError ? upstreamRefusal(err) : err;
    } finally {
      client.dispose();
    }
  }

  // Streamed: an error before the first chunk is still an HTTP error; after it, an error event.
  let upstream;
  try {
    upstream = await streamChat(providers, upstreamBody, opts);
  } catch (err) {
    client.dispose();
    await failed(err);
    throw err instanceof ChatUpstreamError ? upstreamRefusal(err) : err;
  }
  const events = eventStream();
  const relay = async () => {
    let text = '';
    const relayed: Relayed = { bytes: 0, chunks: 0 };
    // the provider's usage: its last report, and its report of the whole answer (with or after the finish_reason)
    const reported: { final?: InlineUsage; latest?: InlineUsage } = {};
    let finished = false;
    // every chunk the provider sent, relayed or not
    let chunks = 0;
    // the provider went on past max_tokens (pastAnswerBound): the stream was cut off there
    let cut = false;
    // `ended`: the row stopped being processing behind the stream (cancelled, or failed for lost)
    let end: 'completed' | 'cancelled' | 'ended' | ChatUpstreamError = 'completed';
    let touchedAt = now;
    try {
      for await (const chunk of upstream.chunks) {
        // this chunk and any after it are more than the answer can be: not relayed, the provider's call stopped
        if (pastAnswerBound(++chunks, relayed, maxTokens)) {
          opts.warn({ provider: upstream.provider.name, maxTokens, chunks, bytes: relayed.bytes }, `the chat provider "${upstream.provider.name}" streamed past the answer's max_tokens (${maxTokens}): the stream was cut off`);
          cut = true;
          break;
        }
        // A stream has no time bound (each chunk has its own wait), only pastAnswerBound's length:
        // it keeps its row alive for the sweeper as it goes, so that a long answer is settled by
        // its usage like any other, never failed for lost with its hold released under it. A row no longer processing
        // holds nothing any more: nothing more is relayed (its provider's call stops).
        if (app.clock() - touchedAt >= INLINE_TOUCH_MS) {
          touchedAt = app.clock();
          const alive = await app.store.touchInline(id, touchedAt).catch((err: unknown) => {
            app.log.warn({ err, predictionId: id }, 'an inline stream could not touch its row');
            return true;
          });
          if (!alive) {
            end = 'ended';
            break;
          }
        }
        const choices = Array.isArray(chunk.choices) ? chunk.choices : [];
        let carried = 0;
        for (const c of choices) {
          if (!isRecord(c)) continue;
          const delta = isRecord(c.delta) ? c.delta : {};
          if (typeof delta.content === 'string') text += delta.content;
          if (Array.isArray(delta.tool_calls)) text += JSON.stringify(delta.tool_calls);
          carried += deltaBytes(delta);
          if (typeof c.finish_reason === 'string') finished = true;
        }
        const usage = reportedUsage(chunk.usage);
        if (usage) {
          reported.latest = { ...usage, source: 'reported' };
          if (finished || choices.length === 0) reported.final = reported.latest;
        }
        // the usage chunk (choices: []) only when the client asked for it; `usage: null` on the others likewise
        if (choices.length === 0 && !includeUsage) continue;
        const out: Record<string, unknown> = { ...chunk, id: completionId, model: body.model, created };
        if (includeUsage) out.usage = reportedUsage(chunk.usage) ? chunk.usage : null;
        else delete out.usage;
        events.send(JSON.stringify(out));
        if (carried > 0) {
          relayed.bytes += carried;
          relayed.chunks++;
        }
      }
      if (client.signal.aborted && end === 'completed') end = 'cancelled';
    } catch (err) {
      end = client.signal.aborted || (err instanceof ChatUpstreamError && err.code === 'cancelled') ? 'cancelled'
        : err instanceof ChatUpstreamError ? err : new ChatUpstreamError(String((err as Error).message), 'upstream_failed');
    }
    if (end instanceof ChatUpstreamError) {
      const refusal = upstreamRefusal(end);
      events.send(JSON.stringify({ error: { message: refusal.message, type: 'api_error', code: refusal.code, param: null } }));
      await failed(end);
    } else {
      const counted = streamUsage(priced, model, reported, relayed, end === 'completed' && !cut);
      const { charge, listCharge, studioMarkup: markup } = usagePrice(model.price, priced, counted, held);
      const price = { charge, listCharge, studioMarkup: markup, usage: counted, text, inferenceMs: performance.now() - started };
      if (end === 'ended') {
        // Its owner cancelled it (its hold waits for this settle: charged what was relayed until
        // now, the rest released), or the sweeper gave it up for lost (settled then: nothing moves).
        events.send(JSON.stringify({ error: { message: `the prediction ${id} was ended before its answer was complete (cancelled, or given up by the gateway); nothing more is relayed`, type: 'api_error', code: 'call_ended', param: null } }));
        await settle({ status: 'cancelled', ...price, error: 'cancelled while its answer was streamed: charged for the answer relayed until the stream stopped', code: 'cancelled' });
      } else if (end === 'cancelled') {
        await settle({ status: 'cancelled', ...price, error: 'the client closed the connection before the answer was complete: charged for the answer relayed until then', code: 'client_closed' });
      } else {
        // cut off at max_tokens, as OpenAI ends an answer that reaches it
        if (cut && !finished) events.send(JSON.stringify(chunkObject(completionId, body.model, created, {}, 'length', includeUsage ? null : undefined)));
        // asked for the usage and the provider reported none for the whole answer: the tokens it is charged, as OpenAI's last chunk
        if (includeUsage && !reported.final) events.send(JSON.stringify(usageChunkObject(completionId, body.model, created, counted)));
        events.send('[DONE]');
        await settle({ status: 'completed', ...price });
      }
    }
    // The response ends once the call is settled, as a non-streamed call is answered after its
    // settle: what the client reads next (its balance, the run history) includes this call, and
    // its next call does not wait on this settle (the wallet's row lock; SQLite's one connection)
    // inside its own time to first token. The last event, [DONE], has gone out before it.
    events.stream.end();
    client.dispose();
  };
  void relay();
  return eventHeaders(h, events.stream, id);
};

// ============================================================
// POST /v1/images/generations
// ============================================================

/** The ratios an OpenAI `size` maps to for a model that takes an aspect ratio and lists none: the ones every image provider of the catalog takes. */
const COMMON_ASPECTS = ['1:1', '16:9', '9:16', '4:3', '3:4', '3:2', '2:3', '5:4', '4:5', '21:9', '9:21'];

/**
 * The aspect ratio closest to `width`x`height` (by the logarithm of the ratio, so 2:1 is as far
 * from 1:1 as 1:2) among those the model's `aspect_ratio` field lists, or the common ones. An
 * OpenAI client sends a size (1024x1024, 1792x1024, 1536x1024); such a model takes a ratio.
 */
function nearestAspect(width: number, height: number, field: { enum?: unknown[] }): string {
  const listed = (field.enum ?? COMMON_ASPECTS).filter((v): v is string => typeof v === 'string' && /^[0-9]+:[0-9]+$/.test(v));
  const log = (r: string) => { const [w, h] = r.split(':').map(Number) as [number, number]; return Math.log(w / h); };
  const wanted = Math.log(width / height);
  return listed.reduce((best, r) => (Math.abs(log(r) - wanted) < Math.abs(log(best) - wanted) ? r : best));
}

/**
 * A text-to-image model's prediction, submitted as its own endpoint would (generate: the hold, the
 * queue, sandbox keys), then waited for as `Prefer: wait` waits, up to IMAGES_WAIT_MS.
 */
export const createImage: Handler<'createImage'> = async ({ app, caller, body, request, h, studio, query }) => {
  const model = modelFor(app, studio, body.model, 'text-to-image', 'POST /v1/images/generations');
  const props = inputProperties(app, model);
  const input: Record<string, unknown> = { prompt: body.prompt };
  if (typeof body.n === 'number') {
    if (!props.num_images) throw new ValidationFailedError([{ loc: ['body', 'n'], msg: `${model.operationId} makes one image per request`, type: 'value_error' }]);
    input.num_images = body.n;
  }
  if (typeof body.size === 'string' && body.size !== 'auto') {
    const [width, height] = body.size.split('x').map(Number) as [number, number];
    if (props.width && props.height) Object.assign(input, { width, height });
    else if (props.aspect_ratio) input.aspect_ratio = nearestAspect(width, height, props.aspect_ratio);
    else throw new ValidationFailedError([{ loc: ['body', 'size'], msg: `${model.operationId} takes no size`, type: 'value_error' }]);
  }
  // an embed code's input rules (its preset, locked and allowed fields), as on the model's own endpoint
  const code = request.app.embedCode;
  const validated = validatedInput(app, model, code ? embedInput(app, code, model.operationId, input) : input, ['body']);
  const submitted = await generate({
    app, request, h, operationId: model.operationId as ModelContext['operationId'], params: {}, query: query.team_id === undefined ? {} : { team_id: query.team_id },
    body: validated, caller, model, ...(studio ? { studio } : {}),
    // the wait is this route's own, below (a `Prefer: wait` would have answered the result instead of the id)
    answerAtOnce: true,
  });
  const id = (submitted as { source?: { request_id?: string } }).source?.request_id;
  if (typeof id !== 'string') throw new Error('the submit answered no request id');
  const client = disconnectSignal(request);
  let done;
  try {
    done = await waitForTerminal(app, caller.owner, id, app.config.imagesWaitMs, client.signal);
  } finally {
    client.dispose();
  }
  if (!done) throw new OpenAIRouteError(504, 'upstream_timeout', `The images are not ready after ${Math.round(app.config.imagesWaitMs / 1000)} s; the prediction ${id} keeps running: poll GET /api/v1/predictions/${id}/result.`, null, DO_NOT_RETRY);
  if (done.status !== 'completed') throw new OpenAIRouteError(502, 'upstream_failed', `The prediction ${id} ${done.status}: ${done.error ?? 'no images'}; nothing was charged.`);
  const urls = predictionView(app, done).outputs ?? [];
  const data = [];
  const reading = body.response_format === 'b64_json' ? disconnectSignal(request) : undefined;
  try {
    const signal = reading && AbortSignal.any([reading.signal, AbortSignal.timeout(IMAGES_READ_MS)]);
    for (const url of urls) {
      if (!signal) {
        data.push({ url });
        continue;
      }
      const unread = (why: string) => new OpenAIRouteError(502, 'upstream_failed', `The image of prediction ${id} could not be read back (${why}); its URL is in GET /api/v1/predictions/${id}/result.`, null, DO_NOT_RETRY);
      // the gateway's own address of the file (local files or the bucket's presigned redirect)
      let bytes: ArrayBuffer;
      try {
        const res = await fetch(url, { signal });
        if (!res.ok) throw unread(`HTTP ${res.status}`);
        bytes = await res.arrayBuffer();
      } catch (err) {
        if (err instanceof OpenAIRouteError) throw err;
        throw unread(signal.aborted && !reading.signal.aborted ? `not within ${IMAGES_READ_MS / 1000} s` : 'the transfer failed');
      }
      data.push({ b64_json: Buffer.from(bytes).toString('base64') });
    }
  } finally {
    reading?.dispose();
  }
  return h.response({ created: Math.floor(done.createdAt / 1000), data }).header('X-Prediction-Id', id);
};

// ============================================================
// GET /v1/models, /v1/models/{model}
// ============================================================

/** When this gateway loaded its catalog: every model's `created` (OpenAI's field is required; the catalog keeps no dates). */
const LOADED_AT = Math.floor(Date.now() / 1000);

function openAIModel(model: ModelInfo) {
  return { id: model.operationId, object: 'model' as const, created: LOADED_AT, owned_by: model.family, category: model.category };
}

export const listOpenAIModels: Handler<'listOpenAIModels'> = async ({ app, studio }) => ({
  object: 'list',
  data: [...app.spec.models.values()].filter((m) => !studioHides(studio, m.operationId)).map(openAIModel),
});

export const getOpenAIModel: Handler<'getOpenAIModel'> = async ({ app, params, studio }) => {
  const model = app.spec.models.get(params.model);
  if (!model || studioHides(studio, params.model)) throw new OpenAIRouteError(404, 'model_not_found', `The model \`${params.model}\` does not exist on this gateway; GET /v1/models lists them.`, 'model');
  return openAIModel(model);
};
