// The console's dashboard section: its routes, rendered by ./dashboard.ts (src/console/README.md).
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { listRecipes } from '../../api/recipes/recipes.service.ts';
import { jobActivity } from '../../api/jobs/jobs.service.ts';
import { dashboardPage } from './dashboard.ts';
import { type ConsoleKit, DASHBOARD_HOURS } from '../kit.ts';

export function consoleDashboardRoutes(fastify: FastifyInstance, kit: ConsoleKit): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { ctx, frameOf, sessionOf, can, send, hide } = kit;

  // Dashboard
  app.get('/console/', { schema: hide }, async (request, reply) => {
    const { auth } = sessionOf(request);
    const activity = can(request, 'jobs:read')
      ? await jobActivity(ctx, auth, DASHBOARD_HOURS)
      : { perMinute: [], failures: [] };
    const running = can(request, 'recipes:read')
      ? await listRecipes(ctx, auth, {
          running: true,
          exclude_code: true,
          order: 'activity',
          withTags: false,
          page: { offset: 0, perPage: 20 },
        })
      : [];
    return send(
      reply,
      dashboardPage(
        { ...frameOf(request, 'dashboard'), title: 'Dashboard' },
        {
          hours: DASHBOARD_HOURS,
          now: ctx.clock.now(),
          perMinute: activity.perMinute,
          running,
          failures: activity.failures,
          seesJobs: can(request, 'jobs:read'),
          seesRecipes: can(request, 'recipes:read'),
        },
      ),
    );
  });
}
