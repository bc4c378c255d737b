// A real local server speaking OpenAI's API (chat completions, streamed or not, and image
// generations), standing in for an OpenAI-compatible provider. Its streams are real: each chunk
// is written to the socket when sent. The test picks the behaviour of the next calls (`mode`).
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { PNG } from 'pngjs';

export type FakeMode =
  /** answers normally: a short answer, with usage */
  | 'ok'
  /** the same without any usage (servers that report none) */
  | 'no-usage'
  /** answers HTTP 500 */
  | 'error'
  /** streams two chunks, then breaks the connection */
  | 'fail-mid-stream'
  /** takes the request and never answers */
  | 'hang'
  /** streams a chunk every few milliseconds until the client goes away */
  | 'endless'
  /** answers 400 with OpenAI's error body (a refused input) */
  | 'refuse'
  /** answers 401 with an error that quotes the key it was sent and a URL with a token (providers do) */
  | 'echo-key'
  /** streams a chunk, then an error event quoting the key it was sent and a URL with a token */
  | 'echo-key-mid-stream'
  /** answers as `ok` does, after `slowMs` */
  | 'slow'
  /** streams `benchChunks` one-word chunks as fast as it can, each its own write (the benchmark) */
  | 'bench';

export interface FakeOpenAI {
  /** the base URL, with its /v1 (what UPSTREAM_<NAME>_URL takes) */
  url: string;
  mode: FakeMode;
  /** the JSON bodies of the chat and image calls received, in order */
  requests: Array<Record<string, unknown>>;
  /** chunks written by `endless` streams, and whether their client went away */
  endless: { written: number; closed: boolean };
  /** the text of each `endless` chunk ('la ' unless a test sets it) */
  endlessWord: string;
  /** an `endless` stream's first chunk carries a usage (its prompt's tokens, no answer yet), as some providers report one early */
  endlessEarlyUsage: boolean;
  /** chunks of a `bench` stream */
  benchChunks: number;
  /** how long a `slow` call waits before it answers */
  slowMs: number;
  /** the usage `ok` answers report instead of USAGE (a call whose prompt cost the provider more, e.g. an image) */
  usage: typeof USAGE | undefined;
  /** reasoning text `ok` answers send before the answer (`reasoning_content`, as DeepSeek, vLLM and others do), when set */
  reasoning: string | undefined;
  close(): Promise<void>;
}

/** The words of the normal answer; one chunk each. */
export const ANSWER_WORDS = ['Red, ', 'yellow ', 'and ', 'blue.'];
export const ANSWER = ANSWER_WORDS.join('');
export const USAGE = { prompt_tokens: 11, completion_tokens: 4, total_tokens: 15 };

export async function startFakeOpenAI(): Promise<FakeOpenAI> {
  const png = new PNG({ width: 8, height: 8 });
  png.data.fill(120);
  const image = PNG.sync.write(png);
  const sockets = new Set<Socket>();
  const state: FakeOpenAI = {
    url: '',
    mode: 'ok',
    requests: [],
    endless: { written: 0, closed: false },
    endlessWord: 'la ',
    endlessEarlyUsage: false,
    benchChunks: 64,
    slowMs: 0,
    usage: undefined,
    reasoning: undefined,
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };

  const chunk = (delta: Record<string, unknown>, finish: string | null, extra: Record<string, unknown> = {}) => ({
    id: 'chatcmpl-upstream', object: 'chat.completion.chunk', created: 1, model: 'gpt-4o-mini', choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }], ...extra,
  });

  const server = http.createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (b: Buffer) => parts.push(b));
    req.on('end', () => {
      if (state.mode === 'slow') setTimeout(answer, state.slowMs);
      else answer();
    });
    const answer = () => {
      let body: Record<string, unknown> = {};
      try {
        body = JSON.parse(Buffer.concat(parts).toString('utf8')) as Record<string, unknown>;
      } catch {
        // not JSON: answered below as a refusal
      }
      if (req.method === 'GET' && req.url === '/out.png') {
        res.writeHead(200, { 'content-type': 'image/png' }).end(image);
        return;
      }
      state.requests.push(body);
      const mode = state.mode;
      if (mode === 'hang') return;
      if (mode === 'error') {
        res.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'the fake failed', type: 'server_error', param: null, code: null } }));
        return;
      }
      if (mode === 'refuse') {
        res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'the fake refuses this input', type: 'invalid_request_error', param: 'messages', code: null } }));
        return;
      }
      const echoed = `Incorrect API key provided: ${String(req.headers.authorization ?? '').replace(/^Bearer /, '')}; see https://keys.provider.example/manage?token=provider-token`;
      if (mode === 'echo-key') {
        res.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: echoed, type: 'invalid_request_error', param: null, code: 'invalid_api_key' } }));
        return;
      }
      if (req.url === '/v1/images/generations') {
        const n = typeof body.n === 'number' ? body.n : 1;
        const data = Array.from({ length: n }, () => (body.response_format === 'url' ? { url: `${state.url.replace(/\/v1$/, '')}/out.png` } : { b64_json: image.toString('base64') }));
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ created: 1, data }));
        return;
      }
      const usage = mode === 'no-usage' ? undefined : state.usage ?? USAGE;
      const tools = Array.isArray(body.tools) && body.tools.length > 0;
      const toolCall = { id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } };
      if (body.stream !== true) {
        const message = tools ? { role: 'assistant', content: null, tool_calls: [toolCall], refusal: null } : { role: 'assistant', content: ANSWER, refusal: null, ...(state.reasoning === undefined ? {} : { reasoning_content: state.reasoning }) };
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({
          id: 'chatcmpl-upstream', object: 'chat.completion', created: 1, model: 'gpt-4o-mini',
          choices: [{ index: 0, message, logprobs: null, finish_reason: tools ? 'tool_calls' : 'stop' }], ...(usage ? { usage } : {}),
        }));
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      const send = (v: unknown) => res.write(`data: ${typeof v === 'string' ? v : JSON.stringify(v)}\n\n`);
      const withUsage = (body.stream_options as { include_usage?: boolean } | undefined)?.include_usage === true && usage !== undefined;
      const nullUsage = withUsage ? { usage: null } : {};
      const early = mode === 'endless' && state.endlessEarlyUsage ? { usage: { prompt_tokens: USAGE.prompt_tokens, completion_tokens: 0, total_tokens: USAGE.prompt_tokens } } : nullUsage;
      send(chunk({ role: 'assistant', content: '' }, null, early));
      if (mode === 'endless') {
        state.endless = { written: 0, closed: false };
        const timer = setInterval(() => {
          state.endless.written++;
          send(chunk({ content: state.endlessWord }, null, nullUsage));
        }, 5);
        res.on('close', () => {
          clearInterval(timer);
          state.endless.closed = true;
        });
        return;
      }
      if (mode === 'bench') {
        let left = state.benchChunks;
        const next = () => {
          if (left-- > 0) {
            send(chunk({ content: 'word ' }, null, nullUsage));
            setImmediate(next);
            return;
          }
          send(chunk({}, 'stop', nullUsage));
          if (withUsage) send({ id: 'chatcmpl-upstream', object: 'chat.completion.chunk', created: 1, model: 'gpt-4o-mini', choices: [], usage: { prompt_tokens: 10, completion_tokens: state.benchChunks, total_tokens: 10 + state.benchChunks } });
          send('[DONE]');
          res.end();
        };
        next();
        return;
      }
      if (mode === 'echo-key-mid-stream') {
        send(chunk({ content: ANSWER_WORDS[0] }, null, nullUsage));
        send({ error: { message: echoed, type: 'server_error' } });
        res.end();
        return;
      }
      if (mode === 'fail-mid-stream') {
        send(chunk({ content: ANSWER_WORDS[0] }, null, nullUsage));
        setImmediate(() => res.destroy());
        return;
      }
      if (tools) {
        send(chunk({ tool_calls: [{ index: 0, ...toolCall, function: { name: 'get_weather', arguments: '' } }] }, null, nullUsage));
        send(chunk({ tool_calls: [{ index: 0, function: { arguments: toolCall.function.arguments } }] }, null, nullUsage));
        send(chunk({}, 'tool_calls', nullUsage));
      } else {
        if (state.reasoning !== undefined) send(chunk({ reasoning_content: state.reasoning }, null, nullUsage));
        for (const w of ANSWER_WORDS) send(chunk({ content: w }, null, nullUsage));
        send(chunk({}, 'stop', nullUsage));
      }
      if (withUsage) send({ id: 'chatcmpl-upstream', object: 'chat.completion.chunk', created: 1, model: 'gpt-4o-mini', choices: [], usage });
      send('[DONE]');
      res.end();
    };
  });
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  return state;
}
