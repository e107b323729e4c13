// The console's sign in section: its routes, rendered by ./sign-in.ts (src/console/README.md).
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { AppError } from '../../errors.ts';
import { signIn, signOut, type ConsoleSession } from '../sessions.ts';
import { signInPage } from './sign-in.ts';
import { type ConsoleKit, COOKIE, Form, sameOrigin } from '../kit.ts';

/** A path inside the console to go back to after sign-in; anything else goes to the dashboard. */
function safeNext(next: unknown): string {
  return typeof next === 'string' &&
    /^\/console\/[A-Za-z0-9/_?=&%.-]*$/.test(next) &&
    !next.includes('..') &&
    !next.includes('//')
    ? next
    : '/console/';
}

export function consoleSignInRoutes(fastify: FastifyInstance, kit: ConsoleKit): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { ctx, sessionOf, send, hide, signInLimiter } = kit;

  // Sign-in and sign-out
  app.get(
    '/console/sign-in',
    {
      schema: {
        ...hide,
        querystring: Type.Object({
          next: Type.Optional(Type.String({ maxLength: 500 })),
          ended: Type.Optional(Type.String({ maxLength: 10 })),
        }),
      },
    },
    async (request, reply) =>
      send(reply, signInPage({ next: safeNext(request.query.next), sessionEnded: request.query.ended === '1' })),
  );

  app.post(
    '/console/sign-in',
    {
      schema: {
        ...hide,
        body: Type.Object({
          token: Type.String({ maxLength: 4096 }),
          next: Type.Optional(Type.String({ maxLength: 500 })),
        }),
      },
    },
    async (request, reply) => {
      if (!sameOrigin(request)) throw new AppError('console_csrf_invalid');
      const next = safeNext(request.body.next);
      const source = [`ip:${request.ip}`];
      const wait = signInLimiter.retryAfter(source);
      if (wait > 0) {
        const throttled = new AppError('console_sign_in_throttled', { params: { seconds: wait } });
        reply.header('retry-after', String(wait));
        return send(reply, signInPage({ error: throttled.message, next }), throttled.status);
      }
      let session: ConsoleSession;
      try {
        session = await signIn(ctx, request.body.token, request.ip);
      } catch (error) {
        if (error instanceof AppError && error.code === 'console_token_invalid') signInLimiter.recordFailure(source);
        if (error instanceof AppError && error.status < 500)
          return send(reply, signInPage({ error: error.message, next }), error.status);
        throw error;
      }
      const maxAge = ctx.config.consoleSessionHours * 3600;
      const secure = request.protocol === 'https' ? '; Secure' : '';
      reply.header(
        'set-cookie',
        `${COOKIE}=${session.id}; Path=/console; HttpOnly; SameSite=Strict; Max-Age=${maxAge}${secure}`,
      );
      return reply.redirect(next, 303);
    },
  );

  app.post('/console/sign-out', { schema: { ...hide, body: Form({}) } }, async (request, reply) => {
    await signOut(ctx, sessionOf(request).id);
    reply.header(
      'set-cookie',
      `${COOKIE}=; Path=/console; HttpOnly; SameSite=Strict; Max-Age=0${request.protocol === 'https' ? '; Secure' : ''}`,
    );
    return reply.redirect('/console/sign-in', 303);
  });
}
