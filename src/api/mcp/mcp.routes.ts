// MCP servers as the vendor's CLI manages them (contract 23 §1). Wrappers are exact: `{data}` for
// servers and user groups, `{items}` for tools, bare policies and tool updates.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { ServiceContext } from '../../context.ts';
import { authOf } from '../../http/auth.ts';
import { parsePage } from '../../http/pagination.ts';
import { AUTH_ERRORS, errorResponses, SuccessBody } from '../../http/schemas.ts';
import {
  AssignToolsBody,
  CreateServerBody,
  HandleParams,
  ListPageQuery,
  McpPolicy,
  McpServerEnvelope,
  McpServerList,
  McpTool,
  McpToolList,
  PolicyBody,
  ServerListQuery,
  ToolParams,
  UpdateServerBody,
  UpdateToolBody,
  UserGroupList,
  UserGroupsBody,
} from './mcp.schemas.ts';
import {
  assignTools,
  changeUserGroups,
  createServer,
  deleteServer,
  deleteTool,
  getPolicy,
  getServer,
  listServers,
  listTools,
  renewToken,
  setPolicy,
  updateServer,
  updateTool,
} from './mcp.service.ts';

const tags = ['MCP servers'];
const read = { privilege: 'mcp_servers:read' as const };
const write = { privilege: 'mcp_servers:write' as const };

export function mcpRoutes(fastify: FastifyInstance, ctx: ServiceContext): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.get(
    '/api/mcp/mcp_servers',
    {
      config: read,
      schema: {
        tags,
        summary: 'List MCP servers (filters: project_id, folder_id, authentication_method)',
        querystring: ServerListQuery,
        response: { 200: McpServerList, ...errorResponses(...AUTH_ERRORS) },
      },
    },
    async (request) => ({
      data: await listServers(ctx, authOf(request), request.query, parsePage(request.query, { max: 100 })),
    }),
  );

  app.post(
    '/api/mcp/mcp_servers',
    {
      config: write,
      schema: {
        tags,
        summary: 'Create an MCP server in a folder; with asset_id its tools are that API collection’s endpoints',
        body: CreateServerBody,
        response: { 200: McpServerEnvelope, ...errorResponses(...AUTH_ERRORS, 422) },
      },
    },
    async (request) => ({ data: await createServer(ctx, authOf(request), request.body) }),
  );

  app.get(
    '/api/mcp/mcp_servers/:handle',
    {
      config: read,
      schema: {
        tags,
        summary: 'Get an MCP server',
        params: HandleParams,
        response: { 200: McpServerEnvelope, ...errorResponses(...AUTH_ERRORS, 404) },
      },
    },
    async (request) => ({ data: await getServer(ctx, authOf(request), request.params.handle) }),
  );

  app.put(
    '/api/mcp/mcp_servers/:handle',
    {
      config: write,
      schema: {
        tags,
        summary: 'Update an MCP server (name, description, auth_type, folder_id)',
        params: HandleParams,
        body: UpdateServerBody,
        response: { 200: McpServerEnvelope, ...errorResponses(...AUTH_ERRORS, 404) },
      },
    },
    async (request) => ({ data: await updateServer(ctx, authOf(request), request.params.handle, request.body) }),
  );

  app.delete(
    '/api/mcp/mcp_servers/:handle',
    {
      config: write,
      schema: {
        tags,
        summary: 'Delete an MCP server',
        params: HandleParams,
        response: { 200: SuccessBody, ...errorResponses(...AUTH_ERRORS, 404) },
      },
    },
    async (request) => {
      await deleteServer(ctx, authOf(request), request.params.handle);
      return { success: true };
    },
  );

  app.post(
    '/api/mcp/mcp_servers/:handle/token_renew',
    {
      config: write,
      schema: {
        tags,
        summary: 'Renew the server’s token: the old one stops working; mcp_url carries the new one (shown once)',
        params: HandleParams,
        response: { 200: McpServerEnvelope, ...errorResponses(...AUTH_ERRORS, 404) },
      },
    },
    async (request) => ({ data: await renewToken(ctx, authOf(request), request.params.handle) }),
  );

  app.get(
    '/api/mcp/mcp_servers/:handle/tools',
    {
      config: read,
      schema: {
        tags,
        summary: 'List the server’s tools',
        params: HandleParams,
        querystring: ListPageQuery,
        response: { 200: McpToolList, ...errorResponses(...AUTH_ERRORS, 404) },
      },
    },
    async (request) => ({
      items: await listTools(ctx, authOf(request), request.params.handle, parsePage(request.query, { max: 100 })),
    }),
  );

  app.post(
    '/api/mcp/mcp_servers/:handle/assign_tools',
    {
      config: write,
      schema: {
        tags,
        summary: 'Assign recipes (skills, recipe-backed API endpoints) to the server as tools',
        params: HandleParams,
        body: AssignToolsBody,
        response: { 200: SuccessBody, ...errorResponses(...AUTH_ERRORS, 404, 422) },
      },
    },
    async (request) => {
      await assignTools(ctx, authOf(request), request.params.handle, request.body.tools);
      return { success: true };
    },
  );

  app.put(
    '/api/mcp/mcp_servers/:handle/tools/:tool_id',
    {
      config: write,
      schema: {
        tags,
        summary: 'Change the description MCP clients see for a tool',
        params: ToolParams,
        body: UpdateToolBody,
        response: { 200: McpTool, ...errorResponses(...AUTH_ERRORS, 404, 422) },
      },
    },
    async (request) =>
      updateTool(ctx, authOf(request), request.params.handle, request.params.tool_id, request.body.description),
  );

  app.delete(
    '/api/mcp/mcp_servers/:handle/tools/:tool_id',
    {
      config: write,
      schema: {
        tags,
        summary: 'Remove a tool from the server',
        params: ToolParams,
        response: { 200: SuccessBody, ...errorResponses(...AUTH_ERRORS, 404, 422) },
      },
    },
    async (request) => {
      await deleteTool(ctx, authOf(request), request.params.handle, request.params.tool_id);
      return { success: true };
    },
  );

  app.get(
    '/api/mcp/mcp_servers/:handle/server_policies',
    {
      config: read,
      schema: {
        tags,
        summary: 'The server’s policy (bare object)',
        params: HandleParams,
        response: { 200: McpPolicy, ...errorResponses(...AUTH_ERRORS, 404) },
      },
    },
    async (request) => getPolicy(ctx, authOf(request), request.params.handle),
  );

  app.put(
    '/api/mcp/mcp_servers/:handle/server_policies',
    {
      config: write,
      schema: {
        tags,
        summary: 'Set the server’s rate limit, quota and IP lists (bare object)',
        params: HandleParams,
        body: PolicyBody,
        response: { 200: McpPolicy, ...errorResponses(...AUTH_ERRORS, 404) },
      },
    },
    async (request) => setPolicy(ctx, authOf(request), request.params.handle, request.body.mcp_server_policy),
  );

  app.post(
    '/api/mcp/mcp_servers/:handle/assign_user_groups',
    {
      config: write,
      schema: {
        tags,
        summary: 'Give IdP user groups access (refused: this server has no identity provider)',
        params: HandleParams,
        body: UserGroupsBody,
        response: { 200: SuccessBody, ...errorResponses(...AUTH_ERRORS, 404, 422) },
      },
    },
    async (request) => {
      await changeUserGroups(ctx, authOf(request), request.params.handle, request.body.idp_user_group_ids, 'assign');
      return { success: true };
    },
  );

  app.post(
    '/api/mcp/mcp_servers/:handle/remove_user_groups',
    {
      config: write,
      schema: {
        tags,
        summary: 'Take IdP user groups’ access away',
        params: HandleParams,
        body: UserGroupsBody,
        response: { 200: SuccessBody, ...errorResponses(...AUTH_ERRORS, 404) },
      },
    },
    async (request) => {
      await changeUserGroups(ctx, authOf(request), request.params.handle, request.body.idp_user_group_ids, 'remove');
      return { success: true };
    },
  );

  app.get(
    '/api/mcp/user_groups',
    {
      config: read,
      schema: {
        tags,
        summary: 'IdP user groups (none: this server has no identity provider)',
        querystring: ListPageQuery,
        response: { 200: UserGroupList, ...errorResponses(...AUTH_ERRORS) },
      },
    },
    async () => ({ data: [] }),
  );
}
