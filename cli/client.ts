// The CLI's HTTP client: the gateway's documented routes, over fetch, with an answer's status
// mapped to the CLI's exit codes (README "CLI", exit codes). Knows nothing of the server's code.

/** Exit codes, one per kind of failure a script or an agent may want to branch on. */
export const EXIT = {
  ok: 0,
  /** anything else: the gateway unreachable, a 5xx, an answer we cannot read */
  error: 1,
  /** the command line itself is wrong */
  usage: 2,
  /** 401 or 403: no key, a revoked or restricted key, a missing scope or role */
  auth: 3,
  /** 429 */
  rateLimited: 4,
  /** 404 */
  notFound: 5,
  /** 402 */
  insufficientCredit: 6,
  /** waiting for a prediction ran out of time */
  timeout: 7,
  /** 400, 413, 415, 422: the gateway refused the input */
  validation: 8,
  /** the prediction finished `failed` or `cancelled` */
  predictionFailed: 9,
  /** 409, 410: a conflict with the current state */
  conflict: 10,
  /** Ctrl-C (SIGINT): 128 + the signal's number, as shells report it (interrupt.ts) */
  interrupted: 130,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** A failure the CLI reports as one sentence and an exit code (and as JSON with --json). */
export class CliError extends Error {
  readonly exitCode: ExitCode;
  readonly status: number | undefined;
  readonly code: string | undefined;
  readonly body: unknown;

  constructor(message: string, exitCode: ExitCode, extra: { status?: number; code?: string; body?: unknown } = {}) {
    super(message);
    this.exitCode = exitCode;
    this.status = extra.status;
    this.code = extra.code;
    this.body = extra.body;
  }
}

export function exitCodeForStatus(status: number): ExitCode {
  if (status === 401 || status === 403) return EXIT.auth;
  if (status === 429) return EXIT.rateLimited;
  if (status === 404) return EXIT.notFound;
  if (status === 402) return EXIT.insufficientCredit;
  if (status === 400 || status === 413 || status === 415 || status === 422) return EXIT.validation;
  if (status === 409 || status === 410) return EXIT.conflict;
  return EXIT.error;
}

/** One sentence from the gateway's error body: `{"detail": "...", "code": "..."}`, or FastAPI's 422 list. */
function describe(status: number, body: unknown): { message: string; code?: string } {
  if (body && typeof body === 'object') {
    const b = body as { detail?: unknown; code?: unknown };
    const code = typeof b.code === 'string' ? b.code : undefined;
    if (typeof b.detail === 'string') return { message: b.detail, ...(code ? { code } : {}) };
    if (Array.isArray(b.detail)) {
      const items = b.detail.map((d: { loc?: unknown[]; msg?: string }) => `${(d.loc ?? []).slice(1).join('.') || 'input'}: ${d.msg ?? 'invalid'}`);
      return { message: `the gateway refused the input: ${items.join('; ')}`, ...(code ? { code } : {}) };
    }
  }
  return { message: `the gateway answered ${status}` };
}

/** The CliError for a 4xx or 5xx answer: the gateway's sentence and code, the exit code of its status. */
export function errorOf(status: number, headers: Headers, parsed: unknown): CliError {
  const { message, code } = describe(status, parsed);
  const retry = headers.get('retry-after');
  const suffix = status === 429 && retry ? ` (retry after ${retry} s)` : '';
  return new CliError(message + suffix, exitCodeForStatus(status), { status, ...(code ? { code } : {}), body: parsed });
}

/** Milliseconds a Retry-After header asks for (seconds or an HTTP date), or undefined. */
export function retryAfterMs(headers: Headers): number | undefined {
  const raw = headers.get('retry-after');
  if (!raw) return undefined;
  if (/^\d+$/.test(raw.trim())) return Number(raw.trim()) * 1000;
  const at = Date.parse(raw);
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now());
}

export interface ClientOptions {
  baseUrl: string;
  apiKey?: string | undefined;
  /** a team the requests act for (`team_id`) */
  teamId?: number | undefined;
  /** why there is no key, when there is a reason other than "never signed in" (the stored key is another gateway's) */
  noKeyReason?: string | undefined;
  /** the longest one request may take, its answer read whole (default REQUEST_TIMEOUT_MS) */
  requestTimeoutMs?: number | undefined;
}

/**
 * The longest one JSON request waits for the gateway's whole answer: a gateway that stops
 * answering mid-request would otherwise hold the command (or an agent's MCP tool call) for ever.
 * Following a prediction and downloading its files have their own bounds (commands.ts).
 */
export const REQUEST_TIMEOUT_MS = 120_000;

/** Whether a host name is this machine (localhost, 127.0.0.0/8, ::1), where plain http never crosses a network. */
export function isLoopbackHost(hostname: string): boolean {
  const h = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  return h === 'localhost' || h.endsWith('.localhost') || h === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h);
}

/** A base URL as the CLI compares them: origin and path, without trailing slashes. */
export function sameGateway(a: string, b: string): boolean {
  const norm = (u: string) => {
    try {
      const url = new URL(u);
      return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
    } catch {
      return u.replace(/\/+$/, '');
    }
  };
  return norm(a) === norm(b);
}

/**
 * A redirect is never followed: fetch would send every header but Authorization on to the address
 * it names, x-api-key included, so the key would reach whatever origin the answer points to. The
 * user is told where it pointed, to set that address as the gateway if it is one.
 */
export function refuseRedirect(baseUrl: string, res: Response): void {
  if (res.status < 300 || res.status >= 400) return;
  const location = res.headers.get('location');
  let where = 'another address';
  if (location) {
    try { where = new URL(location, baseUrl).href; } catch { where = JSON.stringify(location.slice(0, 200)); }
  }
  throw new CliError(`the gateway at ${baseUrl} answered a redirect (${res.status}) to ${where}; redirects are not followed, so the key goes to no other address: if that is the gateway, use it as --base-url`, EXIT.error, { status: res.status });
}

export interface Answer<T> {
  status: number;
  headers: Headers;
  body: T;
}

export class Client {
  readonly baseUrl: string;
  readonly apiKey: string | undefined;
  readonly teamId: number | undefined;
  readonly noKeyReason: string | undefined;
  readonly requestTimeoutMs: number;
  private warnedCleartext = false;

  constructor(opts: ClientOptions) {
    this.baseUrl = opts.baseUrl.replace(/\/+$/, '');
    this.apiKey = opts.apiKey;
    this.teamId = opts.teamId;
    this.noKeyReason = opts.noKeyReason;
    this.requestTimeoutMs = opts.requestTimeoutMs ?? REQUEST_TIMEOUT_MS;
  }

  /**
   * The address of a route. Every request goes through here, so this is where an id from the
   * command line is refused when it cannot be one: ids are put in paths with encodeURIComponent,
   * which leaves an empty id, `.` and `..` as they are, and the URL parser would then drop or
   * climb over them and ask another route (`predictions get ..`). Refused before any request.
   */
  url(path: string, query: Record<string, string | number | boolean | undefined> = {}): string {
    for (const segment of path.split('/').slice(1)) {
      if (segment === '' || segment === '.' || segment === '..') {
        throw new CliError(`"${segment}" is not an id: an id cannot be empty, "." or ".." (see \`mediagate --help\`)`, EXIT.usage);
      }
    }
    const u = new URL(this.baseUrl + path);
    for (const [k, v] of Object.entries(query)) if (v !== undefined) u.searchParams.set(k, String(v));
    return u.toString();
  }

  headers(extra: Record<string, string> = {}, auth = true): Record<string, string> {
    const h: Record<string, string> = { accept: 'application/json', 'user-agent': 'mediagate-cli', ...extra };
    if (auth && this.apiKey) {
      this.warnIfCleartext('your API key');
      h['x-api-key'] = this.apiKey;
    }
    return h;
  }

  /**
   * Says once, on stderr, when a secret is about to travel over plain http to another machine:
   * anyone on the path can read it. (http to this machine, a local gateway, is fine.)
   */
  warnIfCleartext(what: string): void {
    if (this.warnedCleartext) return;
    let url: URL;
    try { url = new URL(this.baseUrl); } catch { return; }
    if (url.protocol !== 'http:' || isLoopbackHost(url.hostname)) return;
    this.warnedCleartext = true;
    process.stderr.write(`mediagate: warning: ${this.baseUrl} is plain http: ${what} is sent unencrypted, readable by anyone on the network path; use the gateway's https address\n`);
  }

  requireKey(): void {
    if (!this.apiKey) throw new CliError(this.noKeyReason ?? 'not signed in: run `mediagate auth login`, or set MEDIAGATE_API_KEY', EXIT.auth);
  }

  /**
   * One JSON request. `auth: false` sends no key (public routes); `team: true` adds the team
   * (the `team_id` query parameter) when --team is set.
   */
  async request<T = unknown>(method: string, path: string, opts: {
    query?: Record<string, string | number | boolean | undefined>;
    body?: unknown;
    auth?: boolean;
    team?: boolean;
    headers?: Record<string, string>;
    signal?: AbortSignal;
  } = {}): Promise<Answer<T>> {
    const auth = opts.auth ?? true;
    if (auth) this.requireKey();
    const query = { ...opts.query };
    const body = opts.body;
    if (opts.team && this.teamId !== undefined) query.team_id = this.teamId;
    const headers = this.headers(opts.headers, auth);
    if (body !== undefined) headers['content-type'] = 'application/json';
    const late = AbortSignal.timeout(this.requestTimeoutMs);
    const signal = opts.signal ? AbortSignal.any([opts.signal, late]) : late;
    const timedOut = () => new CliError(`the gateway at ${this.baseUrl} did not answer within ${this.requestTimeoutMs / 1000} s`, EXIT.timeout);
    let res: Response;
    let text: string;
    try {
      res = await fetch(this.url(path, query), {
        method,
        headers,
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
        signal,
        redirect: 'manual',
      });
      refuseRedirect(this.baseUrl, res);
      text = await res.text();
    } catch (err) {
      if (err instanceof CliError) throw err;
      // a cancelled call: the caller's own reason, not an unreachable gateway
      if (opts.signal?.aborted) throw err;
      if (late.aborted) throw timedOut();
      throw new CliError(`cannot reach the gateway at ${this.baseUrl}: ${(err as Error).cause instanceof Error ? ((err as Error).cause as Error).message : (err as Error).message}`, EXIT.error);
    }
    let parsed: unknown = text;
    if ((res.headers.get('content-type') ?? '').includes('json') && text !== '') {
      try {
        parsed = JSON.parse(text);
      } catch {
        throw new CliError(`the gateway answered ${res.status} with a body that is not JSON`, EXIT.error, { status: res.status });
      }
    }
    if (res.status >= 400) throw errorOf(res.status, res.headers, parsed);
    return { status: res.status, headers: res.headers, body: parsed as T };
  }
}
