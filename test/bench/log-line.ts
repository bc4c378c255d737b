// The request log line's CPU (plugins/responses.ts), alone: the process's CPU (every thread: the
// pipe writes run on libuv's) per line, as hapi-pino wrote it (a child logger per request with the
// request id and method, setBindings with route and caller at the answer, then the line) against
// one flat line on the app's logger (what the plugin writes since issue 15), 20 lines per turn of
// the event loop, into a pipe read by `cat > /dev/null` through pino's default asynchronous
// destination, as app.ts's logger writes stdout. Median of 12 alternating rounds of 40,000 lines.
//   node test/bench/log-line.ts            (LVL=silent: the level the benchmarks run at)
import crypto from 'node:crypto';
import { pino } from 'pino';
import { discardingPipe } from './lib.ts';
const fd = discardingPipe();
const level = process.env.LVL ?? 'info';
const log = pino({ level, base: { role: 'api' }, serializers: { res: (r: { statusCode?: number }) => ({ statusCode: r.statusCode }) } }, pino.destination({ dest: fd, sync: false }));
const res0 = { statusCode: 200, other: 1 };
const variants = {
  child: () => { const c = log.child({ reqId: crypto.randomUUID(), method: 'GET' }); c.setBindings({ route: 'getPredictionResult', callerId: 12, keyId: 7 }); c.info({ payload: undefined, queryParams: undefined, pathParams: undefined, tags: undefined, err: undefined, res: res0, responseTime: 3 }, 'request completed'); },
  flat: () => { const id = crypto.randomUUID(); if (log.isLevelEnabled('info')) log.info({ reqId: id, method: 'GET', route: 'getPredictionResult', callerId: 12, keyId: 7, res: res0, responseTime: 3 }, 'request completed'); },
} as const;
type K = keyof typeof variants;
async function run(f: () => void, n: number) {
  const c0 = process.cpuUsage();
  for (let i = 0; i < n; i += 20) { for (let j = 0; j < 20; j++) f(); await new Promise((r) => setImmediate(r)); }
  const c = process.cpuUsage(c0);
  return (c.user + c.system) / n;
}
const res: Record<string, number[]> = { child: [], flat: [] };
for (let r = 0; r < 12; r++) for (const k of (r % 2 ? ['child', 'flat'] : ['flat', 'child']) as K[]) res[k]!.push(await run(variants[k], 40000));
const med = (a: number[]) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)]!;
console.log(level, JSON.stringify(Object.fromEntries(Object.entries(res).map(([k, v]) => [k, { med: med(v).toFixed(2), min: Math.min(...v).toFixed(2) }]))));
process.exit(0);
