// The Python client (clients/python, standard library only) tested with the machine's python3 by
// its own unittest suite (clients/python/tests), against gateways listening on ports: one with a
// worker running the local models, one without (predictions stay queued until cancelled).
import test from 'ava';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { Webhook } from 'standardwebhooks';
import { accountWithEmail, startListeningGateway } from '../helpers/listening.ts';
import type { ListeningGateway } from '../helpers/listening.ts';
import { createClient } from '../helpers/oauth.ts';
import { createTeam } from '../../db/teams.ts';

const PYTHON_DIR = path.resolve(import.meta.dirname, '..', '..', 'clients', 'python');

let gw: ListeningGateway;
let idle: ListeningGateway;
test.before(async () => {
  [gw, idle] = await Promise.all([startListeningGateway(), startListeningGateway({ worker: false })]);
});
test.after.always(async () => {
  await Promise.all([gw?.stop(), idle?.stop()]);
});

function python(args: string[], env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('python3', args, { cwd: PYTHON_DIR, env: { PATH: process.env.PATH ?? '', PYTHONPATH: path.join(PYTHON_DIR, 'src'), PYTHONDONTWRITEBYTECODE: '1', ...env } });
    let output = '';
    child.stdout.on('data', (d: Buffer) => { output += d.toString(); });
    child.stderr.on('data', (d: Buffer) => { output += d.toString(); });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
  });
}

test('the Python client\'s unittest suite passes against a listening gateway, every test run', async (t) => {
  const [account, broke, other, idleAccount] = await Promise.all([accountWithEmail(gw, 10_000), accountWithEmail(gw, 0), accountWithEmail(gw, 0), accountWithEmail(idle, 10_000)]);
  const oauth = await createClient(gw, account.session, ['generate:write', 'generate:read', 'account:read']);
  const team = await createTeam(gw.app.db, account.userId, 'python hooks', Date.now());
  const secret = `whsec_${Buffer.alloc(32, 3).toString('base64')}`;
  const at = new Date();
  const body = '{"id":"p","status":"completed"}';
  const vector = { body, secret, headers: { 'webhook-id': 'msg_py', 'webhook-timestamp': String(Math.floor(at.getTime() / 1000)), 'webhook-signature': new Webhook(secret).sign('msg_py', at, body) } };
  const { code, output } = await python(['-m', 'unittest', 'discover', '-s', 'tests', '-v'], {
    MEDIAGATE_TEST_BASE_URL: gw.baseUrl,
    MEDIAGATE_TEST_IDLE_URL: idle.baseUrl,
    MEDIAGATE_TEST_KEY: account.liveKey,
    MEDIAGATE_TEST_EMAIL: account.email,
    MEDIAGATE_TEST_SANDBOX_KEY: account.testKey,
    MEDIAGATE_TEST_BROKE_KEY: broke.liveKey,
    MEDIAGATE_TEST_OTHER_KEY: other.testKey,
    MEDIAGATE_TEST_IDLE_KEY: idleAccount.liveKey,
    MEDIAGATE_TEST_OAUTH_ID: oauth.client_id,
    MEDIAGATE_TEST_OAUTH_SECRET: oauth.client_secret,
    MEDIAGATE_TEST_WEBHOOK_VECTOR: JSON.stringify(vector),
    MEDIAGATE_TEST_TEAM_ID: String(team.id),
  });
  t.log(output.split('\n').filter((l) => / \.\.\. /.test(l)).join('\n'));
  t.is(code, 0, output);
  const ran = Number(/^Ran (\d+) tests?/m.exec(output)?.[1]);
  t.true(ran >= 20, output);
  t.regex(output, /^OK$/m, 'every test passed, none skipped');
});
