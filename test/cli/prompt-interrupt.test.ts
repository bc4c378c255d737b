// Ctrl-C at a prompt on a terminal: readline reads it as a key, so no SIGINT reaches the process
// unless the prompt passes it on. The CLI runs on a pseudo-terminal (python3's standard pty
// module plays the terminal: Node has none of its own) and gets a Ctrl-C byte at "Password: ".
import test from 'ava';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '..', '..');
const BIN = path.join(ROOT, (JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { bin: Record<string, string> }).bin.mediagate!);

// Runs argv on a pseudo-terminal, types Ctrl-C once `Password: ` shows, and prints the exit code
// and everything the terminal showed as JSON. Killed after 20 s.
const DRIVER = String.raw`
import json, os, pty, select, sys, time
pid, fd = pty.fork()
if pid == 0:
    os.execvp(sys.argv[1], sys.argv[1:])
out, sent, done, status = b'', False, 0, 0
deadline = time.time() + 20
while time.time() < deadline:
    ready, _, _ = select.select([fd], [], [], 0.1)
    if ready:
        try:
            chunk = os.read(fd, 4096)
        except OSError:
            break
        if not chunk:
            break
        out += chunk
    if not sent and b'Password: ' in out:
        os.write(fd, b'\x03')
        sent = True
    done, status = os.waitpid(pid, os.WNOHANG)
    if done:
        break
timed_out = False
if not done:
    if time.time() >= deadline:
        os.kill(pid, 9)
        timed_out = True
    done, status = os.waitpid(pid, 0)
print(json.dumps({'code': os.waitstatus_to_exitcode(status), 'sent': sent, 'timedOut': timed_out, 'output': out.decode(errors='replace')}))
`;

test('Ctrl-C at the password prompt ends the login with 130 and says so', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mg-prompt-sigint-'));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  const child = spawn('python3', ['-c', DRIVER, process.execPath, BIN, 'auth', 'login', '--email', 'a@example.com'], {
    // nothing listens on port 9: the login must end before any request
    env: { PATH: process.env.PATH ?? '', MEDIAGATE_BASE_URL: 'http://127.0.0.1:9', MEDIAGATE_CONFIG: path.join(dir, 'none.json') },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let stdout = '';
  child.stdout.on('data', (c: Buffer) => { stdout += c.toString(); });
  await new Promise<void>((resolve) => child.on('close', () => resolve()));
  const r = JSON.parse(stdout) as { code: number; sent: boolean; timedOut: boolean; output: string };
  t.true(r.sent, r.output);
  t.false(r.timedOut, r.output);
  t.is(r.code, 130, r.output);
  t.regex(r.output, /mediagate: interrupted/);
  // not taken as an empty answer
  t.notRegex(r.output, /a password are needed/);
});
