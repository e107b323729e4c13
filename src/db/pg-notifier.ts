// The notifier between the nodes that share one PostgreSQL database: LISTEN/NOTIFY on one
// channel, over one dedicated connection per node (never a pooled one: a pooled connection would
// stop listening when handed back). A publish is delivered to this node's subscribers at once and
// sent to the others with NOTIFY; what arrives from the others is delivered here. When the
// connection is lost, the node may miss changes: it tells every cache `everything.changed` at
// once, again at every reconnection attempt, and once more when it listens again; publishes made
// meanwhile are sent when it is back. The in-process notifier (src/notifier.ts) serves SQLite.
import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import type pg from 'pg';
import { loadPg } from './pg-driver.ts';
import type { Logger } from 'pino';
import { createInProcessNotifier, NODE_LOCAL_EVENTS, type ChangeEvents, type Notifier } from '../notifier.ts';

export const NOTIFY_CHANNEL = 'switchboard_changes';
/** PostgreSQL refuses a NOTIFY payload of 8000 bytes or more. */
const MAX_PAYLOAD_BYTES = 7900;
/** Publishes kept while the connection is down; past this they become one `everything.changed`. */
const MAX_PENDING = 10_000;

export interface PgNotifierOptions {
  connectionString: string;
  log: Logger;
  channel?: string;
  /** First delay before reconnecting, doubled up to maxBackoffMs. */
  minBackoffMs?: number;
  maxBackoffMs?: number;
  /** How often the connection is checked with a query (a silently dropped link is found this way). */
  pingMs?: number;
}

export interface PgNotifier extends Notifier {
  /** Connect and listen; rejects when the first connection fails. */
  start(): Promise<void>;
  close(): Promise<void>;
  /** Whether the node listens now. */
  readonly listening: boolean;
}

interface Envelope {
  /** The notifier that sent it: a node ignores its own (already delivered locally). */
  o: string;
  t: keyof ChangeEvents;
  p: unknown;
}

export function createPgNotifier(options: PgNotifierOptions): PgNotifier {
  const { connectionString, log } = options;
  const channel = options.channel ?? NOTIFY_CHANNEL;
  const minBackoff = options.minBackoffMs ?? 100;
  const maxBackoff = options.maxBackoffMs ?? 1000;
  const pingMs = options.pingMs ?? 5000;
  const origin = randomUUID();
  const emitter = new EventEmitter();
  emitter.setMaxListeners(0);
  let client: pg.Client | undefined;
  let listening = false;
  let closed = false;
  let backoff = minBackoff;
  let reconnectTimer: NodeJS.Timeout | undefined;
  let pingTimer: NodeJS.Timeout | undefined;
  let pending: string[] = [];
  let sending = false;

  function deliver(topic: string, payload: unknown): void {
    try {
      emitter.emit(topic, payload);
    } catch (error) {
      log.error({ err: error, topic }, 'a change listener failed');
    }
  }

  const everythingChanged = (): void => deliver('everything.changed', {});

  function envelope(topic: keyof ChangeEvents, payload: unknown): string {
    const text = JSON.stringify({ o: origin, t: topic, p: payload } satisfies Envelope);
    if (Buffer.byteLength(text) <= MAX_PAYLOAD_BYTES) return text;
    return JSON.stringify({ o: origin, t: 'everything.changed', p: {} } satisfies Envelope);
  }

  function onNotification(message: pg.Notification): void {
    if (message.channel !== channel || message.payload === undefined) return;
    let parsed: Envelope;
    try {
      parsed = JSON.parse(message.payload) as Envelope;
    } catch {
      return;
    }
    if (parsed.o === origin || typeof parsed.t !== 'string') return;
    deliver(parsed.t, parsed.p);
  }

  /** Send what waits, in order, on the listening connection (one connection keeps the order). */
  async function flush(): Promise<void> {
    if (sending) return;
    sending = true;
    try {
      while (pending.length > 0 && client && listening) {
        const batch = pending;
        pending = [];
        const current = client;
        try {
          for (let i = 0; i < batch.length; i++) {
            try {
              await current.query('select pg_notify($1, $2)', [channel, batch[i]]);
            } catch (error) {
              // Not sent: kept, in order, for the next connection.
              pending = [...batch.slice(i), ...pending];
              throw error;
            }
          }
        } catch (error) {
          log.warn({ err: error }, 'could not send change notifications; they wait for the connection');
          lost(current);
          return;
        }
      }
    } finally {
      sending = false;
    }
  }

  function lost(which: pg.Client): void {
    if (client !== which) return;
    client = undefined;
    listening = false;
    if (pingTimer) clearInterval(pingTimer);
    which.removeAllListeners('notification');
    which.end().catch(() => undefined);
    if (closed) return;
    log.warn({ channel }, 'lost the change notifications connection; caches are dropped until it is back');
    everythingChanged();
    scheduleReconnect();
  }

  function scheduleReconnect(): void {
    if (closed || reconnectTimer) return;
    const delay = Math.round(backoff * (0.5 + Math.random() / 2));
    backoff = Math.min(backoff * 2, maxBackoff);
    reconnectTimer = setTimeout(() => {
      reconnectTimer = undefined;
      // Whatever was cached since the last attempt may be stale too.
      everythingChanged();
      connect().then(
        () => {
          log.info({ channel }, 'change notifications connection back; caches were dropped');
          everythingChanged();
        },
        (error: unknown) => {
          log.warn({ err: error }, 'could not reconnect the change notifications connection');
          scheduleReconnect();
        },
      );
    }, delay);
    reconnectTimer.unref();
  }

  async function connect(): Promise<void> {
    const next = new (loadPg().Client)({ connectionString, keepAlive: true, application_name: 'switchboard-notifier' });
    next.on('error', (error) => {
      log.warn({ err: error }, 'change notifications connection error');
      lost(next);
    });
    next.on('end', () => lost(next));
    try {
      await next.connect();
      await next.query(`LISTEN ${loadPg().escapeIdentifier(channel)}`);
    } catch (error) {
      next.removeAllListeners('end');
      next.end().catch(() => undefined);
      throw error;
    }
    if (closed) {
      await next.end().catch(() => undefined);
      return;
    }
    next.on('notification', onNotification);
    client = next;
    listening = true;
    backoff = minBackoff;
    pingTimer = setInterval(() => {
      const timeout = setTimeout(() => lost(next), pingMs);
      next.query('select 1').then(
        () => clearTimeout(timeout),
        () => {
          clearTimeout(timeout);
          lost(next);
        },
      );
    }, pingMs);
    pingTimer.unref();
    void flush();
  }

  return {
    get listening() {
      return listening;
    },
    start: connect,
    async close() {
      closed = true;
      if (reconnectTimer) clearTimeout(reconnectTimer);
      if (pingTimer) clearInterval(pingTimer);
      // What waits to be sent goes out first, if the connection is there.
      if (client && listening && pending.length > 0) await flush();
      const current = client;
      client = undefined;
      listening = false;
      if (current) {
        current.removeAllListeners('end');
        await current.end().catch(() => undefined);
      }
      emitter.removeAllListeners();
    },
    publish(topic, payload) {
      deliver(topic, payload);
      if (NODE_LOCAL_EVENTS.has(topic)) return;
      if (pending.length >= MAX_PENDING) pending = [envelope('everything.changed', {})];
      pending.push(envelope(topic, payload));
      if (client && listening) void flush();
    },
    subscribe(topic, listener) {
      emitter.on(topic, listener as (p: unknown) => void);
      return () => emitter.off(topic, listener as (p: unknown) => void);
    },
  };
}

/** The notifier of a server: LISTEN/NOTIFY on PostgreSQL (DATABASE_URL), in-process on SQLite. */
export function notifierFor(
  config: { databaseUrl: string | undefined },
  log: Logger,
): { notifier: Notifier; start(): Promise<void>; close(): Promise<void> } {
  if (config.databaseUrl === undefined)
    return { notifier: createInProcessNotifier(), start: async () => undefined, close: async () => undefined };
  const notifier = createPgNotifier({ connectionString: config.databaseUrl, log });
  return { notifier, start: () => notifier.start(), close: () => notifier.close() };
}
