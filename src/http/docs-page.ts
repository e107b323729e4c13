// The API's documentation page under /docs (Swagger UI, @fastify/swagger-ui). Its routes are
// registered at start; the plugin, its static file server and their modules load at the first
// request to them, in an app of their own that this one asks through `inject`: an idle server
// never holds them (about 2 MB of heap and the file server's threads). The document the page shows
// is this app's own (src/http/openapi.ts), loaded with the page.
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import fastifyPlugin from 'fastify-plugin';
import type { OpenApiDocument } from './openapi.ts';

const UI_CONFIG = { docExpansion: 'list', deepLinking: true } as const;

/** Headers of the page's own answer that this app's reply sets itself. */
const NOT_FORWARDED = new Set(['connection', 'date', 'keep-alive', 'transfer-encoding', 'content-length']);

/** GET (and HEAD) /docs and everything under it, answered by Swagger UI once loaded. */
export function registerDocsPage(app: FastifyInstance, openApi: () => Promise<OpenApiDocument>): void {
  let page: Promise<FastifyInstance> | undefined;
  const loadPage = async (): Promise<FastifyInstance> => {
    const { default: swaggerUi } = await import('@fastify/swagger-ui');
    const document = await openApi();
    const inner = Fastify({ logger: false });
    // Swagger UI depends on @fastify/swagger by name: this app's generated document stands for it.
    await inner.register(
      fastifyPlugin(
        (instance, _options, done) => {
          instance.decorate('swagger', document as unknown as typeof app.swagger);
          done();
        },
        { name: '@fastify/swagger' },
      ),
    );
    await inner.register(swaggerUi, { routePrefix: '/docs', uiConfig: UI_CONFIG });
    await inner.ready();
    return inner;
  };
  const handler = async (request: FastifyRequest, reply: FastifyReply) => {
    page ??= loadPage().catch((error: unknown) => {
      page = undefined;
      throw error;
    });
    const answer = await (await page).inject({ method: 'GET', url: request.url, headers: request.headers });
    // What the page does not serve is this app's 404, in the error shape.
    if (answer.statusCode === 404) return reply.callNotFound();
    for (const [name, value] of Object.entries(answer.headers))
      if (value !== undefined && !NOT_FORWARDED.has(name)) reply.header(name, value);
    reply.code(answer.statusCode);
    // An empty answer (a redirect, a 304) stays without a body and without a content type.
    return answer.rawPayload.length > 0 ? reply.send(answer.rawPayload) : reply.send();
  };
  app.addHook('onClose', async () => {
    if (page) await (await page.catch(() => undefined))?.close();
  });
  for (const url of ['/docs', '/docs/*']) app.get(url, { config: { public: true }, schema: { hide: true } }, handler);
}
