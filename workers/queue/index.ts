// Picks the transport: RabbitMQ when a URL is configured, otherwise the in-process queue of the
// embedded single-process mode (nothing survives a restart there; callers can check `durable`).

import { connectAmqp } from './amqp.ts';
import { createMemoryQueue } from './memory.ts';
import type { Queue, QueueLog } from './types.ts';

export { QueueUnavailableError } from './types.ts';
export { connectAmqp } from './amqp.ts';
export { createMemoryQueue } from './memory.ts';
export type { Delivery, Handler, Outcome, Queue, QueueLog, TopicSpec } from './types.ts';

export interface CreateQueueOptions {
  /** namespace of the RabbitMQ exchanges and queues; unused by the in-process queue */
  prefix: string;
  log?: QueueLog;
}

export async function createQueue(amqpUrl: string | undefined, opts: CreateQueueOptions): Promise<Queue> {
  if (amqpUrl === undefined || amqpUrl === '') return createMemoryQueue({ log: opts.log });
  return connectAmqp(amqpUrl, opts);
}
