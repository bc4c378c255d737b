// The credential cache across API processes (README "Credential cache"): a fanout exchange
// `<prefix>.credentials` that every process consuming it binds an exclusive, auto-delete queue to,
// and leases (db/credential-leases.ts) that say which processes may be serving API keys from
// their caches. An invalidation is answered only when every process holding an unexpired lease
// has acknowledged it (it dropped the entries), or has lost its lease: one that does not answer
// within its lease has its lease taken (deleted under a row lock) and the invalidator waits
// until the expiry it read there, after which that process no longer serves from its cache.
// A process serves from its cache only while connected to the broadcast and before its lease's
// local deadline (the renewal's send time + the lease length - a margin: never later than the
// expiry the database recorded).
import crypto from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { Channel, ChannelModel, ConsumeMessage } from 'amqplib';
import type { Db } from '../../../db/knex.ts';
import { acquireLease, liveLeases, releaseLease, renewLease, revokeLeases } from '../../../db/credential-leases.ts';
import type { CredentialCache, CredentialInvalidator, CredentialTarget, EntryOwner } from '../../../lib/credential-cache.ts';
import { amqpConnection } from './connection.ts';
import type { AmqpConnection } from './connection.ts';
import type { QueueLog } from '../types.ts';
import { errorMessage } from '../message.ts';

/** Clock-rate drift and scheduling between reading the monotonic clock and sending the renewal. */
const SAFETY_MS = 250;

export interface CredentialBroadcast extends CredentialInvalidator {
  readonly leaseId: string;
  /** the consumer's channel while connected (tests close it to see the cache stop serving) */
  channel(): Channel | null;
  close(): Promise<void>;
}

interface Prepared {
  ch: Channel;
  replyQueue: string;
}

interface Pending {
  waiting: Set<string>;
  done: () => void;
}

export function exchangeName(prefix: string): string {
  return `${prefix}.credentials`;
}

function parseTarget(body: unknown): CredentialTarget | null {
  if (typeof body !== 'object' || body === null) return null;
  const ids = (v: unknown) => Array.isArray(v) && v.every((x) => Number.isInteger(x)) ? v as number[] : [];
  const b = body as { userIds?: unknown; teamIds?: unknown };
  return { userIds: ids(b.userIds), teamIds: ids(b.teamIds) };
}

/**
 * Every process with RabbitMQ publishes invalidations through this; a process given `cache`
 * (an API process with CREDENTIAL_CACHE on) also consumes them and holds a lease.
 */
export async function createCredentialBroadcast<V extends EntryOwner>(opts: {
  url: string; prefix: string; db: Db; log: QueueLog; leaseMs: number; cache: CredentialCache<V> | null;
}): Promise<CredentialBroadcast> {
  const { db, log, leaseMs, cache } = opts;
  const leaseId = `${process.pid}-${crypto.randomUUID()}`;
  const exchange = exchangeName(opts.prefix);
  const pending = new Map<string, Pending>();
  let current: Prepared | null = null;
  // bumped on every loss of the connection: a renewal that began before it grants nothing
  let epoch = 0;
  let renewTimer: NodeJS.Timeout | null = null;
  let closed = false;
  // the release after a lost connection; a new lease is taken only after it, or it could delete the new row
  let releasing: Promise<void> = Promise.resolve();

  function onMessage(ch: Channel, msg: ConsumeMessage | null): void {
    if (msg === null) return;
    let target: CredentialTarget | null = null;
    try {
      target = parseTarget(JSON.parse(msg.content.toString('utf8')));
    } catch {
      target = null;
    }
    // an unreadable message empties the whole cache: it cannot say whose entries to keep
    cache?.drop(target);
    const { replyTo, correlationId } = msg.properties as { replyTo?: string; correlationId?: string };
    if (replyTo && correlationId) ch.sendToQueue(replyTo, Buffer.from(JSON.stringify({ lease: leaseId })), { correlationId });
  }

  function onReply(msg: ConsumeMessage | null): void {
    if (msg === null) return;
    const p = pending.get(String(msg.properties.correlationId));
    if (!p) return;
    try {
      const { lease } = JSON.parse(msg.content.toString('utf8')) as { lease?: unknown };
      if (typeof lease === 'string') p.waiting.delete(lease);
    } catch { /* not ours */ }
    if (p.waiting.size === 0) p.done();
  }

  /** (Re)takes the lease after a loss: the cache is empty by then (withdrawn), and serves again once the row is written. */
  async function takeLease(at: number): Promise<void> {
    await releasing;
    const sent = performance.now();
    try {
      await acquireLease(db, leaseId, leaseMs);
      if (at === epoch && current && !closed) cache!.grant(sent + leaseMs - SAFETY_MS);
    } catch (err) {
      log('credential cache: could not take a lease; serving keys from the database', { error: errorMessage(err) });
    }
  }

  async function renew(): Promise<void> {
    const at = epoch;
    if (!current || closed) return;
    const sent = performance.now();
    try {
      if (await renewLease(db, leaseId, leaseMs)) {
        if (at === epoch && current && !closed) cache!.grant(sent + leaseMs - SAFETY_MS);
        return;
      }
      // expired or taken by an invalidator that got no answer: it may have skipped this process
      cache!.withdraw();
      await takeLease(at);
    } catch (err) {
      log('credential cache: could not renew the lease', { error: errorMessage(err) });
    }
  }

  const connection: AmqpConnection = amqpConnection<Prepared>(opts.url, `${opts.prefix} credentials`, log, {
    async prepare(conn: ChannelModel) {
      const ch = await conn.createChannel();
      ch.on('error', (err: Error) => log('credential broadcast channel error', { error: err.message }));
      // a lost channel on a live connection: start over on a fresh connection
      ch.on('close', () => { if (current?.ch === ch) void conn.close().catch(() => {}); });
      await ch.assertExchange(exchange, 'fanout', { durable: true });
      const reply = await ch.assertQueue('', { exclusive: true, autoDelete: true });
      await ch.consume(reply.queue, onReply, { noAck: true });
      if (cache) {
        const q = await ch.assertQueue('', { exclusive: true, autoDelete: true });
        await ch.bindQueue(q.queue, exchange, '');
        await ch.consume(q.queue, (m) => onMessage(ch, m), { noAck: true });
      }
      return { ch, replyQueue: reply.queue };
    },
    up(_conn, prepared) {
      current = prepared;
      if (cache) void takeLease(epoch);
    },
    down() {
      current = null;
      epoch++;
      if (!cache) return;
      cache.withdraw();
      // invalidators need not wait for this process: it serves nothing from its cache now
      releasing = releaseLease(db, leaseId).catch(() => {});
    },
  });
  await connection.open();
  if (cache) {
    renewTimer = setInterval(() => void renew(), Math.max(100, Math.floor(leaseMs / 3)));
    renewTimer.unref();
  }

  return {
    leaseId,
    channel: () => current?.ch ?? null,
    async invalidate(target) {
      cache?.drop(target);
      const leases = await liveLeases(db, leaseId);
      if (leases.length === 0) return;
      const waiting = new Set(leases.map((l) => l.id));
      const ch = current;
      if (ch) {
        const correlationId = crypto.randomUUID();
        const waitMs = Math.max(...leases.map((l) => l.remainingMs)) + SAFETY_MS;
        await new Promise<void>((resolve) => {
          const timer = setTimeout(finish, waitMs);
          function finish() {
            clearTimeout(timer);
            pending.delete(correlationId);
            resolve();
          }
          pending.set(correlationId, { waiting, done: finish });
          try {
            ch.ch.publish(exchange, '', Buffer.from(JSON.stringify({ userIds: target.userIds ?? [], teamIds: target.teamIds ?? [] })), { correlationId, replyTo: ch.replyQueue });
          } catch (err) {
            log('credential broadcast: could not publish an invalidation', { error: errorMessage(err) });
            finish();
          }
        });
      }
      if (waiting.size === 0) return;
      // no answer: take their leases, and wait until the last one they hold has run out
      const remaining = await revokeLeases(db, [...waiting]);
      log('credential cache: processes did not acknowledge an invalidation; their leases were taken', { leases: [...waiting], waitMs: remaining });
      if (remaining > 0) await new Promise((r) => setTimeout(r, remaining + SAFETY_MS));
    },
    async close() {
      closed = true;
      if (renewTimer) clearInterval(renewTimer);
      cache?.withdraw();
      connection.beginClose();
      await connection.end();
      if (cache) await releaseLease(db, leaseId).catch(() => {});
    },
  };
}
