// Operations whose handler waits by design longer than the server's 30 s answer deadline get that
// wait on top of it (handlers/index.ts longestWaitMs): a `Prefer: wait` submit whose model takes
// over 30 s, and a chat call whose provider answers after 30 s, are answered, over real HTTP.
// Before, the server answered its own 503 "may still complete" at 30 s while the handler went
// on: the submit's id was never seen, the chat call was charged and its answer dropped.
// Slow by nature (about 35 s); its two tests run at once.
import test from 'ava';
import { newAccount, startGateway } from '../helpers/gateway.ts';
import type { TestGateway } from '../helpers/gateway.ts';
import { freePort } from '../helpers/processes.ts';
import { startUpstream } from '../helpers/upstream.ts';
import type { FakeUpstream } from '../helpers/upstream.ts';
import { ANSWER, startFakeOpenAI, USAGE } from '../helpers/openai-upstream.ts';
import type { FakeOpenAI } from '../helpers/openai-upstream.ts';

/** Past the server's own 30 s (plugins/responses.ts ANSWER_TIMEOUT_MS). */
const LONGER_THAN_THE_SERVER_WAITS = 32_000;

let gw: TestGateway;
let base = '';
let upstream: FakeUpstream;
let fake: FakeOpenAI;

test.before(async () => {
  upstream = await startUpstream();
  fake = await startFakeOpenAI();
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  gw = await startGateway({
    db: 'sqlite', queue: 'memory', worker: true,
    env: { PORT: String(port), HOST: '127.0.0.1', PUBLIC_URL: base, UPSTREAM_LUMEN_URL: upstream.url, UPSTREAM_OPENAI_URL: fake.url, UPSTREAM_ALLOW_PRIVATE_OUTPUTS: 'true' },
  });
  await gw.server.start();
});
test.after.always(async () => {
  upstream?.release();
  await gw?.stop();
  await upstream?.close();
  await fake?.close();
});

const balanceOf = async (userId: number) => Number((await gw.app.db('users').where({ id: userId }).first<{ balance: unknown }>('balance')).balance);

test('Prefer: wait=50 on a model that takes longer than 30 s answers its result', async (t) => {
  const acct = await newAccount(gw, 1000);
  upstream.hold = true;
  const release = setTimeout(() => upstream.release(), LONGER_THAN_THE_SERVER_WAITS);
  t.teardown(() => clearTimeout(release));
  const res = await fetch(`${base}/api/v1/lumen-dev-text-to-image`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': acct.liveKey, prefer: 'wait=50' },
    body: JSON.stringify({ prompt: 'a lighthouse at dusk' }),
  });
  const body = await res.json() as { status?: string; outputs?: string[]; detail?: string };
  t.is(res.status, 200, body.detail);
  t.is(res.headers.get('preference-applied'), 'wait=50');
  t.is(body.status, 'completed');
  t.is(body.outputs?.length, 1);
});

test('a chat call whose provider answers after 30 s is answered, and charged once', async (t) => {
  const acct = await newAccount(gw, 1000);
  fake.mode = 'slow';
  fake.slowMs = LONGER_THAN_THE_SERVER_WAITS;
  const res = await fetch(`${base}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${acct.liveKey}` },
    body: JSON.stringify({ model: 'lexi-v1-balanced-chat', messages: [{ role: 'user', content: 'name three colours' }] }),
  });
  const body = await res.json() as { choices?: Array<{ message: { content: string } }>; usage?: unknown; error?: unknown };
  t.is(res.status, 200, JSON.stringify(body.error));
  t.is(body.choices?.[0]?.message.content, ANSWER);
  t.like(body.usage, USAGE);
  // lexi-v1: 225 credits per million input tokens, 900 per million output tokens, rounded up
  t.is(await balanceOf(acct.userId), 1000 - Math.ceil((USAGE.prompt_tokens * 225 + USAGE.completion_tokens * 900) / 1_000_000));
});
