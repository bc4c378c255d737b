#!/usr/bin/env node
// `mediagate`: the gateway from a terminal, a script or an agent (README "CLI"). Every command
// but the operator ones (`migrate`, `admin`) talks to a gateway over its documented routes.
import { parseArgs } from 'node:util';
import readline from 'node:readline';
import { Client, CliError, EXIT, sameGateway } from './client.ts';
import type { ExitCode } from './client.ts';
import { configPath, ownsConfigDir, readConfig, removeConfig, writeConfig } from './config.ts';
import * as cmd from './commands.ts';
import { handleInterrupts } from './interrupt.ts';
import type { Context, Output } from './commands.ts';

const DEFAULT_BASE_URL = 'http://localhost:8080';

export const USAGE = `mediagate: generative-media models from the command line

Usage: mediagate [global options] <command> [arguments]

Commands:
  auth login [--email E] [--password-stdin]   sign in; stores an API key in the config file (mode 0600)
                                               and revokes the one it replaces on the same gateway
  auth whoami                                  who the stored key acts as
  auth logout                                  revokes the stored key and removes it
  models list [--category C] [--tier T]        the catalog
  models show <slug>                           a model's inputs, price and availability
  run <slug> [-p PROMPT] [field=value ...] [field=@file ...]
      [--webhook URL] [--no-wait] [--download DIR] [--timeout S]
                                               submit and (by default) wait for the outputs
  predictions get|wait|cancel <id>             one prediction
  upload <file>                                upload a file; prints its URL
  keys list | keys create [--name N] [--sandbox] [--ip CIDR ...] | keys revoke <id>
  balance                                      credits available and held

  quote <slug> [field=value ...]               the price of a run, from the gateway's price rule
  predictions list [--page N] [--status S] [--model SLUG]   your run history, newest first
  transactions [--page N]                      the ledger of your wallet, newest first
  mcp                                          serve the Model Context Protocol on stdio, for agents
                                               (tools: list and describe models, quote, run, get, upload, balance)

Operator commands (on the gateway's machine, with its environment: DATABASE_URL, ...):
  migrate                                      run the database migrations and exit
  admin grant <email> <support|billing|admin>  give an account a role (admin revoke <email>, admin list)
  admin topup <email> <credits> --reason WHY   add credit to an account's wallet (a ledger row, audited)
  models check [DIR ...]                       check model files offline as start-up would: the shipped
                                               catalog plus DIR (else MODELS_DIR); exit 8 naming the file and key
  models import FILE --provider fal|replicate --model ID --slug SLUG [--category C] [--tier T]
                                               print a model file drafted from a provider's schema file (a fal
                                               endpoint's OpenAPI document, a Replicate model's openapi_schema)

Global options:
  --base-url URL   the gateway (MEDIAGATE_BASE_URL; else the one \`auth login\` used; else ${DEFAULT_BASE_URL})
  --team ID        act for a team (team_id)
  --json           machine-readable output on stdout, no progress display
  -h, --help       this text

Environment: MEDIAGATE_API_KEY (takes precedence over the stored key), MEDIAGATE_BASE_URL,
MEDIAGATE_CONFIG (the config file's path), MEDIAGATE_MCP_UPLOAD_DIRS (the directories the MCP
server's upload_file may read from, besides the host's roots).

Exit codes: 0 ok, 1 error, 2 usage, 3 auth, 4 rate limited, 5 not found, 6 insufficient credit,
7 timeout, 8 validation, 9 prediction failed or cancelled, 10 conflict, 130 interrupted (Ctrl-C;
a prediction being waited for goes on, and its id is printed on stderr).
`;

const OPTIONS = {
  'base-url': { type: 'string' },
  team: { type: 'string' },
  json: { type: 'boolean', default: false },
  help: { type: 'boolean', short: 'h', default: false },
  // command options
  email: { type: 'string' },
  'password-stdin': { type: 'boolean', default: false },
  category: { type: 'string' },
  tier: { type: 'string' },
  prompt: { type: 'string', short: 'p' },
  webhook: { type: 'string' },
  wait: { type: 'boolean', default: true },
  download: { type: 'string' },
  timeout: { type: 'string' },
  name: { type: 'string' },
  sandbox: { type: 'boolean', default: false },
  ip: { type: 'string', multiple: true },
  page: { type: 'string' },
  status: { type: 'string' },
  model: { type: 'string' },
  reason: { type: 'string' },
  provider: { type: 'string' },
  slug: { type: 'string' },
} as const;

function usage(message: string): never {
  throw new CliError(`${message} (see \`mediagate --help\`)`, EXIT.usage);
}

function positiveInt(name: string, raw: string | undefined, fallback: number): number {
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n <= 0) usage(`--${name} must be a positive integer`);
  return n;
}

/**
 * Piped stdin's lines, for the whole command: each prompt asking for a new interface would lose
 * what the one before had already read past its line (the email's interface took the password's
 * line with it). Paused between lines, and a pipe left open does not keep the process alive.
 */
let piped: { next(): Promise<string> } | undefined;

function pipedLines(input: NodeJS.ReadableStream): { next(): Promise<string> } {
  const rl = readline.createInterface({ input, terminal: false });
  const lines: string[] = [];
  let ended = false;
  let waiting: (() => void) | undefined;
  // a pipe's handle (a socket) keeps the process alive only while a line is awaited
  const handle = input as Partial<Pick<import('node:net').Socket, 'ref' | 'unref'>>;
  rl.on('line', (line) => { lines.push(line); rl.pause(); handle.unref?.(); waiting?.(); });
  rl.on('close', () => { ended = true; waiting?.(); });
  return {
    async next() {
      while (lines.length === 0 && !ended) {
        await new Promise<void>((resolve) => { waiting = resolve; handle.ref?.(); rl.resume(); });
        waiting = undefined;
      }
      return (lines.shift() ?? '').trim();
    },
  };
}

/** A line from stdin: a prompt on a terminal (the answer not echoed when `mute`), the next line when piped. */
function readLineFrom(input: NodeJS.ReadableStream, output: NodeJS.WritableStream, prompt: string, mute: boolean): Promise<string> {
  if (!(input as NodeJS.ReadStream).isTTY) {
    output.write(prompt);
    piped ??= pipedLines(input);
    return piped.next();
  }
  return new Promise((resolve) => {
    const rl = readline.createInterface({ input, output, terminal: true });
    if (mute) {
      // echo nothing of what is typed after the prompt
      const write = (rl as unknown as { _writeToOutput: (s: string) => void });
      write._writeToOutput = (s: string) => { if (s.includes(prompt)) output.write(prompt); };
    }
    rl.question(prompt, (answer) => {
      // resolve before close(): close emits 'close' at once, which would resolve '' first
      resolve(answer.trim());
      rl.close();
      if (mute) output.write('\n');
    });
    // stdin ended without a line
    rl.on('close', () => resolve(''));
    // On a terminal readline takes Ctrl-C as input and, with no listener, only pauses: the prompt
    // hung or the process ended quietly with 0. The signal is passed on to the process, whose
    // handler (interrupt.ts) ends the command with 130 as anywhere else.
    // The prompt is left unanswered (closing it would answer '' first).
    rl.on('SIGINT', () => {
      output.write('\n');
      process.kill(process.pid, 'SIGINT');
    });
  });
}

async function dispatch(ctx: Context, positionals: string[], values: ReturnType<typeof parse>['values']): Promise<Output> {
  const [command, sub, ...rest] = positionals;
  const timeoutS = positiveInt('timeout', values.timeout, 600);
  switch (command) {
    case 'auth':
      if (sub === 'login') return cmd.authLogin(ctx, { email: values.email, passwordStdin: values['password-stdin'] });
      if (sub === 'whoami') return cmd.authWhoami(ctx);
      if (sub === 'logout') return cmd.authLogout(ctx);
      return usage('auth takes login, whoami or logout');
    case 'models':
      if (sub === 'list') return cmd.modelsList(ctx, { category: values.category, tier: values.tier });
      if (sub === 'show' && rest[0]) return cmd.modelsShow(ctx, rest[0]);
      if (sub === 'check') {
        const { modelsCheckCommand } = await import('./models.ts');
        return modelsCheckCommand(rest);
      }
      if (sub === 'import') {
        const { modelsImportCommand } = await import('./models.ts');
        return modelsImportCommand(rest[0], { provider: values.provider, model: values.model, slug: values.slug, category: values.category, tier: values.tier });
      }
      return usage('models takes list, show <slug>, check [DIR] or import FILE');
    case 'run':
      if (!sub) usage('run needs a model slug');
      return cmd.run(ctx, sub, { pairs: rest, prompt: values.prompt, webhook: values.webhook, wait: values.wait, download: values.download, timeoutS });
    case 'quote':
      if (!sub) usage('quote needs a model slug');
      return cmd.quote(ctx, sub, rest, values.prompt);
    case 'transactions':
      return cmd.transactions(ctx, positiveInt('page', values.page, 1));
    case 'predictions':
      if (sub === 'list') return cmd.predictionsList(ctx, { page: positiveInt('page', values.page, 1), status: values.status, model: values.model });
      if (!rest[0] && sub !== undefined) usage(`predictions ${sub} needs a prediction id`);
      if (sub === 'get') return cmd.predictionsGet(ctx, rest[0]!);
      if (sub === 'wait') return cmd.predictionsWait(ctx, rest[0]!, { timeoutS, download: values.download });
      if (sub === 'cancel') return cmd.predictionsCancel(ctx, rest[0]!);
      return usage('predictions takes list, or get, wait or cancel <id>');
    case 'upload':
      if (!sub) usage('upload needs a file');
      return cmd.upload(ctx, sub);
    case 'keys':
      if (sub === 'list') return cmd.keysList(ctx);
      if (sub === 'create') return cmd.keysCreate(ctx, { name: values.name, sandbox: values.sandbox, ip: values.ip ?? [] });
      if (sub === 'revoke' && rest[0]) return cmd.keysRevoke(ctx, rest[0]);
      return usage('keys takes list, create, or revoke <id>');
    case 'balance':
      return cmd.balance(ctx);
    case 'migrate': {
      const { migrateCommand } = await import('./operator.ts');
      return migrateCommand();
    }
    case 'admin': {
      const { adminCommand } = await import('./operator.ts');
      // flags of `admin topup` go through as the operator script reads them
      return adminCommand([sub ?? '', ...rest, ...(values.reason !== undefined ? ['--reason', values.reason] : [])]);
    }
    default:
      return usage(command ? `unknown command "${command}"` : 'a command is needed');
  }
}

function parse(argv: string[]) {
  try {
    return parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, allowNegative: true, strict: true });
  } catch (err) {
    return usage((err as Error).message);
  }
}

export async function main(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<ExitCode> {
  let json = argv.includes('--json');
  try {
    const { values, positionals } = parse(argv);
    json = values.json;
    if (values.help || positionals.length === 0) {
      process.stdout.write(USAGE);
      return positionals.length === 0 && !values.help ? EXIT.usage : EXIT.ok;
    }
    const file = configPath(env);
    let config = readConfig(file);
    const teamId = values.team === undefined ? undefined : positiveInt('team', values.team, 0);
    const baseUrl = values['base-url'] ?? env.MEDIAGATE_BASE_URL ?? config.base_url ?? DEFAULT_BASE_URL;
    // the stored key is the gateway's it was issued by (`auth login` stored both): never sent to another one
    const keyElsewhere = config.api_key !== undefined && config.base_url !== undefined && !sameGateway(config.base_url, baseUrl);
    const client = new Client({
      baseUrl,
      apiKey: env.MEDIAGATE_API_KEY || (keyElsewhere ? undefined : config.api_key),
      teamId,
      ...(keyElsewhere ? { noKeyReason: `the stored key is for ${config.base_url}, not ${baseUrl}: run \`mediagate auth login\` for this gateway, or set MEDIAGATE_API_KEY` } : {}),
    });
    const ctx: Context = {
      client,
      json,
      config,
      readLine: (prompt) => readLineFrom(process.stdin, process.stderr, prompt, false),
      readSecret: (prompt) => readLineFrom(process.stdin, process.stderr, prompt, true),
      saveConfig: (next) => { config = next; writeConfig(file, next, { ownDir: ownsConfigDir(env) }); },
      forgetConfig: () => removeConfig(file),
    };
    if (positionals[0] === 'mcp') {
      if (positionals.length > 1) usage('mcp takes no arguments');
      // stdout is the protocol's from here on: nothing else is printed to it
      const { serveMcp } = await import('./mcp.ts');
      const { UPLOAD_DIRS_ENV, uploadDirsOf } = await import('./mcp-files.ts');
      // the client as resolved above: its key, or why it has none (the stored key is another gateway's)
      await serveMcp({ client, uploadDirs: uploadDirsOf(env[UPLOAD_DIRS_ENV]) });
      return EXIT.ok;
    }
    // Ctrl-C: a download's temporary file removed, a waited-for prediction's id told, exit 130
    const stopHandling = handleInterrupts({ json });
    let out: Output;
    try {
      out = await dispatch(ctx, positionals, values);
    } finally {
      stopHandling();
    }
    for (const w of out.warnings ?? []) process.stderr.write(`mediagate: warning: ${w}\n`);
    process.stdout.write(json ? `${JSON.stringify(out.json, null, 2)}\n` : out.human.map((l) => `${l}\n`).join(''));
    return EXIT.ok;
  } catch (err) {
    if (err instanceof CliError) {
      if (json) {
        process.stdout.write(`${JSON.stringify({ error: err.message, exit_code: err.exitCode, ...(err.status ? { status: err.status } : {}), ...(err.code ? { code: err.code } : {}) }, null, 2)}\n`);
      }
      process.stderr.write(`mediagate: ${err.message}\n`);
      return err.exitCode;
    }
    process.stderr.write(`mediagate: ${(err as Error).message}\n`);
    return EXIT.error;
  }
}

if (import.meta.main) {
  process.exitCode = await main(process.argv.slice(2));
}
