// The quick start as a newcomer runs it: the gateway started as the README's fresh-machine command
// starts it (`SIGNUP_CREDIT=1000 npm start`: the embedded default, no SMTP_URL), then every ```sh
// block of docs/api/quickstart.md, read from the page and run in bash in order, one command at a
// time as typed into one terminal (a variable a command sets is there for the next ones). The
// commands are changed only where the page says to: `localhost:8080` becomes this gateway's
// address, the code `123456` the one the gateway logged, `<request_id>` the id the generation
// answered (that command is repeated until the prediction ends, as the page says). The README's
// own quick start must be the same blocks, so this runs both.
import test from 'ava';
import type { ExecutionContext } from 'ava';
import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { PNG } from 'pngjs';
import { finished, freePort, mailedCode, spawnGateway } from '../helpers/processes.ts';
import type { Finished, GatewayProcess } from '../helpers/processes.ts';
import { waitFor } from '../helpers/services.ts';

const ROOT = path.resolve(import.meta.dirname, '..', '..');
const PAGE = 'docs/api/quickstart.md';

/** The bodies of the ```sh blocks of `text`, in order. */
function shBlocks(text: string): string[] {
  return [...text.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((m) => m[1]!);
}

interface Command {
  /** as on the page: its lines, continuations joined */
  text: string;
  /** the comment lines right after it (what the page says it answers), without their `#` */
  answer: string;
}

/** A block's commands: comment lines are not commands; a line ending in `\` goes on. */
function commands(block: string): Command[] {
  const out: Command[] = [];
  let pending: string[] = [];
  for (const line of block.split('\n')) {
    if (pending.length) {
      pending.push(line);
      if (!line.endsWith('\\')) { out.push({ text: pending.join('\n'), answer: '' }); pending = []; }
    } else if (/^\s*#/.test(line)) {
      if (out.length) out.at(-1)!.answer += line.replace(/^\s*#\s?/, '');
    } else if (line.trim()) {
      if (line.endsWith('\\')) pending = [line];
      else out.push({ text: line, answer: '' });
    }
  }
  if (pending.length) throw new Error(`a command of the quick start ends in a continuation: ${pending.join('\n')}`);
  return out;
}

/** The JSON body a curl command sends (`-d '{...}'`). */
function sentBody(command: string): Record<string, unknown> {
  const m = /-d '([^']*)'/.exec(command);
  if (!m) throw new Error(`no JSON body in: ${command}`);
  return JSON.parse(m[1]!) as Record<string, unknown>;
}

/** Whether `key` has `value` anywhere in `v` (at any depth). */
function hasPair(v: unknown, key: string, value: unknown): boolean {
  if (Array.isArray(v)) return v.some((x) => hasPair(x, key, value));
  if (!v || typeof v !== 'object') return false;
  return Object.entries(v).some(([k, x]) => (k === key && x === value) || hasPair(x, key, value));
}

/**
 * What the page's comment under a command promises of its answer: the whole answer when the
 * comment is JSON; else each `"key":value` it shows whole (a number, a boolean, or a string not
 * shortened with `...`), found in the answer.
 */
function checkPromised(t: ExecutionContext, command: Command, answer: unknown): void {
  if (!command.answer.trim().startsWith('{')) return;
  try {
    t.deepEqual(answer, JSON.parse(command.answer), `the answer the page shows under: ${command.text}`);
    return;
  } catch (err) {
    if (!(err instanceof SyntaxError)) throw err;
  }
  for (const m of command.answer.matchAll(/"(\w+)":("[^".]*"|-?\d+(?:\.\d+)?|true|false|null)(?=[,}\]])/g)) {
    const value = JSON.parse(m[2]!) as unknown;
    t.true(hasPair(answer, m[1]!, value), `the page shows ${m[0]} under: ${command.text}\nanswer: ${JSON.stringify(answer)}`);
  }
}


/**
 * One terminal in `cwd`: each command runs in bash with the variables the earlier ones set (kept
 * with `declare -p` in a file outside `cwd`). The environment is a newcomer's: their PATH without
 * this project's node_modules/.bin (npm puts it first itself, as the CLI page says), a HOME of its
 * own (the CLI's config file goes there), and the tests' compile cache. npm is kept off the
 * network: no update check, and offline, so a bin it cannot find locally fails instead of being
 * fetched from the registry.
 */
function terminal(cwd: string, home: string, cache: Record<string, string>) {
  const state = path.join(home, '.quickstart-variables');
  const names = new Set<string>();
  const env = {
    PATH: (process.env.PATH ?? '').split(path.delimiter).filter((p) => !p.split(path.sep).includes('node_modules')).join(path.delimiter),
    HOME: home,
    npm_config_update_notifier: 'false',
    npm_config_offline: 'true',
    ...cache,
  };
  return async (command: string, stdin = ''): Promise<Finished> => {
    for (const m of command.matchAll(/^\s*([A-Za-z_]\w*)=/gm)) names.add(m[1]!);
    const script = [
      `[ -f '${state}' ] && . '${state}'`,
      // a group: a comment at the end of the command's last line does not swallow what follows
      `{\n${command}\n}`,
      'rc=$?',
      ...(names.size ? [`declare -p ${[...names].join(' ')} > '${state}'`] : []),
      'exit $rc',
    ].join('\n');
    return finished(spawn('bash', ['-c', script], { cwd, env, stdio: ['pipe', 'pipe', 'pipe'] }), stdin);

  };
}

/** The JSON a command printed, or a failure naming the command and what it printed. */
function printedJson(t: ExecutionContext, command: string, ran: Finished): Record<string, unknown> {
  t.is(ran.code, 0, `${command}\n${ran.stderr}`);
  try {
    return JSON.parse(ran.stdout) as Record<string, unknown>;
  } catch {
    t.fail(`not JSON from: ${command}\nstdout: ${ran.stdout}\nstderr: ${ran.stderr}`);
    throw new Error('unreachable');
  }
}

test('the quick start runs as written on a fresh embedded gateway', async (t) => {
  t.timeout(180_000);
  const page = await fs.readFile(path.join(ROOT, PAGE), 'utf8');
  const readme = await fs.readFile(path.join(ROOT, 'README.md'), 'utf8');
  const pkg = JSON.parse(await fs.readFile(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };

  // The README's fresh-machine command starts the gateway with `npm start` and the variables it
  // sets before it; the page names the same command. npm start runs `node main.ts`, as
  // spawnGateway does.
  const twoCommands = shBlocks(readme.slice(readme.indexOf('\n## Two commands')))[0];
  t.truthy(twoCommands, 'the README has a "Two commands" section with a sh block');
  const install = twoCommands!.split('\n')[0]!.replace(/\s+#.*$/, '');
  t.true(page.includes(`\`${install}\``), `the quick start names the README's command \`${install}\``);
  const start = install.split('&&').at(-1)!.trim().split(/\s+/);
  const startEnv: Record<string, string> = {};
  while (/^[A-Z_][A-Z0-9_]*=/.test(start[0] ?? '')) {
    const [name, ...value] = start.shift()!.split('=');
    startEnv[name!] = value.join('=');
  }
  t.deepEqual(start, ['npm', 'start'], `the README starts the gateway with npm start: ${install}`);
  t.is(pkg.scripts.start, 'node main.ts', 'npm start runs what spawnGateway runs');
  t.is(startEnv.SIGNUP_CREDIT, '1000');
  t.false('SMTP_URL' in startEnv);

  // The README's quick start is the page's, block for block.
  const blocks = shBlocks(page);
  t.is(blocks.length, 3, 'the page has three sh blocks: curl, the CLI, a sandbox key');
  const readmeBlocks = shBlocks(readme.slice(readme.indexOf('\n## From zero to a generated image')));
  t.deepEqual(readmeBlocks.slice(0, blocks.length), blocks, 'the README\'s quick start is the page\'s');
  const [curlBlock, cliBlock, sandboxBlock] = blocks.map(commands) as [Command[], Command[], Command[]];

  // The gateway: a fresh data directory instead of ./data, a free port instead of 8080, and on
  // 127.0.0.1 rather than every interface; PUBLIC_URL stays unset (http://localhost:<port>).
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'mg-quickstart-'));
  const port = await freePort();
  const base = `http://localhost:${port}`;
  // ava.config.js's compile cache, for the gateway and the CLI: the same programs, started sooner
  const cache: Record<string, string> = process.env.NODE_COMPILE_CACHE ? { NODE_COMPILE_CACHE: process.env.NODE_COMPILE_CACHE } : {};
  const proc: GatewayProcess = spawnGateway({ ...startEnv, DATA_DIR: path.join(dir, 'data'), PORT: String(port), HOST: '127.0.0.1', ...cache });
  t.teardown(async () => {
    await proc.kill();
    await fs.rm(dir, { recursive: true, force: true });
  });
  await waitFor(async () => {
    if (proc.child.exitCode !== null) throw new Error(`the gateway exited: ${proc.output()}`);
    return (await fetch(`http://127.0.0.1:${port}/health`).catch(() => undefined))?.status === 200;
  }, { what: 'the gateway to answer /health', timeoutMs: 60_000, intervalMs: 100 });

  // The commands run in a scratch copy of the checkout (a link to each of its entries): npx finds
  // the project's `mediagate` bin there as in the checkout, and `--download .` saves into it.
  const checkout = path.join(dir, 'checkout');
  const home = path.join(dir, 'home');
  await fs.mkdir(checkout);
  await fs.mkdir(home);
  for (const entry of await fs.readdir(ROOT)) {
    if (entry !== 'data') await fs.symlink(path.join(ROOT, entry), path.join(checkout, entry));
  }
  const sh = terminal(checkout, home, cache);
  const local = (command: string) => command.replaceAll('localhost:8080', `localhost:${port}`);

  // From zero to a generated image.
  const account = sentBody(curlBlock.find((c) => c.text.includes('/auth/register'))!.text) as { email: string; password: string };
  const seen = new Set<string>();
  let submitted: Record<string, unknown> | undefined;
  let result: Record<string, unknown> | undefined;
  let balance: Record<string, unknown> | undefined;
  let generation: Command | undefined;
  for (const command of curlBlock) {
    let text = local(command.text);
    if (text.includes('123456')) text = text.replaceAll('123456', await mailedCode(proc, account.email));
    let answer: Record<string, unknown>;
    if (text.includes('<request_id>')) {
      t.truthy(submitted, 'a generation was submitted before the result is polled');
      text = text.replaceAll('<request_id>', submitted!.request_id as string);
      answer = await waitFor(async () => {
        const polled = printedJson(t, text, await sh(text));
        return ['completed', 'failed', 'cancelled'].includes(polled.status as string) ? polled : undefined;
      }, { what: 'the prediction to end', timeoutMs: 60_000, intervalMs: 200 });
      result = answer;
    } else {
      const ran = await sh(text);
      if (/^\w+=\$\(/.test(text)) {
        // an assignment prints nothing: its value is what the next commands use
        t.is(ran.code, 0, `${text}\n${ran.stderr}`);
        t.is(ran.stdout, '', text);
        continue;
      }
      answer = printedJson(t, text, ran);
    }
    t.false('code' in answer && 'detail' in answer, `an error from: ${text}\n${JSON.stringify(answer)}`);
    checkPromised(t, command, answer);
    const route = /localhost:\d+(\/[^\s"']*)/.exec(text)?.[1] ?? '';
    seen.add(route.replace(/\/api\/v1\/predictions\/[^/]+\/result/, '/api/v1/predictions/{id}/result'));
    if (route === '/auth/register') t.like(answer, { email: account.email, email_verified: false });
    if (route === '/auth/verify-otp') t.like(answer, { email: account.email, email_verified: true });
    if (typeof answer.request_id === 'string') { submitted = answer; generation = command; }
    if (route === '/account/balance') balance = answer;
  }
  t.deepEqual([...seen].sort(), ['/account/balance', '/api/v1/canvas-v1-fast-text-to-image', '/api/v1/predictions/{id}/result', '/auth/register', '/auth/verify-otp'].sort());
  t.regex((await sh('printf %s "$KEY"')).stdout, /^mg_live_[\w-]+$/, 'step 2 leaves the production key in $KEY');

  t.like(submitted, { status: 'queued', price: 5 });
  t.is(result?.status, 'completed', JSON.stringify(result));
  const outputs = result!.outputs as string[];
  t.is(outputs.length, 1);
  t.true(outputs[0]!.startsWith(`${base}/files/outputs/${submitted!.request_id as string}/`), outputs[0]);
  const file = await fetch(outputs[0]!);
  t.is(file.status, 200);
  t.is(file.headers.get('content-type'), 'image/png');
  const png = PNG.sync.read(Buffer.from(await file.arrayBuffer()));
  const asked = sentBody(generation!.text) as { width: number; height: number };
  t.deepEqual([png.width, png.height], [asked.width, asked.height]);
  t.like(balance, { balance: 995, held: 0 });

  // The same with the CLI. `auth login` prompts for the password; with stdin not a terminal it
  // reads it from there, so the block runs with the password on stdin.
  const cliRuns: Finished[] = [];
  for (const command of cliBlock) {
    const ran = await sh(local(command.text), `${account.password}\n`);
    t.is(ran.code, 0, `${command.text}\nstdout: ${ran.stdout}\nstderr: ${ran.stderr}`);
    cliRuns.push(ran);
  }
  t.is(cliRuns.length, 3, 'sign in, run, balance');
  t.regex(cliRuns[0]!.stdout, new RegExp(`Signed in as ${account.email}.*${base}`));
  const saved = cliRuns[1]!.stdout.trim().split('\n');
  t.is(saved.length, 1, cliRuns[1]!.stdout);
  const downloaded = PNG.sync.read(await fs.readFile(path.resolve(checkout, saved[0]!)));
  const runCommand = cliBlock[1]!.text;
  t.deepEqual([downloaded.width, downloaded.height], [Number(/width=(\d+)/.exec(runCommand)?.[1]), Number(/height=(\d+)/.exec(runCommand)?.[1])]);
  t.is(path.dirname(path.resolve(checkout, saved[0]!)), checkout, 'downloaded into the current directory');
  t.regex(cliRuns[2]!.stdout, /^990 credits available, 0 held/, 'a second 5-credit run');

  // A sandbox key with a session.
  let created: Record<string, unknown> | undefined;
  for (const command of sandboxBlock) {
    const text = local(command.text);
    const ran = await sh(text);
    if (/^\w+=\$\(/.test(text)) {
      t.is(ran.code, 0, `${text}\n${ran.stderr}`);
      continue;
    }
    created = printedJson(t, text, ran);
  }
  t.like(created, { name: 'sandbox', is_test: true });
  t.regex(created!.api_key as string, /^mg_test_/);

  // The reference the page points to.
  t.is((await fetch(`${base}/docs`)).status, 200);
  t.is((await fetch(`${base}/openapi.json`)).status, 200);

  // Nothing the newcomer did is an error in the gateway's log, and it stops cleanly.
  const errors = proc.output().split('\n').filter((l) => l.startsWith('{') && (JSON.parse(l) as { level: number }).level >= 50);
  t.deepEqual(errors, []);
  t.is(await proc.kill('SIGTERM'), 0, proc.output());
});
