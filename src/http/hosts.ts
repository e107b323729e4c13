// Addresses with a host of their own (PUBLIC_AUTH_URL, PUBLIC_GATEWAY_URL on a custom domain,
// PUBLIC_EVENT_STREAMS_URL) serve only what belongs there: the token endpoint; on the gateway
// host the published APIs; on the event streams host the PubSub operations (contract 13 §1).
// The event streams listener (EVENT_STREAMS_PORT) is filtered the same way, whatever the Host
// header says: its requests come through eventStreamsHandler(), which marks them.
// By default every address is the one port and nothing is filtered.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../config.ts';
import { ERROR_CATALOG } from '../errors.ts';
import { GATEWAY_ERRORS } from './gateway-errors.ts';

const GATEWAY_CATCH_ALL = '/*';
const EVERYWHERE = new Set<string | undefined>(['/health', '/ready']);
const NOT_FOUND_EVENT_STREAMS = { message: ERROR_CATALOG.not_found.message };
const NOT_FOUND_GATEWAY = { error: GATEWAY_ERRORS.not_found.error };

/** Requests that arrived on the event streams listener. */
const onEventStreamsListener = new WeakSet<IncomingMessage>();

/**
 * The 'request' handler of the event streams listener: the app's own router (one app, one
 * runtime), with each request marked so that registerHostRouting serves it only the event
 * streams operations and the health checks.
 */
export function eventStreamsHandler(app: FastifyInstance): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    onEventStreamsListener.add(req);
    app.routing(req, res);
  };
}

type HostConfig = Pick<
  Config,
  'publicBaseUrl' | 'publicAuthUrl' | 'publicGatewayUrl' | 'publicEventStreamsUrl' | 'eventStreamsPort'
>;

export function registerHostRouting(app: FastifyInstance, config: HostConfig): void {
  const base = hostOf(config.publicBaseUrl);
  const auth = hostOf(config.publicAuthUrl);
  const gateway = hostOf(config.publicGatewayUrl);
  const events = hostOf(config.publicEventStreamsUrl);
  if (auth === base && gateway === base && events === base && config.eventStreamsPort === undefined) return;

  app.addHook('onRequest', async (request, reply) => {
    const route = request.routeOptions.url;
    if (onEventStreamsListener.has(request.raw)) {
      if (EVERYWHERE.has(route) || isEventStreamsOperation(request)) return;
      return notFound(reply, NOT_FOUND_EVENT_STREAMS);
    }
    const host = (request.headers.host ?? '').toLowerCase();
    if (host === base || EVERYWHERE.has(route)) return;
    let known = false;
    let allowed = false;
    if (host === auth) {
      known = true;
      allowed ||= route === '/oauth2/token';
    }
    if (host === gateway) {
      known = true;
      allowed ||= route === '/oauth2/token' || route === GATEWAY_CATCH_ALL;
    }
    if (host === events) {
      known = true;
      allowed ||= isEventStreamsOperation(request);
    }
    if (known && !allowed) {
      // Each host answers in its own error shape: the gateway's { error }, event streams' { message }.
      return notFound(reply, host === events && host !== gateway ? NOT_FOUND_EVENT_STREAMS : NOT_FOUND_GATEWAY);
    }
  });
}

/** The three operations of the catalog and their legacy aliases (routes marked eventStreams). */
function isEventStreamsOperation(request: FastifyRequest): boolean {
  return request.routeOptions.config?.eventStreams !== undefined;
}

function notFound(reply: FastifyReply, body: object) {
  return reply.status(404).type('application/json; charset=utf-8').send(body);
}

function hostOf(url: string): string {
  return new URL(url).host.toLowerCase();
}
