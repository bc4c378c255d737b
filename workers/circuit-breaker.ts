// A circuit breaker per upstream provider (README "Providers", failover). Per process: each worker
// learns on its own that a provider is down, after at most `failures` calls of its own; nothing
// is shared through the database or the queue, so a breaker costs no I/O and a worker restart
// starts with every circuit closed.
//
//   closed     every call goes through; `failures` retryable failures in a row (each within
//              `windowMs` of the latest) open it. A success, or an answer that is not a provider
//              failure (a 4xx about the input), closes the count again.
//   open       no call goes through (the worker fails over to the next provider, or retries later)
//   half-open  once `cooldownMs` passed, one call goes through as a trial: success closes the
//              circuit, a failure opens it for another cool-down. A trial that never reports
//              back (its worker stopped) lets another through after the next cool-down.
//
// Hand-written rather than opossum: opossum wraps a function call and counts rejections of that
// call, while here the outcome is decided in several places (submit, poll, collect) of a job that
// lives across queue messages; the state machine is small and tested (test/workers/circuit-breaker.test.ts).

export interface BreakerOptions {
  /** retryable failures in a row that open the circuit */
  failures: number;
  /** failures further apart than this do not add up */
  windowMs: number;
  /** how long an open circuit refuses calls before letting a trial through */
  cooldownMs: number;
  /** the clock (epoch ms) */
  now: () => number;
}

export type BreakerState = 'closed' | 'open' | 'half-open';

interface Circuit {
  /** times of the retryable failures since the last success, oldest first */
  failures: number[];
  /** when the circuit opened (or its last trial was let through) */
  openedAt: number | null;
  trial: boolean;
}

export interface CircuitBreaker {
  /** whether a call to this provider may go out now; true in half-open lets one trial through */
  allow(provider: string): boolean;
  success(provider: string): void;
  /** a retryable failure (network, timeout, 408/425/429, 5xx) */
  failure(provider: string): void;
  state(provider: string): BreakerState;
}

export function createCircuitBreaker(opts: BreakerOptions): CircuitBreaker {
  const circuits = new Map<string, Circuit>();

  function circuit(provider: string): Circuit {
    let c = circuits.get(provider);
    if (!c) {
      c = { failures: [], openedAt: null, trial: false };
      circuits.set(provider, c);
    }
    return c;
  }

  function state(provider: string): BreakerState {
    const c = circuits.get(provider);
    if (!c || c.openedAt === null) return 'closed';
    return opts.now() - c.openedAt >= opts.cooldownMs ? 'half-open' : 'open';
  }

  return {
    state,
    allow(provider) {
      const s = state(provider);
      if (s === 'closed') return true;
      if (s === 'open') return false;
      // Half-open: this call is the trial; the next waits another cool-down unless it reports.
      const c = circuit(provider);
      c.openedAt = opts.now();
      c.trial = true;
      return true;
    },
    success(provider) {
      circuits.delete(provider);
    },
    failure(provider) {
      const c = circuit(provider);
      const now = opts.now();
      if (c.trial || c.openedAt !== null) {
        // The trial failed (or a call that was already out when it opened): open for a full cool-down.
        c.openedAt = now;
        c.trial = false;
        return;
      }
      c.failures = c.failures.filter((t) => now - t <= opts.windowMs);
      c.failures.push(now);
      if (c.failures.length >= opts.failures) {
        c.openedAt = now;
        c.failures = [];
      }
    },
  };
}
