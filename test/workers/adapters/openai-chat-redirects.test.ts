// The inline chat call does not follow a provider's redirect, as the job adapters' API calls do
// not (upstream-http.ts callJson): a 3xx is the provider's fault, the call fails (or fails over)
// and the place it points at is never called, with the gateway's key or otherwise.
// Third-party HTTP: nock.
import test from 'ava';
import nock from 'nock';
import { completeChat, streamChat } from '../../../workers/adapters/openai-chat.ts';
import type { ChatProvider } from '../../../workers/adapters/openai-chat.ts';

nock.disableNetConnect();
test.afterEach.always(() => {
  nock.cleanAll();
});

const opts = () => ({ signal: new AbortController().signal, timeoutMs: 2000 });
const body = { messages: [{ role: 'user', content: 'hi' }] };
const KEY = 'sk-chat-provider-key';
const provider = (name: string, url: string): ChatProvider => ({ name, url, key: KEY, upstreamModel: 'm' });

const ANSWER = { id: 'c1', object: 'chat.completion', created: 1, model: 'm', choices: [{ index: 0, message: { role: 'assistant', content: 'hello' }, finish_reason: 'stop' }], usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 } };
const STREAM = `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', choices: [{ index: 0, delta: { content: 'hello' } }] })}\n\ndata: [DONE]\n\n`;

for (const status of [301, 302, 307, 308]) {
  test.serial(`a ${status} from the provider is not followed: the call fails as the provider's fault, streamed or not`, async (t) => {
    for (const call of [completeChat, streamChat]) {
      // a 301/302 would be followed with a GET, a 307/308 with the POST (and its body) again
      const [answer, type] = call === completeChat ? [ANSWER, 'application/json'] : [STREAM, 'text/event-stream'];
      const elsewhere = nock('https://elsewhere.test')
        .get('/v1/chat/completions').reply(200, answer, { 'content-type': type })
        .post('/v1/chat/completions').reply(200, answer, { 'content-type': type });
      nock('https://api.provider.test').post('/v1/chat/completions').reply(status, { note: 'moved' }, { location: 'https://elsewhere.test/v1/chat/completions' });
      const err = await t.throwsAsync(call([provider('openai', 'https://api.provider.test/v1')], body, opts()));
      t.like(err, { code: 'upstream_failed', status });
      t.regex(err!.message, new RegExp(`the provider "openai" answered with unexpected HTTP ${status}`));
      t.is(elsewhere.pendingMocks().length, 2, 'the redirect\'s target is never called');
      nock.cleanAll();
    }
  });
}

test.serial('a provider that redirects gives way to the next provider, which answers', async (t) => {
  nock('https://api.first.test').post('/v1/chat/completions').reply(307, '', { location: 'https://elsewhere.test/v1/chat/completions' });
  const elsewhere = nock('https://elsewhere.test').get('/v1/chat/completions').reply(200, ANSWER).post('/v1/chat/completions').reply(200, ANSWER);
  nock('https://api.second.test').post('/v1/chat/completions').reply(200, ANSWER);
  const done = await completeChat([provider('first', 'https://api.first.test/v1'), provider('second', 'https://api.second.test/v1')], body, opts());
  t.is(done.provider.name, 'second');
  t.is(elsewhere.pendingMocks().length, 2, 'the redirect\'s target is never called');
});
