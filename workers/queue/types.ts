// Transport-free contract of the work queue. Consumers return an outcome; the transport
// (RabbitMQ or the in-process queue) maps it onto acks, delay queues and dead-lettering.

export type Outcome =
  | { kind: 'ack' }
  | { kind: 'retry'; delayMs: number; reason: string }
  | { kind: 'dead-letter'; reason: string }
  /** give the message back unfinished (worker shutting down): RabbitMQ nack+requeue, in-process re-enqueue */
  | { kind: 'requeue'; reason: string };

export interface Delivery<T> {
  body: T;
  /** 0 on the first attempt, n on the n-th retry */
  attempt: number;
  /** true when the broker delivers the same message again (a consumer died holding it) */
  redelivered: boolean;
}

export type QueueLog = (msg: string, extra?: Record<string, unknown>) => void;

export type Handler<T> = (delivery: Delivery<T>) => Promise<Outcome>;

export interface TopicSpec {
  /** e.g. 'predictions', 'webhooks' */
  name: string;
  /** one delay queue per entry; a retry waits for the smallest delay >= the one asked for */
  retryDelaysMs: readonly number[];
  /** a retry asked for beyond this many retries is dead-lettered instead */
  maxRetries: number;
  /**
   * Top-level fields of a message body that only its first delivery uses: its retry and
   * dead-letter copies leave them out (laterCopy), so that what they carry does not outlive its
   * use in a queue an operator may keep for long (the predictions topic's `ticket`: a snapshot of
   * the submitted row, its input and webhook URL included).
   */
  firstDeliveryOnly?: readonly string[];
}

export class QueueUnavailableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'QueueUnavailableError';
  }
}

export interface Queue {
  /** true when accepted messages survive the death of this process (RabbitMQ) */
  readonly durable: boolean;
  /** declares exchanges/queues for the topics; idempotent */
  setup(topics: readonly TopicSpec[]): Promise<void>;
  /**
   * Resolves once the broker has confirmed the message (persisted);
   * rejects with QueueUnavailableError when it cannot be confirmed.
   */
  publish(topic: string, body: unknown, opts?: { attempt?: number; delayMs?: number }): Promise<void>;
  /** starts consuming; at most `prefetch` unacknowledged deliveries in flight for this consumer */
  consume<T>(topic: string, handler: Handler<T>, opts: { prefetch: number }): Promise<void>;
  /** rejects with QueueUnavailableError when the broker is unreachable */
  ping(): Promise<void>;
  /** number of messages ready in the topic's queue (delayed retries not counted); for metrics */
  depth(topic: string): Promise<number>;
  /** number of messages waiting in the topic's dead-letter queue */
  deadLetterCount(topic: string): Promise<number>;
  /** cancels every consumer (no new deliveries); handlers already running go on */
  stopConsuming(): Promise<void>;
  /** waits up to graceMs for running handlers to settle; returns how many are still running */
  drain(graceMs: number): Promise<number>;
  /** stops consumers, waits for in-flight handlers, closes the connection */
  close(): Promise<void>;
}
