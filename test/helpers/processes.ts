// Real gateway processes (`node main.ts`) for tests that kill or restart them.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import path from 'node:path';
import net from 'node:net';
import { waitFor } from './services.ts';

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..', '..');

export interface GatewayProcess {
  child: ChildProcess;
  output(): string;
  /** resolves with the exit code (null when a signal ended it) */
  exited: Promise<number | null>;
  kill(signal?: NodeJS.Signals): Promise<number | null>;
}

/** What a finished process wrote and its exit code (null when a signal ended it). */
export interface Finished { code: number | null; stdout: string; stderr: string }

/**
 * Collects a spawned process's stdout and stderr (both piped) until it closes; `stdin`, when
 * given, is written to its piped stdin and closed (a process that exits without reading it is
 * no error).
 */
export function finished(child: ChildProcess, stdin?: string): Promise<Finished> {
  return new Promise((resolve, reject) => {
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (d: Buffer) => { stdout += d.toString(); });
    child.stderr!.on('data', (d: Buffer) => { stderr += d.toString(); });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    if (stdin !== undefined) {
      child.stdin!.on('error', () => {});
      child.stdin!.end(stdin);
    }
  });
}

export function spawnGateway(env: Record<string, string>): GatewayProcess {
  const child = spawn(process.execPath, ['main.ts'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => { out += d.toString(); });
  child.stderr!.on('data', (d: Buffer) => { out += d.toString(); });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return {
    child,
    output: () => out,
    exited,
    async kill(signal: NodeJS.Signals = 'SIGKILL') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}

/**
 * The code the gateway mailed to `email`, read from its log as the quick start says: with no
 * SMTP_URL on the embedded default, each mail is logged under `MAIL NOT SENT`.
 */
export async function mailedCode(proc: GatewayProcess, email: string): Promise<string> {
  return waitFor(() => {
    for (const line of proc.output().split('\n')) {
      if (!line.includes('MAIL NOT SENT')) continue;
      const mail = (JSON.parse(line) as { mail?: { to: string; text: string } }).mail;
      const code = mail?.to === email ? /code is (\d{6})/.exec(mail.text)?.[1] : undefined;
      if (code) return code;
    }
    return undefined;
  }, { what: `the code mailed to ${email} in the log` });
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
    srv.on('error', reject);
  });
}
