// MariaDB over TCP 127.0.0.1 vs its unix socket (DATABASE_URL ?socketPath=, README "Configuration"):
// `node test/bench/db-transport.ts [n] [rounds]`. A primary-key read of a prediction-sized row, n
// times with 20 in flight on a pool of 10, alternating the two transports `rounds` times. Prints
// per round trip the CPU of this process (process.cpuUsage) and of the server threads of the pool's
// connections (mariadbd runs one thread per connection: /proc/<pid>/task/<tid>/schedstat, so other
// clients of a shared server do not count).
import fs from 'node:fs/promises';
import { execFileSync } from 'node:child_process';
import { createDb } from '../../db/knex.ts';
import { freshDatabase } from '../helpers/services.ts';

const N = Number(process.argv[2] ?? 20_000);
const ROUNDS = Number(process.argv[3] ?? 3);
const mariadbPid = execFileSync('pgrep', ['-x', 'mariadbd']).toString().trim().split('\n')[0]!;
const database = await freshDatabase();
const setup = createDb({ databaseUrl: database.url, sqliteFile: '', poolMax: 1 });
await setup.raw('create table t (id varchar(32) primary key, status varchar(16), outputs text, created_at bigint)');
await setup.raw("insert into t values ('019aa5c0e7f1c3d2a9b8c7d6e5f4a3b2', 'completed', '[\"http://localhost:8080/files/outputs/019aa5c0/0.png\"]', 1795507586000)");
const [[{ socket }]] = await setup.raw('select @@socket as socket') as [[{ socket: string }]];
await setup.destroy();

async function run(label: string, url: string): Promise<void> {
  const db = createDb({ databaseUrl: url, sqliteFile: '', poolMax: 10 });
  // open every pooled connection and learn its server thread
  const tids = new Set<number>();
  await Promise.all(Array.from({ length: 10 }, () => db.transaction(async (trx) => {
    const [[r]] = await trx.raw('select tid from information_schema.processlist where id = connection_id()') as [[{ tid: number }]];
    tids.add(r.tid);
    await new Promise((res) => setTimeout(res, 50));
  })));
  const serverUs = async () => {
    let ns = 0;
    for (const tid of tids) ns += Number((await fs.readFile(`/proc/${mariadbPid}/task/${tid}/schedstat`, 'utf8')).split(' ')[0]);
    return ns / 1000;
  };
  const s0 = await serverUs();
  const c0 = process.cpuUsage();
  const t0 = Date.now();
  let left = N;
  await Promise.all(Array.from({ length: 20 }, async () => {
    while (left-- > 0) await db.raw('select id, status, outputs, created_at from t where id = ?', ['019aa5c0e7f1c3d2a9b8c7d6e5f4a3b2']);
  }));
  const c = process.cpuUsage(c0);
  const s = await serverUs() - s0;
  console.log(JSON.stringify({ transport: label, n: N, clientUsPerRoundTrip: +((c.user + c.system) / N).toFixed(1), serverUsPerRoundTrip: +(s / N).toFixed(1), wallMs: Date.now() - t0 }));
  await db.destroy();
}

const viaSocket = new URL(database.url);
viaSocket.searchParams.set('socketPath', socket);
try {
  for (let i = 0; i < ROUNDS; i++) {
    await run('tcp', database.url);
    await run('socket', viaSocket.toString());
  }
} finally {
  await database.drop();
}
