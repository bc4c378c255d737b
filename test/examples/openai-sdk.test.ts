// examples/openai-sdk run as a user would run it (`node chat.mjs <question>` in its folder)
// against a listening gateway: with a live key on a local server speaking OpenAI's API as the
// provider, with a sandbox key, and without a key.
import test from 'ava';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { accountWithEmail, startListeningGateway } from '../helpers/listening.ts';
import type { ListeningGateway } from '../helpers/listening.ts';
import { ANSWER, startFakeOpenAI } from '../helpers/openai-upstream.ts';
import type { FakeOpenAI } from '../helpers/openai-upstream.ts';
import { assertLedger } from '../helpers/ledger.ts';

const EXAMPLE = path.resolve(import.meta.dirname, '..', '..', 'examples', 'openai-sdk');

let gw: ListeningGateway;
let fake: FakeOpenAI;
test.before(async () => {
  fake = await startFakeOpenAI();
  gw = await startListeningGateway({ worker: false, env: { UPSTREAM_OPENAI_URL: fake.url } });
});
test.after.always(async () => {
  await gw?.stop();
  await fake?.close();
});

const run = (env: Record<string, string>) => promisify(execFile)(process.execPath, ['chat.mjs', 'Name the primary colours.'], {
  cwd: EXAMPLE, env: { PATH: process.env.PATH ?? '', MEDIAGATE_BASE_URL: gw.baseUrl, ...env },
});

test.serial('the example lists the chat models, answers, streams the same answer and prints the usage billed', async (t) => {
  const account = await accountWithEmail(gw, 1000);
  const { stdout } = await run({ MEDIAGATE_API_KEY: account.liveKey });
  t.regex(stdout, /^chat models: .*lexi-v1-balanced-chat/m);
  t.true(stdout.includes(`answer: ${ANSWER}`));
  t.true(stdout.includes(`streamed: ${ANSWER}`));
  t.regex(stdout, /^streamed usage: 11 in, 4 out$/m);
  const balance = await (await fetch(`${gw.baseUrl}/account/balance`, { headers: { 'x-api-key': account.liveKey } })).json() as { balance: number; held: number };
  t.true(balance.balance < 1000 && balance.balance >= 990, `charged by the usage: ${balance.balance}`);
  await assertLedger(t, gw.app.db);
});

test.serial('with a sandbox key it answers the mock completion, free; without a key it says what to set; a refusal exits 1 with its code', async (t) => {
  const account = await accountWithEmail(gw, 0);
  const { stdout } = await run({ MEDIAGATE_API_KEY: account.testKey });
  t.regex(stdout, /^answer: This is a sandbox completion/m);
  const none = await t.throwsAsync(run({})) as Error & { code: number; stderr: string };
  t.is(none.code, 2);
  t.regex(none.stderr, /MEDIAGATE_API_KEY/);
  const refused = await t.throwsAsync(run({ MEDIAGATE_API_KEY: account.liveKey })) as Error & { code: number; stderr: string };
  t.is(refused.code, 1);
  t.regex(refused.stderr, /402 insufficient_credit/);
});
