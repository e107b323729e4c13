// Addresses with a host of their own (PUBLIC_AUTH_URL, PUBLIC_GATEWAY_URL on a custom domain)
// serve only what belongs there: the token endpoint, and on the gateway host the published APIs.
// By default every address is the one port and nothing is filtered.
import type { FastifyInstance } from 'fastify';
import type { Config } from '../config.ts';

const GATEWAY_CATCH_ALL = '/*';

export function registerHostRouting(app: FastifyInstance, config: Pick<Config, 'publicBaseUrl' | 'publicAuthUrl' | 'publicGatewayUrl'>): void {
  const base = new URL(config.publicBaseUrl).host.toLowerCase();
  const auth = new URL(config.publicAuthUrl).host.toLowerCase();
  const gateway = new URL(config.publicGatewayUrl).host.toLowerCase();
  if (auth === base && gateway === base) return;

  app.addHook('onRequest', async (request, reply) => {
    const host = (request.headers.host ?? '').toLowerCase();
    const route = request.routeOptions.url;
    if (host === base) return;
    const allowed = new Set<string | undefined>(['/health', '/ready']);
    if (host === auth && auth !== base) allowed.add('/oauth2/token');
    if (host === gateway && gateway !== base) {
      allowed.add('/oauth2/token');
      allowed.add(GATEWAY_CATCH_ALL);
    }
    if (allowed.size > 2 && !allowed.has(route)) {
      return reply.status(404).type('application/json; charset=utf-8').send({ error: 'Not found' });
    }
  });
}
