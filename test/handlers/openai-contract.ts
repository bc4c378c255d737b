// The OpenAI-compatible surface through the official `openai` npm client, against a gateway
// listening on a real port whose `openai` provider is a real local server speaking OpenAI's API
// (test/helpers/openai-upstream.ts). Registered once per database engine (openai-sqlite.test.ts,
// openai-mariadb.test.ts). The ledger is checked after every test.
import test from 'ava';
import type { ExecutionContext } from 'ava';
import OpenAI from 'openai';
import { newAccount, startGateway } from '../helpers/gateway.ts';
import type { Account, TestGateway } from '../helpers/gateway.ts';
import { ledgerCheckedAfterEach } from '../helpers/ledger.ts';
import { freePort } from '../helpers/processes.ts';
import { uniqueName, waitFor } from '../helpers/services.ts';
import { callOperation } from '../helpers/operation.ts';
import { creditWallet } from '../../db/wallet/moves.ts';
import { ANSWER, startFakeOpenAI, USAGE } from '../helpers/openai-upstream.ts';
import type { FakeOpenAI } from '../helpers/openai-upstream.ts';
import { findPredictionById } from '../../db/predictions/record.ts';
import { INLINE_ABANDONED_AFTER_MS } from '../../workers/dispatch.ts';
import { INLINE_TOUCH_MS } from '../../handlers/openai.ts';

const CHAT = 'lexi-v1-balanced-chat';
/** lexi-v1's token price: 225 credits per million input tokens, 900 per million output tokens */
const chargeOf = (input: number, output: number) => Math.ceil((input * 225 + output * 900) / 1_000_000);

/** The gateway's own key at the provider: never shown to a caller. */
const PROVIDER_KEY = 'sk-provider-secret-0123456789';

export function openAIContract(db: 'sqlite' | 'mysql'): void {
  let gw: TestGateway;
  let base = '';
  let fake: FakeOpenAI;
  /** how far the gateway's clock is ahead of the real one (a test that moves time resets it) */
  let skew = 0;

  test.before(async () => {
    fake = await startFakeOpenAI();
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    gw = await startGateway({
      db, queue: 'memory', worker: true, clock: () => Date.now() + skew,
      env: { PORT: String(port), HOST: '127.0.0.1', PUBLIC_URL: base, UPSTREAM_OPENAI_URL: fake.url, UPSTREAM_OPENAI_KEY: PROVIDER_KEY, CHAT_UPSTREAM_TIMEOUT_MS: '1500', UPSTREAM_ALLOW_PRIVATE_OUTPUTS: 'true' },
    });
    await gw.server.start();
  });
  test.after.always(async () => {
    await gw?.stop();
    await fake?.close();
  });
  ledgerCheckedAfterEach(test, () => gw?.app.db);

  const client = (key: string) => new OpenAI({ apiKey: key, baseURL: `${base}/v1`, maxRetries: 0 });
  const wallet = async (userId: number) => {
    const row = await gw.app.db('users').where({ id: userId }).first<{ balance: unknown; held: unknown }>('balance', 'held');
    return { balance: Number(row.balance), held: Number(row.held) };
  };
  const usageRow = (id: string) => gw.app.db('prediction_usage').where({ prediction_id: id }).first();
  const account = async (t: ExecutionContext, credit = 1000): Promise<Account> => {
    fake.mode = 'ok';
    fake.usage = undefined;
    t.teardown(() => {
      fake.mode = 'ok';
      fake.usage = undefined;
      fake.reasoning = undefined;
      fake.endlessWord = 'la ';
      fake.endlessEarlyUsage = false;
    });
    return newAccount(gw, credit);
  };

  test.serial(`${db}: a chat completion answers OpenAI's object with usage, passes the options through, is recorded and charged the usage's price`, async (t) => {
    const acct = await account(t);
    const before = fake.requests.length;
    const { data, response } = await client(acct.liveKey).chat.completions.create({
      model: CHAT, messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'Name the primary colours.' }],
      max_tokens: 50, temperature: 0.2, top_p: 0.9, stop: ['\n\n'], seed: 7, user: 'end-user-1', response_format: { type: 'text' },
    }).withResponse();
    t.is(data.object, 'chat.completion');
    t.is(data.model, CHAT);
    t.is(data.choices[0]!.message.content, ANSWER);
    t.deepEqual(data.usage, USAGE);
    const id = response.headers.get('x-prediction-id')!;
    t.is(data.id, `chatcmpl-${id}`);
    t.truthy(response.headers.get('x-request-id'), 'the request id to look the call up');
    const sent = fake.requests[before]!;
    t.like(sent, { model: 'gpt-4o-mini', max_tokens: 50, temperature: 0.2, top_p: 0.9, seed: 7, user: 'end-user-1', stream: false });
    t.deepEqual(sent.stop, ['\n\n']);
    t.deepEqual(sent.response_format, { type: 'text' });
    const charge = chargeOf(USAGE.prompt_tokens, USAGE.completion_tokens);
    t.deepEqual(await wallet(acct.userId), { balance: 1000 - charge, held: 0 });
    t.like(await findPredictionById(gw.app.db, id), { status: 'completed', price: charge, model: CHAT, apiKeyId: (await gw.app.db('api_keys').where({ user_id: acct.userId, is_test: false }).first()).id });
    t.like(await usageRow(id), { input_tokens: 11, output_tokens: 4, usage_source: 'reported', output_text: ANSWER });
    t.deepEqual((await findPredictionById(gw.app.db, id))!.input.messages, [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'Name the primary colours.' }]);
    // the run history's detail: input messages, output text, tokens, cost, status, timings
    const detail = await gw.server.inject({ method: 'GET', url: `/app/prediction_response/${id}`, headers: { authorization: `Bearer ${acct.session}` } });
    t.is(detail.statusCode, 200);
    t.like(detail.result as object, { status: 'completed', cost: charge, output_text: ANSWER, tokens: { input: 11, output: 4, source: 'reported' } });
    t.truthy((detail.result as { started_at: unknown; completed_at: unknown }).completed_at);
    t.deepEqual(((detail.result as { input: { messages: unknown } }).input.messages as unknown[]).length, 2);
  });

  test.serial(`${db}: a streamed chat completion relays chat.completion.chunk events uncompressed, ends with usage when asked, and is charged the usage's price by the time it ends`, async (t) => {
    const acct = await account(t);
    const { data: stream, response } = await client(acct.liveKey).chat.completions.create(
      { model: CHAT, messages: [{ role: 'user', content: 'Colours?' }], stream: true, stream_options: { include_usage: true } },
      { headers: { 'accept-encoding': 'gzip, deflate' } },
    ).withResponse();
    t.regex(response.headers.get('content-type') ?? '', /^text\/event-stream\b/);
    t.not(response.headers.get('content-encoding'), 'gzip', 'each event reaches the client as written, never held in a compressor');
    let text = '';
    let usage: unknown;
    const ids = new Set<string>();
    for await (const chunk of stream) {
      t.is(chunk.object, 'chat.completion.chunk');
      t.is(chunk.model, CHAT);
      ids.add(chunk.id);
      text += chunk.choices[0]?.delta.content ?? '';
      if (chunk.usage) usage = chunk.usage;
    }
    t.is(text, ANSWER);
    t.deepEqual(usage, USAGE);
    t.is(ids.size, 1);
    const id = [...ids][0]!.replace('chatcmpl-', '');
    t.is(response.headers.get('x-prediction-id'), id);
    const charge = chargeOf(USAGE.prompt_tokens, USAGE.completion_tokens);
    // the stream ends once the call is settled, as a non-streamed answer comes after its settle
    t.like(await findPredictionById(gw.app.db, id), { status: 'completed', price: charge });
    t.deepEqual(await wallet(acct.userId), { balance: 1000 - charge, held: 0 });
    t.like(await usageRow(id), { input_tokens: 11, output_tokens: 4, output_text: ANSWER });
    // without include_usage no chunk carries usage
    const plain = await client(acct.liveKey).chat.completions.create({ model: CHAT, messages: [{ role: 'user', content: 'Colours?' }], stream: true });
    let withUsage = 0;
    for await (const chunk of plain) if (chunk.usage) withUsage++;
    t.is(withUsage, 0);
    await waitFor(async () => (await wallet(acct.userId)).held === 0);
  });

  test.serial(`${db}: an image part is held at the most the model bills for an image, so a call is charged the image's tokens; a part whose cost cannot be bounded before the call is refused`, async (t) => {
    const acct = await account(t);
    // what gpt-4o-mini bills for one image in high detail: far more tokens than its URL has bytes
    fake.usage = { prompt_tokens: 30_000, completion_tokens: 4, total_tokens: 30_004 };
    const before = fake.requests.length;
    const image = { type: 'image_url' as const, image_url: { url: 'https://img.example/a.png' } };
    const { response } = await client(acct.liveKey).chat.completions.create({
      model: CHAT, max_tokens: 5, messages: [{ role: 'user', content: [{ type: 'text', text: 'What is this?' }, image] }],
    }).withResponse();
    const id = response.headers.get('x-prediction-id')!;
    t.deepEqual((fake.requests[before]!.messages as Array<{ content: unknown }>)[0]!.content, [{ type: 'text', text: 'What is this?' }, image], 'the parts reach the provider as sent');
    const charge = chargeOf(30_000, 4);
    t.true(await holdOf(id) >= charge, `held ${await holdOf(id)}, at least the ${charge} the image's tokens cost`);
    t.like(await findPredictionById(gw.app.db, id), { status: 'completed', price: charge });
    t.deepEqual(await wallet(acct.userId), { balance: 1000 - charge, held: 0 });
    // a PDF's pages are billed as images, however few bytes the file has: no hold can be sized for it
    const file = await t.throwsAsync(client(acct.liveKey).chat.completions.create({
      model: CHAT, messages: [{ role: 'user', content: [{ type: 'file', file: { filename: 'a.pdf', file_data: 'data:application/pdf;base64,JVBERi0xLjQ=' } }] }],
    }), { instanceOf: OpenAI.BadRequestError });
    t.like(file?.error, { type: 'invalid_request_error', code: 'validation_failed', param: 'messages.0.content.0.type' });
    t.is(fake.requests.length, before + 1, 'the refused call reached no provider');
    t.deepEqual(await wallet(acct.userId), { balance: 1000 - charge, held: 0 }, 'and held nothing');
  });

  test.serial(`${db}: a stream asked for its usage ends with a usage chunk even when the provider reports none: the tokens it was charged`, async (t) => {
    const acct = await account(t);
    fake.mode = 'no-usage';
    const stream = await client(acct.liveKey).chat.completions.create({ model: CHAT, messages: [{ role: 'user', content: 'Colours?' }], stream: true, stream_options: { include_usage: true } });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    const last = chunks.at(-1)!;
    t.deepEqual(last.choices, [], 'the last chunk carries no choice');
    const id = last.id.replace('chatcmpl-', '');
    const row = await usageRow(id);
    t.like(row, { usage_source: 'counted' });
    t.deepEqual(last.usage, { prompt_tokens: Number(row.input_tokens), completion_tokens: Number(row.output_tokens), total_tokens: Number(row.input_tokens) + Number(row.output_tokens) });
    t.is(chunks.filter((c) => c.usage).length, 1, 'one usage chunk');
    t.like(await findPredictionById(gw.app.db, id), { status: 'completed', price: chargeOf(Number(row.input_tokens), Number(row.output_tokens)) });
  });

  test.serial(`${db}: an answer whose provider reports no usage is counted whole, its reasoning too, streamed or not: both ways are charged the same`, async (t) => {
    const acct = await account(t);
    fake.mode = 'no-usage';
    fake.reasoning = 'Primary colours: red, yellow, blue. '.repeat(20);
    const ask = { model: CHAT, messages: [{ role: 'user' as const, content: 'Colours?' }], max_tokens: 1000 };
    const { response } = await client(acct.liveKey).chat.completions.create(ask).withResponse();
    const plainId = response.headers.get('x-prediction-id')!;
    const stream = await client(acct.liveKey).chat.completions.create({ ...ask, stream: true });
    let streamId = '';
    for await (const chunk of stream) streamId = chunk.id.replace('chatcmpl-', '');
    const answerTokens = Math.ceil(Buffer.byteLength(fake.reasoning + ANSWER) / 4);
    const plain = await usageRow(plainId);
    const streamed = await usageRow(streamId);
    t.like(plain, { usage_source: 'counted', output_tokens: answerTokens });
    t.like(streamed, { usage_source: 'counted', output_tokens: answerTokens });
    t.is((await findPredictionById(gw.app.db, plainId))!.price, (await findPredictionById(gw.app.db, streamId))!.price);
    await waitFor(async () => (await wallet(acct.userId)).held === 0);
  });

  test.serial(`${db}: the request fields OpenAI's clients and frameworks send are taken: reasoning_effort is passed on, store, metadata and service_tier are not, and null is as absent`, async (t) => {
    const acct = await account(t);
    const before = fake.requests.length;
    const res = await fetch(`${base}/v1/chat/completions`, {
      method: 'POST', headers: { authorization: `Bearer ${acct.liveKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        model: CHAT, messages: [{ role: 'user', content: 'Hi' }], max_tokens: 20, reasoning_effort: 'low', store: true, metadata: { app: 'notes' },
        service_tier: 'priority', tools: null, tool_choice: null, parallel_tool_calls: null, user: null,
      }),
    });
    t.is(res.status, 200, await res.clone().text());
    const sent = fake.requests[before]!;
    t.is(sent.reasoning_effort, 'low');
    for (const k of ['store', 'metadata', 'service_tier', 'tools', 'tool_choice', 'parallel_tool_calls', 'user']) t.false(k in sent, k);
    const bad = await fetch(`${base}/v1/chat/completions`, {
      method: 'POST', headers: { authorization: `Bearer ${acct.liveKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: CHAT, messages: [{ role: 'user', content: 'Hi' }], no_such_field: 1 }),
    });
    t.is(bad.status, 400, 'a field OpenAI does not know is still refused');
    await waitFor(async () => (await wallet(acct.userId)).held === 0);
  });

  test.serial(`${db}: tools and tool_choice are passed through; tool calls come back, streamed or not`, async (t) => {
    const acct = await account(t);
    const tools = [{ type: 'function' as const, function: { name: 'get_weather', description: 'The weather of a city', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } } }];
    const before = fake.requests.length;
    const answer = await client(acct.liveKey).chat.completions.create({ model: CHAT, messages: [{ role: 'user', content: 'Weather in Paris?' }], tools, tool_choice: 'auto' });
    t.deepEqual(fake.requests[before]!.tools, tools);
    t.is(fake.requests[before]!.tool_choice, 'auto');
    t.is(answer.choices[0]!.finish_reason, 'tool_calls');
    const call = answer.choices[0]!.message.tool_calls![0]! as { function: { name: string; arguments: string } };
    t.deepEqual([call.function.name, call.function.arguments], ['get_weather', '{"city":"Paris"}']);
    const stream = await client(acct.liveKey).chat.completions.create({ model: CHAT, messages: [{ role: 'user', content: 'Weather in Paris?' }], tools, stream: true });
    let args = '';
    for await (const chunk of stream) for (const tc of chunk.choices[0]?.delta.tool_calls ?? []) args += tc.function?.arguments ?? '';
    t.is(args, '{"city":"Paris"}');
    // a tool's answer goes back as a `tool` message
    const next = fake.requests.length;
    await client(acct.liveKey).chat.completions.create({
      model: CHAT, messages: [{ role: 'user', content: 'Weather in Paris?' }, { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }] }, { role: 'tool', tool_call_id: 'call_1', content: 'sunny' }],
    });
    t.is((fake.requests[next]!.messages as Array<{ role: string }>)[2]!.role, 'tool');
    await waitFor(async () => (await wallet(acct.userId)).held === 0);
  });

  // ============================================================
  // The asynchronous endpoint of the same model (the worker calls the provider)
  // ============================================================

  const PROMPT = 'Name the primary colours.';
  const submitAsync = async (acct: Account, payload: Record<string, unknown> = { prompt: PROMPT, max_tokens: 4000 }) => {
    const res = await gw.server.inject({ method: 'POST', url: `/api/v1/${CHAT}`, headers: { 'x-api-key': acct.liveKey }, payload });
    if (res.statusCode !== 200 && res.statusCode !== 201 && res.statusCode !== 202) throw new Error(`submit: ${res.statusCode} ${res.payload}`);
    const id = (res.result as { request_id: string }).request_id;
    await waitFor(async () => ['completed', 'failed'].includes((await findPredictionById(gw.app.db, id))?.status ?? ''));
    return id;
  };
  const holdOf = async (id: string) => Number((await gw.app.db('credit_transactions').where({ prediction_id: id, kind: 'hold' }).first()).held_change);

  test.serial(`${db}: the asynchronous endpoint charges the usage the provider reports, releases the rest of the hold with the completion, and its result gives the text and tokens inline`, async (t) => {
    const acct = await account(t);
    const id = await submitAsync(acct);
    const p = (await findPredictionById(gw.app.db, id))!;
    const charge = chargeOf(USAGE.prompt_tokens, USAGE.completion_tokens);
    const hold = await holdOf(id);
    t.true(hold > charge, `held ${hold}, the most it could cost, more than the ${charge} it used`);
    t.like(p, { status: 'completed', price: charge });
    t.deepEqual(await wallet(acct.userId), { balance: 1000 - charge, held: 0 });
    const kinds = await gw.app.db('credit_transactions').where({ prediction_id: id }).orderBy('id').pluck('kind');
    t.deepEqual(kinds, ['hold', 'prediction', 'release']);
    const result = await gw.server.inject({ method: 'GET', url: `/api/v1/predictions/${id}/result`, headers: { 'x-api-key': acct.liveKey } });
    t.is(result.statusCode, 200);
    const body = result.result as { outputs: string[]; output_text: string; usage: unknown };
    t.is(body.output_text, ANSWER);
    t.deepEqual(body.usage, { input_tokens: USAGE.prompt_tokens, output_tokens: USAGE.completion_tokens, source: 'reported' });
    t.is(body.outputs.length, 1, 'the text file too');
    t.is(await (await fetch(body.outputs[0]!)).text(), ANSWER);
    const detail = await gw.server.inject({ method: 'GET', url: `/app/prediction_response/${id}`, headers: { authorization: `Bearer ${acct.session}` } });
    t.like(detail.result as object, { cost: charge, output_text: ANSWER, tokens: { input: 11, output: 4, source: 'reported' } });
    // the sent request: the prompt as the user's message
    t.deepEqual(fake.requests.at(-1)!.messages, [{ role: 'user', content: PROMPT }]);
  });

  test.serial(`${db}: the asynchronous endpoint, where the provider reports no usage, is charged the tokens counted as /v1 counts them (four bytes a token); a refused call is charged nothing`, async (t) => {
    const acct = await account(t);
    fake.mode = 'no-usage';
    const id = await submitAsync(acct);
    const counted = { input_tokens: Math.ceil(Buffer.byteLength(PROMPT) / 4), output_tokens: Math.ceil(Buffer.byteLength(ANSWER) / 4), source: 'counted' };
    const charge = chargeOf(counted.input_tokens, counted.output_tokens);
    t.like(await findPredictionById(gw.app.db, id), { status: 'completed', price: charge });
    const result = await gw.server.inject({ method: 'GET', url: `/api/v1/predictions/${id}/result`, headers: { 'x-api-key': acct.liveKey } });
    t.deepEqual((result.result as { usage: unknown }).usage, counted);
    t.deepEqual(await wallet(acct.userId), { balance: 1000 - charge, held: 0 });
    fake.mode = 'refuse';
    const refused = await submitAsync(acct);
    t.like(await findPredictionById(gw.app.db, refused), { status: 'failed' });
    t.deepEqual(await wallet(acct.userId), { balance: 1000 - charge, held: 0 }, 'the refused call released its hold');
    const failedResult = await gw.server.inject({ method: 'GET', url: `/api/v1/predictions/${refused}/result`, headers: { 'x-api-key': acct.liveKey } });
    t.false('output_text' in (failedResult.result as object));
    t.is(await gw.app.db('prediction_usage').where({ prediction_id: refused }).first(), undefined);
  });

  test.serial(`${db}: in a studio with a markup, a chat call is held at the studio's price and settled by its usage, the owner paid the markup of what was charged, as the asynchronous endpoint pays it`, async (t) => {
    await account(t);
    const owner = await newAccount(gw, 0);
    const slug = uniqueName('oa').toLowerCase().replace(/[^a-z0-9-]/g, '').slice(0, 30);
    const made = await callOperation(gw, 'createStudio', { as: owner.session, body: { slug, name: 'Chat Shop', allowed_models: [CHAT], payer_mode: 'end_user_pays', markup_percent: 50 } });
    t.is(made.status, 201, JSON.stringify(made.body));
    const studio = { 'x-whitelabel-studio': slug };
    const email = `${uniqueName('chat')}@example.com`;
    const reg = await gw.server.inject({ method: 'POST', url: '/auth/register', headers: studio, payload: { email, password: 'correct horse battery' } });
    t.is(reg.statusCode, 201, reg.payload);
    const userId = (reg.result as { id: number }).id;
    await gw.app.db.transaction((trx) => creditWallet(trx, { userId, teamId: null }, 1000, 'grant', 'test credit', Date.now()));
    const login = await gw.server.inject({ method: 'POST', url: '/auth/login', headers: studio, payload: { email, password: 'correct horse battery' } });
    const session = (login.result as { access_token: string }).access_token;
    const key = await gw.server.inject({ method: 'POST', url: '/api/v1/keys', headers: { authorization: `Bearer ${session}`, ...studio }, payload: { name: 'live', is_test: false } });
    const liveKey = (key.result as { key: string }).key;
    const inStudio = new OpenAI({ apiKey: liveKey, baseURL: `${base}/v1`, maxRetries: 0, defaultHeaders: studio });
    const { data, response } = await inStudio.chat.completions.create({ model: CHAT, messages: [{ role: 'user', content: PROMPT }], max_tokens: 4000 }).withResponse();
    t.is(data.choices[0]!.message.content, ANSWER);
    const id = response.headers.get('x-prediction-id')!;
    const p = (await findPredictionById(gw.app.db, id))!;
    const list = chargeOf(USAGE.prompt_tokens, USAGE.completion_tokens);
    const hold = await holdOf(id);
    t.like(p, { status: 'completed', studioId: (made.body as { id: number }).id });
    t.true(p.studioMarkup >= 1 && p.price === list + p.studioMarkup, `charged ${p.price}: the usage's ${list} and the markup's ${p.studioMarkup}`);
    t.true(p.price < hold, `less than the ${hold} held at the studio's price`);
    t.deepEqual(await wallet(userId), { balance: 1000 - p.price, held: 0 });
    t.deepEqual(await wallet(owner.userId), { balance: p.studioMarkup, held: 0 });
    const revenue = await gw.app.db('credit_transactions').where({ prediction_id: id, kind: 'studio_revenue' }).pluck('amount');
    t.deepEqual(revenue.map(Number), [p.studioMarkup]);
    // the asynchronous endpoint in the same studio pays the owner the same way
    const res = await gw.server.inject({ method: 'POST', url: `/api/v1/${CHAT}`, headers: { 'x-api-key': liveKey, ...studio }, payload: { prompt: PROMPT, max_tokens: 4000 } });
    const asyncId = (res.result as { request_id: string }).request_id;
    await waitFor(async () => (await findPredictionById(gw.app.db, asyncId))?.status === 'completed');
    const q = (await findPredictionById(gw.app.db, asyncId))!;
    t.true(q.studioMarkup >= 1 && q.price === list + q.studioMarkup && q.price < await holdOf(asyncId));
    t.deepEqual(await wallet(owner.userId), { balance: p.studioMarkup + q.studioMarkup, held: 0 });
  });

  test.serial(`${db}: an embed code is taken on /v1 for the models it is bound to, from its origins, with its caps and input rules; a refusal is OpenAI's body and holds nothing`, async (t) => {
    const acct = await account(t);
    const SHOP = 'https://shop.example.com';
    const makeCode = async (body: Record<string, unknown>) => {
      const res = await callOperation<{ code: string }>(gw, 'createEmbedCode', { as: acct.session, body: { kind: 'embed', name: 'chat widget', models: [CHAT], allowed_origins: [SHOP], ...body } });
      if (res.status !== 201) throw new Error(JSON.stringify(res.body));
      return res.body.code;
    };
    const call = (code: string, payload: Record<string, unknown>, opts: { origin?: string; header?: string; route?: string } = {}) => fetch(`${base}/v1/${opts.route ?? 'chat/completions'}`, {
      method: 'POST', headers: { [opts.header ?? 'x-embed-code']: code, origin: opts.origin ?? SHOP, 'content-type': 'application/json' }, body: JSON.stringify(payload),
    });
    const chat = { model: CHAT, messages: [{ role: 'user', content: PROMPT }], max_tokens: 4000 };
    const code = await makeCode({});
    const ok = await call(code, chat);
    t.is(ok.status, 200);
    t.is(ok.headers.get('access-control-allow-origin'), SHOP, 'CORS for the code\'s origin');
    t.truthy(ok.headers.get('x-embed-visitor'), 'a visitor id issued');
    const answer = await ok.json() as { choices: Array<{ message: { content: string } }> };
    t.is(answer.choices[0]!.message.content, ANSWER);
    const p = (await findPredictionById(gw.app.db, ok.headers.get('x-prediction-id')!))!;
    t.like(p, { status: 'completed', price: chargeOf(USAGE.prompt_tokens, USAGE.completion_tokens) });
    t.like(await gw.app.db('predictions').where({ id: p.id }).first(), { source: 'embed' });
    // an agent embed code too, by its own header
    const agent = await makeCode({ kind: 'agent_embed' });
    t.is((await call(agent, chat, { header: 'x-agent-embed-code' })).status, 200);
    const refusals: Array<[Response, number, string]> = [
      [await call(code, chat, { origin: 'https://elsewhere.example.com' }), 403, 'embed_origin_not_allowed'],
      [await call(code, { ...chat, model: 'canvas-v1-fast-text-to-image' }), 403, 'embed_model_not_allowed'],
      [await call(code, { model: 'canvas-v1-fast-text-to-image', prompt: 'a lighthouse' }, { route: 'images/generations' }), 403, 'embed_model_not_allowed'],
      [await call(await makeCode({ max_cost_per_run: 1 }), chat), 402, 'embed_cost_cap_exceeded'],
      [await call(await makeCode({ locked_inputs: { system_prompt: 'You sell teapots.' } }), chat), 400, 'embed_field_not_allowed'],
      [await call('emb_not_a_code', chat), 401, 'embed_code_invalid'],
    ];
    for (const [res, status, code] of refusals) {
      t.is(res.status, status, code);
      const body = await res.json() as { error: { code: string; message: string; type: string } };
      t.is(body.error.code, code);
      t.truthy(body.error.message);
    }
    // a daily cap the first call used up: the next is refused, nothing held
    const capped = await makeCode({ daily_cap: 1 });
    const small = { ...chat, max_tokens: 500 };
    t.is((await call(capped, small)).status, 200);
    const over = await call(capped, small);
    t.is(over.status, 402);
    t.is(((await over.json()) as { error: { code: string } }).error.code, 'embed_daily_cap_reached');
    // images through a code bound to the image model, its locked inputs applied
    const images = await makeCode({ models: ['canvas-v1-fast-text-to-image'], locked_inputs: { width: 256 } });
    const made = await call(images, { model: 'canvas-v1-fast-text-to-image', prompt: 'a lighthouse' }, { route: 'images/generations' });
    t.is(made.status, 200);
    t.like((await findPredictionById(gw.app.db, made.headers.get('x-prediction-id')!))!.input, { width: 256 });
    t.is((await wallet(acct.userId)).held, 0);
  });

  test.serial(`${db}: the models list and a model, in OpenAI's format, by slug; an unknown model is 404 model_not_found`, async (t) => {
    const acct = await account(t, 0);
    const models = [];
    for await (const m of client(acct.liveKey).models.list()) models.push(m);
    t.is(models.length, gw.app.spec.models.size);
    t.like(models.find((m) => m.id === CHAT), { object: 'model', owned_by: 'lexi-v1' });
    t.like(await client(acct.liveKey).models.retrieve(CHAT), { id: CHAT, object: 'model' });
    const err = await t.throwsAsync(client(acct.liveKey).models.retrieve('no-such-model'), { instanceOf: OpenAI.NotFoundError });
    t.like(err?.error, { type: 'invalid_request_error', code: 'model_not_found', param: 'model' });
  });

  test.serial(`${db}: errors come in OpenAI's body with the gateway's statuses: a wrong-category model 400 naming the route, validation 400 with its param, 401, 402, 404, an upstream failure 502 with nothing charged`, async (t) => {
    const acct = await account(t);
    const c = client(acct.liveKey);
    const wrong = await t.throwsAsync(c.chat.completions.create({ model: 'canvas-v1-fast-text-to-image', messages: [{ role: 'user', content: 'hi' }] }), { instanceOf: OpenAI.BadRequestError });
    t.like(wrong?.error, { code: 'wrong_model_category', param: 'model' });
    t.regex(wrong!.message, /POST \/v1\/images\/generations/);
    const invalid = await t.throwsAsync(c.chat.completions.create({ model: CHAT, messages: [] }), { instanceOf: OpenAI.BadRequestError });
    t.like(invalid?.error, { type: 'invalid_request_error', code: 'validation_failed', param: 'messages' });
    const tooLong = await t.throwsAsync(c.chat.completions.create({ model: CHAT, messages: [{ role: 'user', content: 'hi' }], max_tokens: 100_000 }), { instanceOf: OpenAI.BadRequestError });
    t.like(tooLong?.error, { param: 'max_tokens' });
    const missing = await t.throwsAsync(c.chat.completions.create({ model: 'nope', messages: [{ role: 'user', content: 'hi' }] }), { instanceOf: OpenAI.NotFoundError });
    t.like(missing?.error, { code: 'model_not_found' });
    const unauth = await t.throwsAsync(client('mg_live_not_a_key').chat.completions.create({ model: CHAT, messages: [{ role: 'user', content: 'hi' }] }), { instanceOf: OpenAI.AuthenticationError });
    t.like(unauth?.error, { type: 'authentication_error' });
    const poor = await newAccount(gw, 0);
    const broke = await t.throwsAsync(client(poor.liveKey).chat.completions.create({ model: CHAT, messages: [{ role: 'user', content: 'hi' }] }), { instanceOf: OpenAI.APIError });
    t.is(broke?.status, 402);
    t.like(broke?.error, { type: 'insufficient_quota', code: 'insufficient_credit' });
    fake.mode = 'error';
    const failed = await t.throwsAsync(c.chat.completions.create({ model: CHAT, messages: [{ role: 'user', content: 'hi' }] }), { instanceOf: OpenAI.APIError });
    t.is(failed?.status, 502);
    t.like(failed?.error, { type: 'api_error', code: 'upstream_failed' });
    fake.mode = 'refuse';
    const refused = await t.throwsAsync(c.chat.completions.create({ model: CHAT, messages: [{ role: 'user', content: 'hi' }], stream: true }), { instanceOf: OpenAI.BadRequestError });
    t.like(refused?.error, { code: 'upstream_failed', param: 'messages' });
    t.deepEqual(await wallet(acct.userId), { balance: 1000, held: 0 }, 'nothing charged, nothing held');
    const failedRows = await gw.app.db('predictions').where({ user_id: acct.userId, status: 'failed' }).count({ n: '*' });
    t.is(Number(failedRows[0]!.n), 2, 'each failed call is in the run history');
  });

  test.serial(`${db}: an upstream that fails mid-stream ends the stream with an error event; the call is failed and charged nothing`, async (t) => {
    const acct = await account(t);
    fake.mode = 'fail-mid-stream';
    const stream = await client(acct.liveKey).chat.completions.create({ model: CHAT, messages: [{ role: 'user', content: 'hi' }], stream: true });
    let text = '';
    const err = await t.throwsAsync(async () => {
      for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    });
    t.regex(String(err?.message), /broke off|ended its stream|failed/);
    t.is(text, 'Red, ', 'the chunks before the failure were relayed');
    await waitFor(async () => (await gw.app.db('predictions').where({ user_id: acct.userId, status: 'failed' }).first()) !== undefined);
    t.deepEqual(await wallet(acct.userId), { balance: 1000, held: 0 });
  });

  test.serial(`${db}: a provider error that quotes the gateway's key or a URL reaches the caller, the stream and the run history without them`, async (t) => {
    const acct = await account(t);
    const c = client(acct.liveKey);
    const clean = (text: string, what: string) => {
      t.false(text.includes(PROVIDER_KEY), `${what}: no provider key`);
      t.false(text.includes(fake.url.replace(/\/v1$/, '')), `${what}: not the provider's address`);
      t.false(text.includes('provider-token'), `${what}: no URL the provider named`);
    };
    fake.mode = 'echo-key';
    const refused = await t.throwsAsync(c.chat.completions.create({ model: CHAT, messages: [{ role: 'user', content: 'hi' }] }), { instanceOf: OpenAI.APIError });
    t.is(refused?.status, 502);
    t.regex(refused!.message, /Incorrect API key provided: \[redacted\]; see \[url\]/);
    clean(JSON.stringify(refused?.error), 'the answer');
    fake.mode = 'echo-key-mid-stream';
    const stream = await c.chat.completions.create({ model: CHAT, messages: [{ role: 'user', content: 'hi' }], stream: true });
    const broke = await t.throwsAsync(async () => {
      for await (const chunk of stream) void chunk;
    });
    t.regex(String(broke?.message), /failed mid-answer: Incorrect API key provided: \[redacted\]/);
    clean(String(broke?.message), 'the stream');
    const rows = await waitFor(async () => {
      const r = await gw.app.db('predictions').where({ user_id: acct.userId, status: 'failed' }).select('error');
      return r.length === 2 ? r as Array<{ error: string }> : undefined;
    });
    for (const r of rows) clean(r.error, 'the recorded error');
    t.deepEqual(await wallet(acct.userId), { balance: 1000, held: 0 });
  });

  test.serial(`${db}: the paying wallet's hard monthly budget applies to chat calls: one that could take the month past it is 402 budget_exceeded, holding nothing`, async (t) => {
    const acct = await account(t);
    // each call below holds 1 credit (its tokens at lexi-v1's price, rounded up) and is charged 1
    t.is((await callOperation(gw, 'updateAlertSettings', { as: acct.session, body: { monthly_budget: 1, monthly_budget_mode: 'hard' } })).status, 200);
    const c = client(acct.liveKey);
    const ask = () => c.chat.completions.create({ model: CHAT, messages: [{ role: 'user', content: 'hi' }], max_tokens: 100 });
    t.is((await ask()).choices[0]?.message.content, ANSWER);
    const refused = await t.throwsAsync(ask(), { instanceOf: OpenAI.APIError });
    t.is(refused?.status, 402);
    t.like(refused?.error, { code: 'budget_exceeded' });
    t.regex(String((refused?.error as { message?: string } | undefined)?.message), /past the monthly budget of 1 credits/, 'the wallet\'s own caller is told its budget');
    // an embed code's visitor, paid for by the same wallet: refused too, never told the budget
    const SHOP = 'https://shop.example.com';
    const embed = await callOperation<{ code: string }>(gw, 'createEmbedCode', { as: acct.session, body: { kind: 'embed', name: 'chat widget', models: [CHAT], allowed_origins: [SHOP] } });
    t.is(embed.status, 201);
    const visitor = await fetch(`${base}/v1/chat/completions`, {
      method: 'POST', headers: { 'x-embed-code': embed.body.code, origin: SHOP, 'content-type': 'application/json' },
      body: JSON.stringify({ model: CHAT, messages: [{ role: 'user', content: 'hi' }], max_tokens: 100 }),
    });
    t.is(visitor.status, 402);
    const { error } = await visitor.json() as { error: { code: string; message: string } };
    t.is(error.code, 'budget_exceeded');
    t.regex(error.message, /account that pays for this request has reached its monthly budget/);
    t.false(/\d/.test(error.message), error.message);
    t.deepEqual(await wallet(acct.userId), { balance: 999, held: 0 });
    t.is(fake.requests.filter((r) => r.max_tokens === 100).length, 1, 'the refused calls never reached the provider');
    await waitFor(async () => (await gw.app.db('alerts').where({ user_id: acct.userId, kind: 'monthly_budget' }).first()) !== undefined, { what: 'the budget alert' });
  });

  test.serial(`${db}: an upstream that never answers is given up after CHAT_UPSTREAM_TIMEOUT_MS: 504 upstream_timeout, streamed or not, nothing charged`, async (t) => {
    const acct = await account(t);
    fake.mode = 'hang';
    const err = await t.throwsAsync(client(acct.liveKey).chat.completions.create({ model: CHAT, messages: [{ role: 'user', content: 'hi' }] }), { instanceOf: OpenAI.APIError });
    t.is(err?.status, 504);
    t.like(err?.error, { code: 'upstream_timeout' });
    const streamed = await t.throwsAsync(client(acct.liveKey).chat.completions.create({ model: CHAT, messages: [{ role: 'user', content: 'hi' }], stream: true }), { instanceOf: OpenAI.APIError });
    t.is(streamed?.status, 504);
    t.deepEqual(await wallet(acct.userId), { balance: 1000, held: 0 });
    const rows = await gw.app.db('predictions').where({ user_id: acct.userId }).select('status', 'error_code');
    t.deepEqual(rows.map((r: { status: string; error_code: string }) => [r.status, r.error_code]), [['failed', 'upstream_timeout'], ['failed', 'upstream_timeout']]);
  });

  test.serial(`${db}: a client that leaves a stream stops the upstream call and is charged for the chunks relayed, never more than the hold`, async (t) => {
    const acct = await account(t);
    fake.mode = 'endless';
    const controller = new AbortController();
    const stream = await client(acct.liveKey).chat.completions.create({ model: CHAT, messages: [{ role: 'user', content: 'Sing forever' }], stream: true, max_tokens: 8000 }, { signal: controller.signal });
    let seen = 0;
    let id = '';
    try {
      for await (const chunk of stream) {
        id = chunk.id.replace('chatcmpl-', '');
        // the SDK may still hand over a chunk it had read before the abort: the client reads no further
        if (++seen === 20) {
          controller.abort();
          break;
        }
      }
    } catch {
      // the SDK may end the loop or throw once aborted: either way the client has left
    }
    t.is(seen, 20, 'the loop stopped where the client left');
    await waitFor(() => fake.endless.closed);
    await waitFor(async () => (await findPredictionById(gw.app.db, id))?.status === 'cancelled');
    const p = (await findPredictionById(gw.app.db, id))!;
    const usage = await usageRow(id);
    t.is(usage.usage_source, 'counted');
    t.true(Number(usage.output_tokens) >= 19, `at least the chunks the client read (${String(usage.output_tokens)})`);
    t.true(Number(usage.output_tokens) <= fake.endless.written + 1, 'no more than the provider wrote');
    t.is(p.price, chargeOf(Number(usage.input_tokens), Number(usage.output_tokens)));
    t.deepEqual(await wallet(acct.userId), { balance: 1000 - p.price, held: 0 });
  });

  /** Reads an `endless` stream until `leaveAt` chunks, then leaves (the client's abort); answers the prediction's id and the text read. */
  const leaveStream = async (key: string, leaveAt: number, content = 'Sing forever') => {
    const controller = new AbortController();
    const stream = await client(key).chat.completions.create({ model: CHAT, messages: [{ role: 'user', content }], stream: true, max_tokens: 8000 }, { signal: controller.signal });
    let seen = 0;
    let id = '';
    let text = '';
    try {
      for await (const chunk of stream) {
        id = chunk.id.replace('chatcmpl-', '');
        text += chunk.choices[0]?.delta.content ?? '';
        if (++seen === leaveAt) {
          controller.abort();
          break;
        }
      }
    } catch {
      // the SDK may end the loop or throw once aborted: either way the client has left
    }
    await waitFor(() => fake.endless.closed);
    await waitFor(async () => (await findPredictionById(gw.app.db, id))?.status === 'cancelled');
    await waitFor(async () => (await usageRow(id))?.settled_at !== null, { what: 'the settle of the call the client left' });
    return { id, text, seen };
  };

  test.serial(`${db}: what a stream the client left was charged counts against the key's spend limit and the wallet's hard monthly budget`, async (t) => {
    const acct = await account(t);
    fake.mode = 'endless';
    const { id } = await leaveStream(acct.liveKey, 20);
    const charged = (await findPredictionById(gw.app.db, id))!.price;
    t.true(charged > 0);
    const keyId = (await gw.app.db('api_keys').where({ user_id: acct.userId, is_test: false }).first()).id as number;
    const set = await gw.server.inject({ method: 'PUT', url: `/app/update_api_key/${keyId}`, headers: { authorization: `Bearer ${acct.session}` }, payload: { spend_limit: charged, spend_limit_period: 'day' } });
    t.is(set.statusCode, 200, set.payload);
    fake.mode = 'ok';
    const ask = () => client(acct.liveKey).chat.completions.create({ model: CHAT, messages: [{ role: 'user', content: 'hi' }], max_tokens: 100 });
    const refused = await t.throwsAsync(ask(), { instanceOf: OpenAI.APIError });
    t.is(refused?.status, 402);
    t.like(refused?.error, { code: 'key_spend_limit_exceeded' });
    t.regex(String((refused?.error as { message?: string } | undefined)?.message), /it has 0 left/);
    // the key without its limit, under a budget the month has spent
    t.is((await gw.server.inject({ method: 'PUT', url: `/app/update_api_key/${keyId}`, headers: { authorization: `Bearer ${acct.session}` }, payload: { spend_limit: null } })).statusCode, 200);
    t.is((await callOperation(gw, 'updateAlertSettings', { as: acct.session, body: { monthly_budget: charged, monthly_budget_mode: 'hard' } })).status, 200);
    const over = await t.throwsAsync(ask(), { instanceOf: OpenAI.APIError });
    t.is(over?.status, 402);
    t.like(over?.error, { code: 'budget_exceeded' });
    t.deepEqual(await wallet(acct.userId), { balance: 1000 - charged, held: 0 });
  });

  test.serial(`${db}: a client that leaves a stream of long chunks is charged the text relayed at four bytes a token, the record saying the client closed it`, async (t) => {
    const acct = await account(t);
    fake.mode = 'endless';
    // 400 bytes a chunk: a provider that sends many tokens at once
    fake.endlessWord = 'word '.repeat(80);
    const { id, text } = await leaveStream(acct.liveKey, 10);
    const usage = await usageRow(id);
    t.is(usage.usage_source, 'counted');
    t.true(Number(usage.output_tokens) >= Math.ceil(Buffer.byteLength(text) / 4), `the text the client read, four bytes a token (${String(usage.output_tokens)})`);
    t.true(Number(usage.output_tokens) <= Math.ceil((fake.endless.written * 400) / 4), 'no more than the provider wrote');
    const p = (await findPredictionById(gw.app.db, id))!;
    t.is(p.price, chargeOf(Number(usage.input_tokens), Number(usage.output_tokens)));
    t.true(p.price > 0);
    t.deepEqual(await wallet(acct.userId), { balance: 1000 - p.price, held: 0 });
    const detail = await gw.server.inject({ method: 'GET', url: `/app/prediction_response/${id}`, headers: { authorization: `Bearer ${acct.session}` } });
    t.like(detail.result as object, { status: 'cancelled', cost: p.price, tokens: { output: Number(usage.output_tokens), source: 'counted' } });
    t.regex(String((detail.result as { error: unknown }).error), /client closed the connection.*charged for the answer relayed/);
  });

  test.serial(`${db}: a client that leaves a stream whose provider reported its prompt's usage early is charged that prompt and the answer relayed, not the early report's answer of nothing`, async (t) => {
    const acct = await account(t);
    fake.mode = 'endless';
    fake.endlessEarlyUsage = true;
    const { id, seen } = await leaveStream(acct.liveKey, 30);
    const usage = await usageRow(id);
    t.is(Number(usage.input_tokens), 11, "the provider's own count of the prompt");
    t.true(Number(usage.output_tokens) >= seen - 1, `at least the chunks the client read (${String(usage.output_tokens)})`);
    const p = (await findPredictionById(gw.app.db, id))!;
    t.is(p.price, chargeOf(11, Number(usage.output_tokens)));
    t.deepEqual(await wallet(acct.userId), { balance: 1000 - p.price, held: 0 });
  });

  test.serial(`${db}: a provider that streams past max_tokens without end is cut off: the stream ends with finish_reason length, charged at most its hold`, async (t) => {
    const acct = await account(t);
    fake.mode = 'endless';
    const stream = await client(acct.liveKey).chat.completions.create({ model: CHAT, messages: [{ role: 'user', content: 'Sing' }], stream: true, max_tokens: 10, stream_options: { include_usage: true } });
    let seen = 0;
    let id = '';
    let finish: string | null = null;
    let usage: unknown;
    for await (const chunk of stream) {
      id = chunk.id.replace('chatcmpl-', '');
      finish = chunk.choices[0]?.finish_reason ?? finish;
      if (chunk.usage) usage = chunk.usage;
      // far past any bound a 10-token answer could need: the stream would never end
      if (++seen === 2000) break;
    }
    t.true(seen < 2000, `the stream ended by itself (${seen} chunks)`);
    t.is(finish, 'length');
    t.truthy(usage, 'the usage chunk asked for');
    await waitFor(() => fake.endless.closed);
    const p = (await findPredictionById(gw.app.db, id))!;
    t.is(p.status, 'completed');
    t.true(p.price <= chargeOf(USAGE.prompt_tokens * 10, 10), `charged at most the hold of 10 tokens (${p.price})`);
    t.deepEqual(await wallet(acct.userId), { balance: 1000 - p.price, held: 0 });
    // chunks that carry nothing (each one restarting the wait for the next) are cut off the same way
    fake.endlessWord = '';
    const empty = await client(acct.liveKey).chat.completions.create({ model: CHAT, messages: [{ role: 'user', content: 'Sing' }], stream: true, max_tokens: 10 });
    let emptySeen = 0;
    for await (const chunk of empty) if (chunk && ++emptySeen === 2000) break;
    t.true(emptySeen < 2000, `the stream of empty chunks ended by itself (${emptySeen} chunks)`);
    await waitFor(() => fake.endless.closed);
    await waitFor(async () => (await wallet(acct.userId)).held === 0);
  });

  test.serial(`${db}: a stream cancelled by its cancel URL is charged for what it relayed until it stopped, once, the rest of its hold released`, async (t) => {
    const acct = await account(t);
    t.teardown(() => {
      skew = 0;
    });
    fake.mode = 'endless';
    const stream = await client(acct.liveKey).chat.completions.create({ model: CHAT, messages: [{ role: 'user', content: 'Sing forever' }], stream: true, max_tokens: 8000 });
    let seen = 0;
    let id = '';
    let held = 0;
    const err = await t.throwsAsync(async () => {
      for await (const chunk of stream) {
        id = chunk.id.replace('chatcmpl-', '');
        if (++seen === 20) {
          held = (await wallet(acct.userId)).held;
          const cancelled = await fetch(`${base}/app/cancel_prediction/${id}`, { method: 'POST', headers: { 'x-api-key': acct.liveKey } });
          t.is(cancelled.status, 200);
          // the stream looks at its row when it next touches it
          skew += INLINE_TOUCH_MS;
        }
        if (seen > 5000) break;
      }
    });
    t.regex(err?.message ?? '', /ended before its answer was complete/);
    t.true(held > 0);
    await waitFor(() => fake.endless.closed);
    await waitFor(async () => (await usageRow(id))?.settled_at !== null, { what: 'the settle of the cancelled call' });
    const p = (await findPredictionById(gw.app.db, id))!;
    t.is(p.status, 'cancelled');
    const usage = await usageRow(id);
    t.true(Number(usage.output_tokens) >= 19, `at least the chunks read before the cancel (${String(usage.output_tokens)})`);
    t.true(p.price > 0 && p.price < held);
    t.is(p.price, chargeOf(Number(usage.input_tokens), Number(usage.output_tokens)));
    t.deepEqual(await wallet(acct.userId), { balance: 1000 - p.price, held: 0 });
    // the sweeper, long after, finds nothing left to settle
    skew += INLINE_ABANDONED_AFTER_MS * 2;
    t.is(await gw.app.store.failAbandonedInline(gw.app.clock(), gw.app.clock()), 0);
    t.deepEqual(await wallet(acct.userId), { balance: 1000 - p.price, held: 0 });
  });

  test.serial(`${db}: a non-streamed call cancelled while it waits for its provider still answers and is charged its usage, once`, async (t) => {
    const acct = await account(t);
    fake.mode = 'slow';
    fake.slowMs = 400;
    t.teardown(() => {
      fake.slowMs = 0;
    });
    const asked = client(acct.liveKey).chat.completions.create({ model: CHAT, messages: [{ role: 'user', content: 'hi' }] });
    const id = await waitFor(async () => (await gw.app.db('predictions').where({ user_id: acct.userId, status: 'processing' }).first<{ id: string } | undefined>('id'))?.id);
    const cancelled = await fetch(`${base}/app/cancel_prediction/${id}`, { method: 'POST', headers: { 'x-api-key': acct.liveKey } });
    t.is(cancelled.status, 200);
    const answer = await asked;
    t.is(answer.choices[0]!.message.content, ANSWER);
    const charge = chargeOf(USAGE.prompt_tokens, USAGE.completion_tokens);
    t.like(await findPredictionById(gw.app.db, id), { status: 'cancelled', price: charge });
    t.deepEqual(await wallet(acct.userId), { balance: 1000 - charge, held: 0 });
  });

  test.serial(`${db}: a stream that runs past the sweeper's abandonment age is not taken for lost: it keeps its hold and is charged its usage when it ends`, async (t) => {
    const acct = await account(t);
    t.teardown(() => {
      skew = 0;
    });
    fake.mode = 'endless';
    const controller = new AbortController();
    const stream = await client(acct.liveKey).chat.completions.create({ model: CHAT, messages: [{ role: 'user', content: 'Sing for an hour' }], stream: true, max_tokens: 8000 }, { signal: controller.signal });
    let seen = 0;
    let id = '';
    let sweepAt = Infinity;
    let held = 0;
    try {
      for await (const chunk of stream) {
        id = chunk.id.replace('chatcmpl-', '');
        seen++;
        if (seen === 5) {
          held = (await wallet(acct.userId)).held;
          // 31 minutes pass while chunks keep coming, each within CHAT_UPSTREAM_TIMEOUT_MS
          skew += INLINE_ABANDONED_AFTER_MS + 60_000;
          // a chunk the provider writes from now on is relayed after the time moved (the role chunk comes first)
          sweepAt = fake.endless.written + 2 + 10;
        }
        if (seen === sweepAt) {
          await gw.app.dispatcher.sweep();
          t.like(await findPredictionById(gw.app.db, id), { status: 'processing' }, 'the sweeper left the running stream alone');
          t.deepEqual(await wallet(acct.userId), { balance: 1000 - held, held }, 'its hold is still held');
        }
        if (seen === sweepAt + 10) {
          // the client leaves, and stops reading: the chunks the SDK read ahead are not seen
          controller.abort();
          break;
        }
      }
    } catch {
      // the SDK may throw once aborted, or the stream ended with an error event: the count below tells
    }
    t.true(held > 0);
    t.is(seen, sweepAt + 10, 'the stream went on after the sweep until the client left');
    await waitFor(async () => (await findPredictionById(gw.app.db, id))?.status === 'cancelled');
    const p = (await findPredictionById(gw.app.db, id))!;
    const usage = await usageRow(id);
    t.true(Number(usage.output_tokens) >= seen - 1, `at least the chunks the client read (${String(usage.output_tokens)})`);
    t.true(p.price > 0);
    t.is(p.price, chargeOf(Number(usage.input_tokens), Number(usage.output_tokens)));
    t.deepEqual(await wallet(acct.userId), { balance: 1000 - p.price, held: 0 });
  });

  test.serial(`${db}: a stream whose call was ended behind it (given up for lost) relays nothing more: an error event ends it and the provider's call stops`, async (t) => {
    const acct = await account(t);
    t.teardown(() => {
      skew = 0;
    });
    fake.mode = 'endless';
    const stream = await client(acct.liveKey).chat.completions.create({ model: CHAT, messages: [{ role: 'user', content: 'Sing forever' }], stream: true, max_tokens: 8000 });
    let seen = 0;
    let id = '';
    const err = await t.throwsAsync(async () => {
      for await (const chunk of stream) {
        id = chunk.id.replace('chatcmpl-', '');
        if (++seen === 5) {
          // as a sweeper that took the stream's process for stopped: failed, its hold released
          t.is(await gw.app.store.failAbandonedInline(gw.app.clock() + 1, gw.app.clock()), 1);
          skew += INLINE_TOUCH_MS;
        }
        if (seen > 1000) break;
      }
    });
    t.regex(err?.message ?? '', /ended before its answer was complete/);
    await waitFor(() => fake.endless.closed);
    t.like(await findPredictionById(gw.app.db, id), { status: 'failed', errorCode: 'inline_abandoned' });
    t.deepEqual(await wallet(acct.userId), { balance: 1000, held: 0 });
  });

  test.serial(`${db}: a sandbox key answers an instant mock completion, streamed when asked, free and marked sandbox; x-api-key works too`, async (t) => {
    const acct = await account(t);
    const before = fake.requests.length;
    const { data, response } = await client(acct.testKey).chat.completions.create({ model: CHAT, messages: [{ role: 'user', content: 'hi' }] }).withResponse();
    t.regex(data.choices[0]!.message.content ?? '', /sandbox/);
    t.is(response.headers.get('x-sandbox'), 'true');
    const id = response.headers.get('x-prediction-id')!;
    t.like(await findPredictionById(gw.app.db, id), { isTest: true, status: 'completed', price: 0 });
    let text = '';
    for await (const chunk of await client(acct.testKey).chat.completions.create({ model: CHAT, messages: [{ role: 'user', content: 'hi' }], stream: true })) text += chunk.choices[0]?.delta.content ?? '';
    t.is(text, data.choices[0]!.message.content ?? '');
    t.is(fake.requests.length, before, 'no provider was called');
    const viaHeader = await fetch(`${base}/v1/chat/completions`, { method: 'POST', headers: { 'x-api-key': acct.testKey, 'content-type': 'application/json' }, body: JSON.stringify({ model: CHAT, messages: [{ role: 'user', content: 'hi' }] }) });
    t.is(viaHeader.status, 200);
    t.deepEqual(await wallet(acct.userId), { balance: 1000, held: 0 });
  });

  test.serial(`${db}: an OpenAI size asks a model that takes an aspect ratio for the nearest one it offers; auto is its default`, async (t) => {
    const acct = await account(t);
    const sandbox = client(acct.testKey);
    for (const [size, aspect] of [['1024x1024', '1:1'], ['1792x1024', '16:9'], ['1024x1536', '2:3'], ['1024x1792', '9:16']] as const) {
      const { response } = await sandbox.images.generate({ model: 'lumen-dev-text-to-image', prompt: 'a lighthouse', size }).withResponse();
      t.like((await findPredictionById(gw.app.db, response.headers.get('x-prediction-id')!))!.input, { aspect_ratio: aspect }, size);
    }
    const { response } = await sandbox.images.generate({ model: 'lumen-dev-text-to-image', prompt: 'a lighthouse', size: 'auto' }).withResponse();
    t.like((await findPredictionById(gw.app.db, response.headers.get('x-prediction-id')!))!.input, { aspect_ratio: '1:1' });
  });

  test.serial(`${db}: images by slug wait for the prediction and answer OpenAI's images object, as URLs or base64; a language model there is 400 naming its route`, async (t) => {
    const acct = await account(t);
    const c = client(acct.liveKey);
    const { data: byUrl, response } = await c.images.generate({ model: 'canvas-v1-fast-text-to-image', prompt: 'a lighthouse', n: 2, size: '256x128', response_format: 'url' }).withResponse();
    t.is(byUrl.data!.length, 2);
    const png = Buffer.from(await (await fetch(byUrl.data![0]!.url!)).arrayBuffer());
    t.is(png.subarray(1, 4).toString('latin1'), 'PNG');
    const id = response.headers.get('x-prediction-id')!;
    t.like(await findPredictionById(gw.app.db, id), { status: 'completed', model: 'canvas-v1-fast-text-to-image' });
    t.like((await findPredictionById(gw.app.db, id))!.input, { prompt: 'a lighthouse', num_images: 2, width: 256, height: 128 });
    const b64 = await c.images.generate({ model: 'canvas-v1-fast-text-to-image', prompt: 'a lighthouse', response_format: 'b64_json' });
    t.is(Buffer.from(b64.data![0]!.b64_json!, 'base64').subarray(1, 4).toString('latin1'), 'PNG');
    const wrong = await t.throwsAsync(c.images.generate({ model: CHAT, prompt: 'a lighthouse' }), { instanceOf: OpenAI.BadRequestError });
    t.regex(wrong!.message, /POST \/v1\/chat\/completions/);
    const sandbox = await client(acct.testKey).images.generate({ model: 'canvas-v1-fast-text-to-image', prompt: 'a lighthouse' });
    t.is(sandbox.data!.length, 1);
    // a `Prefer: wait` is the model endpoint's; this route waits its own way and answers the same
    const { data: preferred, response: preferredResponse } = await c.images.generate({ model: 'canvas-v1-fast-text-to-image', prompt: 'a lighthouse', response_format: 'url' }, { headers: { prefer: 'wait=5' } }).withResponse();
    t.is(preferred.data!.length, 1);
    t.is(preferredResponse.headers.get('preference-applied'), null);
    const charged = await wallet(acct.userId);
    t.true(charged.balance < 1000 && charged.held === 0, 'the three live requests were charged, the sandbox one not');
    t.is(Number((await gw.app.db('predictions').where({ user_id: acct.userId, status: 'completed', is_test: false }).count({ n: '*' }))[0]!.n), 3);
  });

  test.serial(`${db}: the key's limits apply: past its requests per minute a call is 429 rate_limit_error with Retry-After, nothing held`, async (t) => {
    const acct = await account(t);
    const keyId = (await gw.app.db('api_keys').where({ user_id: acct.userId, is_test: false }).first()).id as number;
    const set = await gw.server.inject({ method: 'PUT', url: `/app/update_api_key/${keyId}`, headers: { authorization: `Bearer ${acct.session}` }, payload: { rate_limit_per_minute: 1 } });
    t.is(set.statusCode, 200, set.payload);
    const c = client(acct.liveKey);
    await c.chat.completions.create({ model: CHAT, messages: [{ role: 'user', content: 'hi' }] });
    const limited = await t.throwsAsync(c.chat.completions.create({ model: CHAT, messages: [{ role: 'user', content: 'hi' }] }), { instanceOf: OpenAI.RateLimitError });
    t.like(limited?.error, { type: 'rate_limit_error', code: 'rate_limited' });
    t.truthy(limited?.headers?.get('retry-after'));
    t.is((await wallet(acct.userId)).held, 0);
  });
}
