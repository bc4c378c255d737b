// The part of autocannon 8's programmatic API the benchmark uses (the package ships no types).
declare module 'autocannon' {
  interface AutocannonOptions {
    url: string;
    method?: 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH' | 'HEAD';
    headers?: Record<string, string>;
    body?: string;
    connections?: number;
    /** seconds */
    duration?: number;
    /** stop after this many requests (overrides duration) */
    amount?: number;
    /** worker threads firing requests; the options must then be structured-cloneable */
    workers?: number;
    /** ms between samples of the requests/throughput histograms */
    sampleInt?: number;
    /** seconds */
    timeout?: number;
    title?: string;
    excludeErrorStats?: boolean;
    /** requests per second over all connections (open-loop load) */
    overallRate?: number;
    /** the request sequence each connection cycles through (functions only without `workers`) */
    requests?: RequestSpec[];
  }

  interface RawRequest {
    method?: string;
    path?: string;
    headers?: Record<string, string>;
    body?: string;
  }

  interface RequestSpec extends RawRequest {
    /** returns the request to send (a falsy value restarts the sequence) */
    setupRequest?: (req: RawRequest, context: Record<string, unknown>) => RawRequest;
    /** sees every answer (its body as a string) */
    onResponse?: (status: number, body: string, context: Record<string, unknown>, headers: Record<string, string>) => void;
  }

  interface Histogram {
    average: number;
    mean: number;
    stddev: number;
    min: number;
    max: number;
    total?: number;
    p50: number;
    p90: number;
    p97_5: number;
    p99: number;
    p99_9: number;
  }

  interface AutocannonResult {
    title?: string;
    url: string;
    connections: number;
    /** seconds */
    duration: number;
    errors: number;
    timeouts: number;
    mismatches: number;
    non2xx: number;
    resets: number;
    '1xx': number;
    '2xx': number;
    '3xx': number;
    '4xx': number;
    '5xx': number;
    statusCodeStats: Record<string, { count: number }>;
    /** ms */
    latency: Histogram & { totalCount: number };
    /** requests per sample interval; `total` is the number of completed requests */
    requests: Histogram & { sent: number };
    throughput: Histogram;
  }

  interface Instance extends NodeJS.EventEmitter {
    stop(): void;
  }

  function autocannon(opts: AutocannonOptions, cb: (err: Error | null, result: AutocannonResult) => void): Instance;
  export = autocannon;
}
