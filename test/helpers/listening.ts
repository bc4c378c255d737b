// A gateway listening on a real port, on the embedded default (SQLite file, in-process queue, a
// worker in this process), for tests that drive it as an outside client would: the TypeScript
// and Python clients, the examples, the MCP server.
import { newAccount, startGateway } from './gateway.ts';
import type { Account, TestGateway } from './gateway.ts';
import { freePort } from './processes.ts';

export interface ListeningGateway extends TestGateway {
  /** http://127.0.0.1:<port>, also its PUBLIC_URL, so output URLs can be fetched */
  baseUrl: string;
}

export async function startListeningGateway(opts: { worker?: boolean; env?: Record<string, string> } = {}): Promise<ListeningGateway> {
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const gw = await startGateway({
    db: 'sqlite',
    queue: 'memory',
    worker: opts.worker ?? true,
    // webhooks to the test's own receivers on 127.0.0.1
    env: { PORT: String(port), HOST: '127.0.0.1', PUBLIC_URL: baseUrl, WEBHOOK_ALLOW_INSECURE: 'true', ...opts.env },
  });
  await gw.server.start();
  return { ...gw, baseUrl };
}

/** An account with a password, a production key, a sandbox key and `credit` in its wallet, and its email. */
export async function accountWithEmail(gw: TestGateway, credit = 0): Promise<Account & { email: string }> {
  const account = await newAccount(gw, credit);
  const row = await gw.app.db('users').where({ id: account.userId }).first<{ email: string }>();
  return { ...account, email: row!.email };
}
