// A RabbitMQ node and a MariaDB server of a test's own, for the chaos tests that stop and start
// them. Each runs as a child of the test process with its own name, ports and data directory
// under the system's temp directory, and every control call names that node, socket or pid: the
// RabbitMQ and MariaDB that other tests (and the person running them) use are never touched.
//
// Needs the servers' programs installed (Debian: rabbitmq-server, mariadb-server), not running.
// TEST_RABBITMQ_SBIN and TEST_MARIADB_BIN name the folders that hold them when they are elsewhere.
import { execFile, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './processes.ts';
import { waitFor } from './services.ts';

const run = promisify(execFile);

/** The first of `candidates` that exists, else the bare name (looked up on PATH). */
function program(envDir: string | undefined, name: string, candidates: string[]): string {
  if (envDir) return path.join(envDir, name);
  return candidates.find((c) => fs.existsSync(c)) ?? name;
}

/** Two distinct free ports (the OS may hand the same one out twice in a row). */
async function freePorts(n: number): Promise<number[]> {
  const ports = new Set<number>();
  while (ports.size < n) ports.add(await freePort());
  return [...ports];
}

function portOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect(port, '127.0.0.1');
    s.once('connect', () => { s.destroy(); resolve(true); });
    s.once('error', () => resolve(false));
  });
}

interface Child {
  child: ChildProcess;
  output: () => string;
  exited: Promise<void>;
}

function spawnChild(file: string, args: string[], env: NodeJS.ProcessEnv): Child {
  const child = spawn(file, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => { out = (out + d.toString()).slice(-20_000); });
  child.stderr!.on('data', (d: Buffer) => { out = (out + d.toString()).slice(-20_000); });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.once('error', (err) => { out += `\n${err.message}`; });
  return { child, output: () => out, exited };
}

const running = (c: Child) => c.child.exitCode === null && c.child.signalCode === null;

/** Sends `signal` to this child only (its pid), then waits for it; SIGKILL if it has not gone in `ms`. */
async function stopChild(c: Child, signal: NodeJS.Signals, ms: number): Promise<void> {
  if (!running(c)) return;
  c.child.kill(signal);
  const timer = setTimeout(() => { if (running(c)) c.child.kill('SIGKILL'); }, ms);
  await c.exited;
  clearTimeout(timer);
}

export interface OwnRabbit {
  /** amqp://guest:guest@127.0.0.1:<its port> */
  url: string;
  /** its Erlang node name, unique to this test process */
  node: string;
  /** `rabbitmqctl -n <node> stop_app`: the broker refuses connections, the node stays up */
  stopApp(): Promise<void>;
  /** `rabbitmqctl -n <node> start_app` and wait until it accepts connections again */
  startApp(): Promise<void>;
  /** stops the node and removes its directory */
  stop(): Promise<void>;
}

/**
 * Starts a RabbitMQ node of this test's own: its node name, AMQP and distribution ports, Erlang
 * cookie (HOME), configuration, plugins list, data and log directories. The machine's
 * /etc/rabbitmq files are not read, so its listeners and node name do not apply.
 */
export async function startOwnRabbit(): Promise<OwnRabbit> {
  const sbin = process.env.TEST_RABBITMQ_SBIN;
  // Debian's /usr/sbin scripts switch to the rabbitmq user (and its HOME, so its cookie): use the unwrapped ones
  const server = program(sbin, 'rabbitmq-server', ['/usr/lib/rabbitmq/bin/rabbitmq-server']);
  const ctl = program(sbin, 'rabbitmqctl', ['/usr/lib/rabbitmq/bin/rabbitmqctl']);
  const dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'mg-rabbit-'));
  const [port, distPort] = await freePorts(2) as [number, number];
  const node = `mgtest${process.pid}${crypto.randomBytes(3).toString('hex')}@localhost`;
  await fsp.writeFile(path.join(dir, 'rabbitmq.conf'), `listeners.tcp.default = 127.0.0.1:${port}\n`);
  await fsp.writeFile(path.join(dir, 'enabled_plugins'), '[].\n');
  await fsp.writeFile(path.join(dir, 'rabbitmq-env.conf'), '');
  await fsp.mkdir(path.join(dir, 'conf.d'));
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: dir,
    LANG: 'C.UTF-8',
    RABBITMQ_NODENAME: node,
    RABBITMQ_NODE_IP_ADDRESS: '127.0.0.1',
    RABBITMQ_NODE_PORT: String(port),
    RABBITMQ_DIST_PORT: String(distPort),
    RABBITMQ_CONF_ENV_FILE: path.join(dir, 'rabbitmq-env.conf'),
    RABBITMQ_CONFIG_FILE: path.join(dir, 'rabbitmq.conf'),
    RABBITMQ_CONFIG_FILES: path.join(dir, 'conf.d'),
    RABBITMQ_ADVANCED_CONFIG_FILE: path.join(dir, 'advanced.config'),
    RABBITMQ_ENABLED_PLUGINS_FILE: path.join(dir, 'enabled_plugins'),
    RABBITMQ_MNESIA_BASE: path.join(dir, 'mnesia'),
    RABBITMQ_LOG_BASE: path.join(dir, 'log'),
    RABBITMQ_PID_FILE: path.join(dir, 'rabbitmq.pid'),
  };
  const rabbitmqctl = (...args: string[]) => run(ctl, ['-n', node, ...args], { env, timeout: 60_000 });
  const proc = spawnChild(server, [], env);
  const url = `amqp://guest:guest@127.0.0.1:${port}`;
  const accepting = () => waitFor(async () => {
    if (!running(proc)) throw new Error(`the test's RabbitMQ node exited:\n${proc.output()}`);
    return portOpen(port);
  }, { what: `RabbitMQ node ${node} to accept connections`, timeoutMs: 90_000, intervalMs: 200 });
  try {
    await accepting();
  } catch (err) {
    await stopChild(proc, 'SIGTERM', 15_000);
    await fsp.rm(dir, { recursive: true, force: true });
    throw err;
  }
  return {
    url,
    node,
    async stopApp() {
      await rabbitmqctl('stop_app');
    },
    async startApp() {
      await rabbitmqctl('start_app');
      await accepting();
    },
    async stop() {
      if (running(proc)) await rabbitmqctl('stop').catch(() => undefined);
      await stopChild(proc, 'SIGTERM', 30_000);
      await fsp.rm(dir, { recursive: true, force: true });
    },
  };
}

export interface OwnMariadb {
  /** mysql://root@127.0.0.1:<its port>/test, for freshDatabase and startGateway */
  rootUrl: string;
  /** stops the server (SIGTERM to its process: a normal shutdown) and waits until it has exited */
  shutdown(): Promise<void>;
  /** starts the server again on the same data directory and port */
  start(): Promise<void>;
  /** shuts it down and removes its directory */
  stop(): Promise<void>;
}

/**
 * Creates a MariaDB data directory of this test's own (mariadb-install-db, root without a
 * password) and starts a server on it: its own port, socket and pid file; `--no-defaults`, so no
 * my.cnf of the machine applies.
 */
export async function startOwnMariadb(): Promise<OwnMariadb> {
  const bin = process.env.TEST_MARIADB_BIN;
  const mariadbd = program(bin, 'mariadbd', ['/usr/sbin/mariadbd', '/usr/local/sbin/mariadbd']);
  const installDb = program(bin, 'mariadb-install-db', ['/usr/bin/mariadb-install-db', '/usr/local/bin/mariadb-install-db']);
  const dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'mg-mariadb-'));
  const datadir = path.join(dir, 'data');
  const [port] = await freePorts(1) as [number];
  // mariadbd refuses to run as root unless told to
  const asUser = process.getuid?.() === 0 ? ['--user=root'] : [];
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: dir, LANG: 'C.UTF-8' };
  try {
    await run(installDb, ['--no-defaults', `--datadir=${datadir}`, ...asUser, '--auth-root-authentication-method=normal', '--skip-test-db'], { env, timeout: 120_000 });
  } catch (err) {
    await fsp.rm(dir, { recursive: true, force: true });
    throw err;
  }
  const args = [
    '--no-defaults', `--datadir=${datadir}`, ...asUser,
    '--bind-address=127.0.0.1', `--port=${port}`, `--socket=${path.join(dir, 'mariadbd.sock')}`,
    `--pid-file=${path.join(dir, 'mariadbd.pid')}`, `--log-error=${path.join(dir, 'error.log')}`,
    '--skip-name-resolve', '--innodb-buffer-pool-size=32M', '--max-connections=200',
  ];
  let proc: Child | null = null;
  const start = async () => {
    const p = spawnChild(mariadbd, args, env);
    proc = p;
    await waitFor(async () => {
      if (!running(p)) throw new Error(`the test's MariaDB exited: ${p.output()}${await fsp.readFile(path.join(dir, 'error.log'), 'utf8').catch(() => '')}`);
      return portOpen(port);
    }, { what: `the test's MariaDB on port ${port}`, timeoutMs: 60_000, intervalMs: 100 });
  };
  const shutdown = async () => {
    if (proc) await stopChild(proc, 'SIGTERM', 60_000);
  };
  try {
    await start();
  } catch (err) {
    await shutdown();
    await fsp.rm(dir, { recursive: true, force: true });
    throw err;
  }
  return {
    rootUrl: `mysql://root@127.0.0.1:${port}/test`,
    shutdown,
    start,
    async stop() {
      await shutdown();
      await fsp.rm(dir, { recursive: true, force: true });
    },
  };
}
