// The chat adapter's failures are shown to the caller: they never carry the provider's key or
// address, whatever the transport's own error says.
import test from 'ava';
import { completeChat, streamChat } from '../../../workers/adapters/openai-chat.ts';
import type { ChatProvider } from '../../../workers/adapters/openai-chat.ts';
import { freePort } from '../../helpers/processes.ts';

const opts = () => ({ signal: new AbortController().signal, timeoutMs: 2000 });
const body = { messages: [{ role: 'user', content: 'hi' }] };

test('a provider that cannot be reached is named without its address or the credentials in it', async (t) => {
  const port = await freePort();
  const provider: ChatProvider = { name: 'self-hosted', url: `http://gw:pa55word@127.0.0.1:${port}/v1`, key: 'sk-chat-key', upstreamModel: 'm' };
  for (const call of [() => completeChat([provider], body, opts()), () => streamChat([provider], body, opts())]) {
    const err = await t.throwsAsync(call);
    t.regex(err!.message, /^the provider "self-hosted" could not be reached/);
    t.false(err!.message.includes('pa55word'));
    t.false(err!.message.includes(String(port)));
  }
});
