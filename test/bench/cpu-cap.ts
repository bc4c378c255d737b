// BENCH_PROCESS_CPU=<share of a core> (test/bench/README.md, "Per-process CPU caps"): every gateway process the benchmark
// starts (each API process, the node:cluster primary and each of its workers, each worker process)
// is moved into a cgroup of its own (cgroup v1 `cpu` controller) whose CFS quota is that share of
// one core, so that 2 + 2 capped processes still leave cores idle and the scale-out phase shows
// what adding processes gives (as on more machines) while MariaDB and RabbitMQ are not saturated.
// MariaDB, RabbitMQ, the bare hapi process and the load generator (the benchmark process) stay
// uncapped. The cgroups are removed when their process stops, and all of them at the end, on
// failure and on SIGINT/SIGTERM (process 'exit' as the last resort).
import { existsSync, mkdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const CPU_ROOT = '/sys/fs/cgroup/cpu';
const DEFAULT_PERIOD_US = 100_000;

/**
 * BENCH_CPU_PERIOD_MS: the CFS period in ms (default 100, the kernel's). A process at its cap runs
 * `share` of each period and then waits out the rest; with 100 ms and 0.2 core that wait is up to
 * 80 ms, long enough to stall other processes on a row lock the throttled one holds.
 */
function periodUs(raw: string | undefined): number {
  if (raw === undefined || raw.trim() === '') return DEFAULT_PERIOD_US;
  const ms = Number(raw);
  if (!Number.isFinite(ms) || ms < 1 || ms > 1000) {
    throw new Error(`BENCH_CPU_PERIOD_MS must be a CFS period in ms, 1 to 1000 (got ${JSON.stringify(raw)})`);
  }
  return Math.round(ms * 1000);
}

export interface CpuCap {
  /** share of one core each gateway process may use */
  share: number;
  /** human-readable, for the phase labels: "each gateway process capped at 0.25 core (cgroup cpu quota)" */
  label: string;
  /** moves `pid` into a fresh cgroup of its own; returns the cgroup's path as /proc/<pid>/cgroup shows it */
  cap(pid: number, name: string): string;
  /** the group's cpu.stat counters of a capped pid: CFS periods, periods throttled, ns throttled (null when not capped/gone) */
  throttling(pid: number): { periods: number; throttled: number; throttledNs: number } | null;
  /** removes the cgroups of these pids (processes still inside are moved back to the root first) */
  release(pids: readonly number[]): void;
  /** removes every cgroup this benchmark made; synchronous, so it can run in an 'exit' handler */
  releaseAll(): void;
}

/**
 * Reads BENCH_PROCESS_CPU. Undefined/empty: no cap (the default benchmark). Otherwise a number in
 * (0, cores]; anything else, or a cgroup fs this process cannot write, is refused with an
 * explanation (thrown), never silently run uncapped.
 */
export function cpuCapFromEnv(raw: string | undefined, rawPeriodMs?: string): CpuCap | null {
  if (raw === undefined || raw.trim() === '') return null;
  const PERIOD_US = periodUs(rawPeriodMs);
  const share = Number(raw);
  const cores = os.cpus().length;
  if (!Number.isFinite(share) || share <= 0 || share > cores) {
    throw new Error(`BENCH_PROCESS_CPU must be a share of one core, > 0 and <= ${cores} (this machine's cores), e.g. 0.25 (got ${JSON.stringify(raw)})`);
  }
  const quota = Math.round(share * PERIOD_US);
  if (quota < 1000) throw new Error(`BENCH_PROCESS_CPU=${raw} is below the kernel's smallest CFS quota (1 ms per ${PERIOD_US / 1000} ms period, i.e. ${1000 / PERIOD_US})`);
  const prefix = `mg-bench-${process.pid}`;
  const probe = path.join(CPU_ROOT, `${prefix}-probe`);
  try {
    if (!existsSync(path.join(CPU_ROOT, 'cpu.cfs_quota_us'))) throw new Error(`${CPU_ROOT} is not a cgroup v1 cpu controller (no cpu.cfs_quota_us)`);
    mkdirSync(probe);
    writeFileSync(path.join(probe, 'cpu.cfs_period_us'), String(PERIOD_US));
    writeFileSync(path.join(probe, 'cpu.cfs_quota_us'), String(quota));
  } catch (err) {
    try {
      if (existsSync(probe)) rmdirSync(probe);
    } catch {
      // best effort
    }
    throw new Error(`BENCH_PROCESS_CPU=${raw} needs a writable cgroup v1 cpu controller at ${CPU_ROOT} (run as root, cgroup v1 mounted): ${(err as Error).message}. Refusing to run uncapped; unset BENCH_PROCESS_CPU for the default benchmark.`);
  }
  rmdirSync(probe);

  const made = new Map<number, string>();
  let n = 0;
  const remove = (pid: number) => {
    const dir = made.get(pid);
    if (!dir) return;
    made.delete(pid);
    try {
      // a process still inside keeps the directory busy: move it back to the root group first
      const left = readFileSync(path.join(dir, 'cgroup.procs'), 'utf8').split('\n').filter(Boolean);
      for (const p of left) {
        try {
          writeFileSync(path.join(CPU_ROOT, 'cgroup.procs'), p);
        } catch {
          // it exited meanwhile
        }
      }
      rmdirSync(dir);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') process.stderr.write(`bench: could not remove cgroup ${dir}: ${(err as Error).message}\n`);
    }
  };
  return {
    share,
    label: `each gateway process capped at ${share} core (cgroup cpu quota ${quota}/${PERIOD_US} us)`,
    cap(pid, name) {
      const dir = path.join(CPU_ROOT, `${prefix}-${++n}-${name.replace(/[^a-z0-9]+/gi, '-')}-${pid}`);
      mkdirSync(dir);
      made.set(pid, dir);
      writeFileSync(path.join(dir, 'cpu.cfs_period_us'), String(PERIOD_US));
      writeFileSync(path.join(dir, 'cpu.cfs_quota_us'), String(quota));
      writeFileSync(path.join(dir, 'cgroup.procs'), String(pid));
      // check where it landed (a process forked before the move stays where it was)
      const line = readFileSync(`/proc/${pid}/cgroup`, 'utf8').split('\n').find((l) => /^\d+:([^:]*,)?cpu(,[^:]*)?:/.test(l));
      const landed = line?.split(':')[2] ?? '?';
      if (landed !== `/${path.basename(dir)}`) throw new Error(`pid ${pid} did not land in its cgroup ${dir} (it is in ${landed})`);
      return landed;
    },
    throttling(pid) {
      const dir = made.get(pid);
      if (!dir) return null;
      try {
        const stat = Object.fromEntries(readFileSync(path.join(dir, 'cpu.stat'), 'utf8').split('\n').filter(Boolean).map((l) => l.split(' ') as [string, string]));
        return { periods: Number(stat.nr_periods), throttled: Number(stat.nr_throttled), throttledNs: Number(stat.throttled_time) };
      } catch {
        return null;
      }
    },
    release(pids) {
      for (const pid of pids) remove(pid);
    },
    releaseAll() {
      for (const pid of [...made.keys()]) remove(pid);
    },
  };
}
