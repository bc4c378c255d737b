// A webhook receiver for mediagate: verifies each delivery's signature with the TypeScript
// client's verifyWebhook and stores each finished prediction once, whatever the number of times
// it is delivered (a delivery is retried until it is answered 2xx, so duplicates happen).
//
//   WEBHOOK_SECRET=whsec_… PORT=3000 RESULTS_DIR=./results node server.mjs
//
// WEBHOOK_SECRET is the account's signing secret (GET /app/webhook_secret); during a rotation give
// the old and the new one, comma-separated. Results are files <prediction id>.json in RESULTS_DIR.
import fs from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import { verifyWebhook, WebhookVerificationError } from '@mediagate/client';

const secrets = (process.env.WEBHOOK_SECRET ?? '').split(',').map((s) => s.trim()).filter(Boolean);
const resultsDir = process.env.RESULTS_DIR ?? 'results';
const port = Number(process.env.PORT ?? 3000);
const host = process.env.HOST ?? '127.0.0.1';
const MAX_BODY = 1024 * 1024;
if (secrets.length === 0) {
  console.error('Set WEBHOOK_SECRET to your signing secret (whsec_…).');
  process.exit(2);
}

function readBody(req) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    let size = 0;
    req.on('data', (chunk) => {
      size += chunk.length;
      if (size > MAX_BODY) {
        reject(new Error('body too large'));
        req.destroy();
      } else chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/**
 * Stores the payload as <id>.json unless it is already there. The file is written under a
 * temporary name and linked into place: `link` fails if the name exists, so two deliveries racing
 * each other store it once, and a reader never sees half a file.
 */
async function storeOnce(payload, webhookId) {
  if (!/^[A-Za-z0-9_-]+$/.test(payload.id)) throw new Error('unexpected prediction id');
  const target = path.join(resultsDir, `${payload.id}.json`);
  const temp = path.join(resultsDir, `.${payload.id}.${process.pid}.${Date.now()}.tmp`);
  await fs.writeFile(temp, JSON.stringify({ webhook_id: webhookId, received_at: new Date().toISOString(), payload }, null, 2));
  try {
    await fs.link(temp, target);
    return 'stored';
  } catch (err) {
    if (err.code === 'EEXIST') return 'duplicate';
    throw err;
  } finally {
    await fs.rm(temp, { force: true });
  }
}

const server = http.createServer(async (req, res) => {
  const answer = (status, body) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  if (req.method !== 'POST') return answer(405, { error: 'POST only' });
  try {
    // verify the exact bytes received, before parsing them
    const raw = await readBody(req);
    const payload = await verifyWebhook(raw, req.headers, secrets);
    const outcome = await storeOnce(payload, req.headers['webhook-id']);
    console.log(`${outcome} ${payload.id} (${payload.status})`);
    // a duplicate is answered 2xx too, or the gateway would keep retrying it
    return answer(200, { [outcome]: payload.id });
  } catch (err) {
    if (err instanceof WebhookVerificationError) {
      console.log(`refused: ${err.message}`);
      return answer(401, { error: err.message });
    }
    console.error(err);
    // anything else is worth a retry by the gateway
    return answer(500, { error: 'not stored' });
  }
});

await fs.mkdir(resultsDir, { recursive: true });
server.listen(port, host, () => {
  console.log(`listening on http://${host}:${server.address().port}/`);
});
process.on('SIGTERM', () => server.close());
