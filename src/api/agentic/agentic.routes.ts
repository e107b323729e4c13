// Skills as the vendor's CLI manages them (contract 23 §2): `{data}` wrappers, string ids.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { ServiceContext } from '../../context.ts';
import { authOf } from '../../http/auth.ts';
import { parsePage } from '../../http/pagination.ts';
import { AUTH_ERRORS, errorResponses, toId } from '../../http/schemas.ts';
import { CreateSkillBody, SkillEnvelope, SkillList, SkillListQuery, SkillParams } from './agentic.schemas.ts';
import { createSkill, getSkill, listSkills } from './agentic.service.ts';

const tags = ['Skills'];

export function agenticRoutes(fastify: FastifyInstance, ctx: ServiceContext): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.get(
    '/api/agentic/skills',
    {
      config: { privilege: 'agentic:read' },
      schema: {
        tags,
        summary: 'List skills',
        querystring: SkillListQuery,
        response: { 200: SkillList, ...errorResponses(...AUTH_ERRORS) },
      },
    },
    async (request) => ({ data: await listSkills(ctx, authOf(request), parsePage(request.query, { max: 100 })) }),
  );

  app.get(
    '/api/agentic/skills/:id',
    {
      config: { privilege: 'agentic:read' },
      schema: {
        tags,
        summary: 'Get a skill',
        params: SkillParams,
        response: { 200: SkillEnvelope, ...errorResponses(...AUTH_ERRORS, 404) },
      },
    },
    async (request) => ({ data: await getSkill(ctx, authOf(request), request.params.id) }),
  );

  app.post(
    '/api/agentic/skills',
    {
      config: { privilege: 'agentic:write' },
      schema: {
        tags,
        summary: 'Make a skill of a recipe whose trigger is workato_skill start_workflow',
        body: CreateSkillBody,
        response: { 200: SkillEnvelope, ...errorResponses(...AUTH_ERRORS, 422) },
      },
    },
    async (request) => ({ data: await createSkill(ctx, authOf(request), toId(request.body.recipe_id)) }),
  );
}
