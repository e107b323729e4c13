// Message templates (src/api/message_templates/README.md): Mustache bodies stored in an
// environment, rendered by workato_template/create_document steps that name them by template_id.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { ServiceContext } from '../../context.ts';
import { authOf } from '../../http/auth.ts';
import { emptyBodyAsObject } from '../../http/empty-body.ts';
import { parsePage } from '../../http/pagination.ts';
import { AUTH_ERRORS, errorResponses, IdParams, SuccessBody } from '../../http/schemas.ts';
import {
  CreateMessageTemplateBody,
  MessageTemplate,
  MessageTemplateList,
  MessageTemplateListQuery,
  UpdateMessageTemplateBody,
} from './message_templates.schemas.ts';
import {
  createTemplate,
  deleteTemplate,
  getTemplate,
  listTemplates,
  updateTemplate,
} from './message_templates.service.ts';

const tags = ['Message templates'];

export function messageTemplatesRoutes(fastify: FastifyInstance, ctx: ServiceContext): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.get(
    '/api/message_templates',
    {
      config: { privilege: 'recipes:read' },
      schema: {
        tags,
        summary: "List the environment's message templates",
        querystring: MessageTemplateListQuery,
        response: { 200: MessageTemplateList, ...errorResponses(...AUTH_ERRORS) },
      },
    },
    async (request) => listTemplates(ctx, authOf(request), parsePage(request.query)),
  );

  app.post(
    '/api/message_templates',
    {
      config: { privilege: 'recipes:write' },
      schema: {
        tags,
        summary: 'Store a message template (a Mustache body, named for template_id)',
        body: CreateMessageTemplateBody,
        response: { 200: MessageTemplate, ...errorResponses(...AUTH_ERRORS, 422) },
      },
    },
    async (request) => createTemplate(ctx, authOf(request), request.body),
  );

  app.get(
    '/api/message_templates/:id',
    {
      config: { privilege: 'recipes:read' },
      schema: {
        tags,
        summary: 'One message template',
        params: IdParams,
        response: { 200: MessageTemplate, ...errorResponses(...AUTH_ERRORS, 404) },
      },
    },
    async (request) => getTemplate(ctx, authOf(request), request.params.id),
  );

  app.put(
    '/api/message_templates/:id',
    {
      config: { privilege: 'recipes:write' },
      preValidation: emptyBodyAsObject,
      schema: {
        tags,
        summary: "Change a template's name, type, body or description (the next steps render the new body)",
        params: IdParams,
        body: UpdateMessageTemplateBody,
        response: { 200: MessageTemplate, ...errorResponses(...AUTH_ERRORS, 404, 422) },
      },
    },
    async (request) => updateTemplate(ctx, authOf(request), request.params.id, request.body ?? {}),
  );

  app.delete(
    '/api/message_templates/:id',
    {
      config: { privilege: 'recipes:write' },
      schema: {
        tags,
        summary: 'Delete a message template',
        params: IdParams,
        response: { 200: SuccessBody, ...errorResponses(...AUTH_ERRORS, 404) },
      },
    },
    async (request) => deleteTemplate(ctx, authOf(request), request.params.id),
  );
}
