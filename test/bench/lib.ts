// Shared helpers of the benchmark (npm run bench): load generation, percentiles, child processes.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';

export type AutocannonOptions = Parameters<typeof autocannon>[0];
export type AutocannonResult = Parameters<Parameters<typeof autocannon>[1]>[1];

export const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..', '..');

export interface HttpRun {
  /** completed requests per second over the whole run */
  rps: number;
  /** 2xx answers per second over the whole run: the throughput figure (non-2xx are counted apart) */
  okPerS: number;
  ok: number;
  requests: number;
  durationS: number;
  p50Ms: number;
  p99Ms: number;
  meanMs: number;
  maxMs: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  statusCodes: Record<string, number>;
}

/**
 * Runs autocannon. On this process's main thread by default (the servers under test are child
 * processes, and `requests` with a setupRequest function need the main thread); `workers: 1`
 * moves it to a worker thread when a server shares this process. It always shares the
 * machine's CPU cores with the servers.
 */
export function fire(opts: AutocannonOptions): Promise<HttpRun> {
  return new Promise((resolve, reject) => {
    autocannon({ sampleInt: 100, timeout: 30, ...opts }, (err, r) => {
      if (err) {
        reject(err);
        return;
      }
      const completed = r.requests.total ?? r['1xx'] + r['2xx'] + r['3xx'] + r['4xx'] + r['5xx'];
      const statusCodes: Record<string, number> = {};
      for (const [code, { count }] of Object.entries(r.statusCodeStats)) statusCodes[code] = count;
      resolve({
        rps: r.duration > 0 ? completed / r.duration : 0,
        okPerS: r.duration > 0 ? r['2xx'] / r.duration : 0,
        ok: r['2xx'],
        requests: completed,
        durationS: r.duration,
        p50Ms: r.latency.p50,
        p99Ms: r.latency.p99,
        meanMs: r.latency.mean,
        maxMs: r.latency.max,
        non2xx: r.non2xx,
        errors: r.errors,
        timeouts: r.timeouts,
        statusCodes,
      });
    });
  });
}

/** Nearest-rank percentile of an ascending array. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))]!;
}

export function mean(values: readonly number[]): number {
  return values.length === 0 ? Number.NaN : values.reduce((a, b) => a + b, 0) / values.length;
}

export function round(v: number, digits = 1): number {
  if (!Number.isFinite(v)) return v;
  const f = 10 ** digits;
  return Math.round(v * f) / f;
}

/**
 * A file descriptor of a pipe whose reader (`cat > /dev/null`, a child this process does not wait
 * for) throws everything away: where log lines go as a deployment's stdout goes to its log
 * collector's pipe (pino.destination({ dest: fd, sync: false })).
 */
export function discardingPipe(): number {
  const cat = spawn('sh', ['-c', 'cat > /dev/null'], { stdio: ['pipe', 'ignore', 'inherit'] });
  cat.unref();
  return (cat.stdin as unknown as { _handle: { fd: number } })._handle.fd;
}

export interface Child {
  child: ChildProcess;
  /** resolves with the next stdout line that is a JSON object (lines are queued until asked for) */
  nextJson<T>(timeoutMs: number): Promise<T>;
  /** writes one JSON line to the child's stdin (spawned with `input: true`) */
  send(message: object): void;
  stderr(): string;
  /** SIGTERM, then SIGKILL after a grace period; resolves once the child has exited */
  kill(): Promise<void>;
}

/** Starts `node <script> ...args` with the repository as working directory. */
export function spawnNode(script: string, args: readonly string[], opts: { env?: Record<string, string>; nodeArgs?: readonly string[]; input?: boolean } = {}): Child {
  const child = spawn(process.execPath, [...(opts.nodeArgs ?? []), script, ...args], {
    cwd: ROOT,
    env: { ...process.env, ...opts.env },
    stdio: [opts.input ? 'pipe' : 'ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  const lines: string[] = [];
  const waiters: Array<() => void> = [];
  let exitCode: number | null = null;
  let exitSignal: NodeJS.Signals | null = null;
  let hasExited = false;
  const exited = new Promise<void>((resolve) => child.once('exit', (code, signal) => {
    hasExited = true;
    exitCode = code;
    exitSignal = signal;
    for (const w of waiters.splice(0)) w();
    resolve();
  }));
  child.stdin?.on('error', () => {});
  child.stdout!.setEncoding('utf8');
  child.stderr!.setEncoding('utf8');
  child.stdout!.on('data', (d: string) => {
    out += d;
    let nl: number;
    while ((nl = out.indexOf('\n')) >= 0) {
      const line = out.slice(0, nl).trim();
      out = out.slice(nl + 1);
      // a JSON line, not one of the child's pino log lines (LOG_LEVEL=info writes one per request)
      if (line.startsWith('{') && !line.startsWith('{"level":')) lines.push(line);
    }
    if (lines.length) for (const w of waiters.splice(0)) w();
  });
  child.stderr!.on('data', (d: string) => {
    err = (err + d).slice(-20_000);
  });
  return {
    child,
    stderr: () => err,
    nextJson<T>(timeoutMs: number): Promise<T> {
      return new Promise<T>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`${script}: no answer within ${timeoutMs} ms\n${err}`)), timeoutMs);
        const check = () => {
          const line = lines.shift();
          if (line !== undefined) {
            clearTimeout(timer);
            try {
              resolve(JSON.parse(line) as T);
            } catch (e) {
              reject(e instanceof Error ? e : new Error(String(e)));
            }
          } else if (hasExited) {
            clearTimeout(timer);
            reject(new Error(`${script} exited (code ${exitCode}, signal ${exitSignal}) before answering\n${err}`));
          } else {
            waiters.push(check);
          }
        };
        check();
      });
    },
    send(message: object) {
      if (!child.stdin) throw new Error(`${script}: spawned without input`);
      child.stdin.write(`${JSON.stringify(message)}\n`);
    },
    async kill() {
      if (hasExited) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => {
        if (!hasExited) child.kill('SIGKILL');
      }, 5_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** Busy share (0-100) of all the machine's cores between two os.cpus() snapshots. */
export function cpuBusyPct(before: ReturnType<typeof os.cpus>, after: ReturnType<typeof os.cpus>): number {
  let busy = 0;
  let total = 0;
  after.forEach((c, i) => {
    const s = before[i]?.times;
    if (!s) return;
    const t = c.times;
    const idle = t.idle - s.idle;
    const all = t.user - s.user + (t.nice - s.nice) + (t.sys - s.sys) + (t.irq - s.irq) + idle;
    busy += all - idle;
    total += all;
  });
  return total > 0 ? (100 * busy) / total : Number.NaN;
}

/**
 * Waits until the machine has been quiet (all cores together below `thresholdPct` busy) for two
 * consecutive half-second samples, so that the previous phase's aftermath (MariaDB flushing,
 * processes exiting) does not land in the next measurement. Gives up after `maxWaitMs`.
 */
export async function waitForQuiet(opts: { thresholdPct?: number; maxWaitMs?: number } = {}): Promise<{ waitedMs: number; busyPct: number; quiet: boolean }> {
  const threshold = opts.thresholdPct ?? 20;
  const deadline = Date.now() + (opts.maxWaitMs ?? 15_000);
  const t0 = Date.now();
  let calm = 0;
  let last = os.cpus();
  let busyPct = Number.NaN;
  for (;;) {
    await new Promise((r) => setTimeout(r, 500));
    const now = os.cpus();
    busyPct = cpuBusyPct(last, now);
    last = now;
    calm = busyPct < threshold ? calm + 1 : 0;
    if (calm >= 2) return { waitedMs: Date.now() - t0, busyPct: round(busyPct, 0), quiet: true };
    if (Date.now() > deadline) return { waitedMs: Date.now() - t0, busyPct: round(busyPct, 0), quiet: false };
  }
}

/** CPU time (ms) per process, from /proc (Linux); empty elsewhere. */
export function processCpuSnapshot(): Map<number, { name: string; ms: number }> {
  const snapshot = new Map<number, { name: string; ms: number }>();
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((d) => /^\d+$/.test(d));
  } catch {
    return snapshot;
  }
  for (const pid of pids) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const close = stat.lastIndexOf(')');
      const name = stat.slice(stat.indexOf('(') + 1, close);
      const fields = stat.slice(close + 2).split(' ');
      // fields[0] is field 3 (state): utime and stime are fields 14 and 15, in clock ticks (USER_HZ = 100 on Linux)
      const ticks = Number(fields[11]) + Number(fields[12]);
      if (Number.isFinite(ticks)) snapshot.set(Number(pid), { name, ms: ticks * 10 });
    } catch {
      // the process has gone
    }
  }
  return snapshot;
}

/** The processes that used the most CPU between two snapshots, as % of one core. */
export function topProcesses(before: Map<number, { name: string; ms: number }>, after: Map<number, { name: string; ms: number }>, wallMs: number, labels: ReadonlyMap<number, string>, n = 4): Array<{ pid: number; name: string; corePct: number }> {
  const rows: Array<{ pid: number; name: string; corePct: number }> = [];
  for (const [pid, a] of after) {
    const used = a.ms - (before.get(pid)?.ms ?? 0);
    if (used > 0 && wallMs > 0) rows.push({ pid, name: labels.get(pid) ?? a.name, corePct: round((100 * used) / wallMs, 0) });
  }
  return rows.sort((x, y) => y.corePct - x.corePct).slice(0, n);
}

/** utime + stime (ms) of one process from /proc/<pid>/stat, NaN when it has gone or /proc is missing. */
export function processCpuMs(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return Number.NaN;
  }
}

/**
 * What a process has done so far, from /proc: CPU (utime + stime, ms), read and write system calls
 * (/proc/<pid>/io syscr, syscw: every socket read and write counts), voluntary and involuntary
 * context switches (/proc/<pid>/status, summed over its threads) and the time its threads waited
 * runnable for a core (/proc/<pid>/schedstat, summed over its threads, ms): divided by requests,
 * they tell work that grew (more system calls per request) from the same work slowed by a
 * crowded machine (waiting for a core, being switched out). NaN where /proc cannot be read.
 */
export interface ProcStats { cpuMs: number; syscalls: number; volCs: number; involCs: number; runqWaitMs: number }
export function processStats(pid: number): ProcStats {
  const nan = { cpuMs: Number.NaN, syscalls: Number.NaN, volCs: Number.NaN, involCs: Number.NaN, runqWaitMs: Number.NaN };
  try {
    const io = readFileSync(`/proc/${pid}/io`, 'utf8');
    const field = (text: string, name: string) => Number(new RegExp(`^${name}:\\s*(\\d+)`, 'm').exec(text)?.[1] ?? Number.NaN);
    let volCs = 0;
    let involCs = 0;
    let runqWaitNs = 0;
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      try {
        const status = readFileSync(`/proc/${pid}/task/${tid}/status`, 'utf8');
        volCs += field(status, 'voluntary_ctxt_switches');
        involCs += field(status, 'nonvoluntary_ctxt_switches');
        runqWaitNs += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[1]);
      } catch {
        // a thread that ended meanwhile
      }
    }
    return { cpuMs: processCpuMs(pid), syscalls: field(io, 'syscr') + field(io, 'syscw'), volCs, involCs, runqWaitMs: runqWaitNs / 1e6 };
  } catch {
    return nan;
  }
}

/** Pids of the processes whose command name (/proc/<pid>/comm) is one of `names`. */
export function pidsByName(names: readonly string[]): number[] {
  const found: number[] = [];
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((d) => /^\d+$/.test(d));
  } catch {
    return found;
  }
  for (const pid of pids) {
    try {
      if (names.includes(readFileSync(`/proc/${pid}/comm`, 'utf8').trim())) found.push(Number(pid));
    } catch {
      // gone
    }
  }
  return found;
}

/** A V8 CPU profile as the inspector's Profiler.stop answers it (the fields the summary reads). */
interface CpuProfile {
  nodes: Array<{ id: number; callFrame: { functionName: string; url: string; lineNumber: number } }>;
  samples?: number[];
  timeDeltas?: number[];
}

/** Prints a CPU profile's self time by file or package (top 25) and by function (top 30), in % of the samples' time. */
export function printSelfTime(profile: CpuProfile): void {
  const self = new Map<string, number>();
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  const dt = profile.timeDeltas ?? [];
  (profile.samples ?? []).forEach((s, i) => {
    const n = nodes.get(s)!;
    const k = `${n.callFrame.functionName || '(anon)'} ${n.callFrame.url.replace(/^.*node_modules\//, 'nm/').replace(`file://${ROOT}/`, '')}:${n.callFrame.lineNumber}`;
    self.set(k, (self.get(k) ?? 0) + (dt[i] ?? 0));
  });
  const total = [...self.values()].reduce((a, b) => a + b, 0);
  const byFile = new Map<string, number>();
  for (const [k, v] of self) {
    const f = k.split(' ')[1]!.split(':')[0]!.replace(/^(nm\/(@[^/]+\/)?[^/]+).*/, '$1');
    byFile.set(f, (byFile.get(f) ?? 0) + v);
  }
  console.log('--- by file/package (self %)');
  for (const [k, v] of [...byFile].sort((a, b) => b[1] - a[1]).slice(0, 25)) console.log((v / total * 100).toFixed(1).padStart(5), k);
  console.log('--- top functions (self %)');
  for (const [k, v] of [...self].sort((a, b) => b[1] - a[1]).slice(0, 30)) console.log((v / total * 100).toFixed(1).padStart(5), k);
}
