// The official OpenAI SDK pointed at a mediagate gateway: the models it serves for chat, one
// completion, then the same question streamed token by token, with the usage it was billed for.
//
//   MEDIAGATE_BASE_URL=http://localhost:8080 MEDIAGATE_API_KEY=mg_live_… node chat.mjs "Your question"
//
// A sandbox key (mg_test_…) answers a free mock completion at once, on a gateway with no language
// model provider configured too.
import OpenAI from 'openai';

const baseUrl = process.env.MEDIAGATE_BASE_URL ?? 'http://localhost:8080';
const apiKey = process.env.MEDIAGATE_API_KEY;
const model = process.env.MEDIAGATE_MODEL ?? 'lexi-v1-balanced-chat';
const question = process.argv[2] ?? 'Suggest a title for a photo of a lighthouse at dusk.';
if (!apiKey) {
  console.error('Set MEDIAGATE_API_KEY to an API key of your account.');
  process.exit(2);
}

// The SDK sends the key as `Authorization: Bearer <key>`, which the gateway's /v1 routes accept.
const client = new OpenAI({ apiKey, baseURL: `${baseUrl}/v1`, maxRetries: 1 });

try {
  const chat = [];
  for await (const m of client.models.list()) if (m.category === 'llm') chat.push(m.id);
  console.log(`chat models: ${chat.join(', ')}`);

  const { data: answer, response } = await client.chat.completions.create({
    model, messages: [{ role: 'user', content: question }], max_tokens: 200,
  }).withResponse();
  console.log(`answer: ${answer.choices[0].message.content}`);
  console.log(`usage: ${answer.usage.prompt_tokens} in, ${answer.usage.completion_tokens} out (prediction ${response.headers.get('x-prediction-id')})`);

  const stream = await client.chat.completions.create({
    model, messages: [{ role: 'user', content: question }], max_tokens: 200, stream: true, stream_options: { include_usage: true },
  });
  process.stdout.write('streamed: ');
  let usage;
  for await (const chunk of stream) {
    process.stdout.write(chunk.choices[0]?.delta.content ?? '');
    if (chunk.usage) usage = chunk.usage;
  }
  process.stdout.write('\n');
  if (usage) console.log(`streamed usage: ${usage.prompt_tokens} in, ${usage.completion_tokens} out`);
} catch (err) {
  if (err instanceof OpenAI.APIError) {
    // the gateway's errors come in OpenAI's body: a stable `code`, and `param` for a field
    console.error(`refused: ${err.status} ${err.code ?? ''}: ${err.message}`);
    process.exit(1);
  }
  throw err;
}
