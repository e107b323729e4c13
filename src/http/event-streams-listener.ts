// The event streams listener (EVENT_STREAMS_PORT): a second HTTP server on HOST whose requests
// go through the same Fastify instance (app.routing, Fastify's entry point for servers of one's
// own), so one context and one event streams runtime (long-poll waiters, ordering, group commit)
// serve both ports. hosts.ts limits what it answers to the event streams operations and the
// health checks. It stops accepting when the app starts closing (preClose, after the long polls
// were ended) and the app's close waits for its requests in flight (onClose, before the database).
import dns from 'node:dns/promises';
import type http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import type { FastifyInstance } from 'fastify';
import { eventStreamsHandler } from './hosts.ts';

// node:http through getBuiltinModule, not an import: importing it from an ES module makes Node read
// every export to build the module's namespace, WebSocket among them, and that loads Node's own copy
// of undici (about 1.5 MB of heap) into every server. Fastify reaches node:http through require().
const { createServer } = process.getBuiltinModule('node:http');

export interface EventStreamsListener {
  readonly port: number;
  /** Binds HOST:port (every address of `localhost`, as Fastify does for the main port); resolves with the URLs served. */
  listen(): Promise<string[]>;
  /** The shutdown timeout was reached: drop every connection still open. */
  closeAllConnections(): void;
}

/** Call before the app is ready (it adds hooks); listen() once the app is listening. */
export function createEventStreamsListener(
  app: FastifyInstance,
  options: { host: string; port: number },
): EventStreamsListener {
  const handler = eventStreamsHandler(app);
  const servers: http.Server[] = [];
  let closed: Promise<unknown> = Promise.resolve();

  app.addHook('preClose', async () => {
    // server.close() stops accepting and ends idle keep-alive connections; its callback waits for the busy ones.
    closed = Promise.all(servers.map((server) => new Promise<void>((resolve) => server.close(() => resolve()))));
  });
  app.addHook('onClose', async () => {
    await closed;
  });

  const create = (): http.Server => {
    // The main server's limits (Fastify's keepAliveTimeout, requestTimeout, connectionTimeout).
    const server = createServer(handler);
    server.keepAliveTimeout = app.server.keepAliveTimeout;
    server.requestTimeout = app.server.requestTimeout;
    server.headersTimeout = app.server.headersTimeout;
    server.timeout = app.server.timeout;
    if (app.server.maxRequestsPerSocket) server.maxRequestsPerSocket = app.server.maxRequestsPerSocket;
    return server;
  };

  return {
    port: options.port,
    async listen() {
      const urls: string[] = [];
      const addresses = await addressesOf(options.host);
      for (const [index, address] of addresses.entries()) {
        const server = create();
        try {
          await bind(server, options.port, address);
        } catch (error) {
          // The first address must be bound; the other addresses of localhost are best effort (as in Fastify).
          if (index === 0) throw error;
          continue;
        }
        servers.push(server);
        urls.push(...urlsOf(server.address() as AddressInfo));
      }
      return urls;
    },
    closeAllConnections() {
      for (const server of servers) server.closeAllConnections();
    },
  };
}

async function addressesOf(host: string): Promise<string[]> {
  if (host !== 'localhost') return [host];
  try {
    return [...new Set((await dns.lookup(host, { all: true })).map((a) => a.address))];
  } catch {
    return [host];
  }
}

function bind(server: http.Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

/** The addresses to print, as Fastify prints the main port's: every IPv4 interface for 0.0.0.0. */
function urlsOf(address: AddressInfo): string[] {
  if (address.address.includes(':')) return [`http://[${address.address}]:${address.port}`];
  const hosts =
    address.address === '0.0.0.0'
      ? Object.values(os.networkInterfaces()).flatMap((list) =>
          (list ?? []).filter((i) => i.family === 'IPv4').map((i) => i.address),
        )
      : [address.address];
  return hosts.map((host) => `http://${host}:${address.port}`);
}
