// Addresses with a host of their own (PUBLIC_AUTH_URL, PUBLIC_GATEWAY_URL on a custom domain,
// PUBLIC_EVENT_STREAMS_URL) serve only what belongs there: the token endpoint; on the gateway
// host the published APIs; on the event streams host the PubSub operations (contract 13 §1).
// By default every address is the one port and nothing is filtered.
import type { FastifyInstance } from 'fastify';
import type { Config } from '../config.ts';

const GATEWAY_CATCH_ALL = '/*';
const EVERYWHERE = new Set<string | undefined>(['/health', '/ready']);

export function registerHostRouting(app: FastifyInstance, config: Pick<Config, 'publicBaseUrl' | 'publicAuthUrl' | 'publicGatewayUrl' | 'publicEventStreamsUrl'>): void {
  const base = hostOf(config.publicBaseUrl);
  const auth = hostOf(config.publicAuthUrl);
  const gateway = hostOf(config.publicGatewayUrl);
  const events = hostOf(config.publicEventStreamsUrl);
  if (auth === base && gateway === base && events === base) return;

  app.addHook('onRequest', async (request, reply) => {
    const host = (request.headers.host ?? '').toLowerCase();
    const route = request.routeOptions.url;
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
      // The three operations of the catalog and their legacy aliases (routes marked eventStreams).
      allowed ||= request.routeOptions.config?.eventStreams !== undefined;
    }
    if (known && !allowed) {
      // Each host answers in its own error shape: the gateway's { error }, event streams' { message }.
      const body = host === events && host !== gateway ? { message: 'Not found' } : { error: 'Not found' };
      return reply.status(404).type('application/json; charset=utf-8').send(body);
    }
  });
}

function hostOf(url: string): string {
  return new URL(url).host.toLowerCase();
}
