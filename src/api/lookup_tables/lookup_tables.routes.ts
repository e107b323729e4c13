// Lookup tables and their rows (contract 11). Bare JSON bodies, no envelope.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { ServiceContext } from '../../context.ts';
import { authOf } from '../../http/auth.ts';
import { parsePage } from '../../http/pagination.ts';
import { AUTH_ERRORS, errorResponses, SuccessBody, toId } from '../../http/schemas.ts';
import { invalid } from '../../errors.ts';
import {
  BatchDeleteBody,
  BatchDeleteResult,
  CreateTableBody,
  ListTablesQuery,
  LookupQuery,
  LookupRow,
  LookupTable,
  RowBody,
  RowList,
  RowParams,
  RowsQuery,
  TableList,
  TableParams,
} from './lookup_tables.schemas.ts';
import {
  addRow,
  createTable,
  deleteRow,
  deleteTables,
  getRow,
  getTable,
  listRows,
  listTables,
  lookupRow,
  updateRow,
} from './lookup_tables.service.ts';

const tags = ['Lookup tables'];
const FILTERS =
  'Filter with `by[<column>]=<value>` (column label, or col1..col10), repeated for several columns (all must match); exact, case-sensitive; an empty value matches empty cells.';

export function lookupTablesRoutes(fastify: FastifyInstance, ctx: ServiceContext): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.get(
    '/api/lookup_tables',
    {
      config: { privilege: 'lookup_tables:read' },
      schema: {
        tags,
        summary: 'List lookup tables (per_page ≤ 100)',
        querystring: ListTablesQuery,
        response: { 200: TableList, ...errorResponses(...AUTH_ERRORS) },
      },
    },
    async (request) => listTables(ctx, authOf(request), parsePage(request.query)),
  );

  app.post(
    '/api/lookup_tables',
    {
      config: { privilege: 'lookup_tables:write' },
      schema: {
        tags,
        summary: 'Create a lookup table with its columns',
        body: CreateTableBody,
        response: { 200: LookupTable, ...errorResponses(...AUTH_ERRORS, 404, 422) },
      },
    },
    async (request) => {
      const body = request.body ?? {};
      const fields = body.lookup_table ?? body;
      return createTable(ctx, authOf(request), {
        name: fields.name,
        schema: fields.schema,
        ...(fields.project_id === undefined
          ? {}
          : { project_id: fields.project_id === null ? null : toId(fields.project_id) }),
      });
    },
  );

  app.post(
    '/api/lookup_tables/batch_delete',
    {
      config: { privilege: 'lookup_tables:write' },
      schema: {
        tags,
        summary: 'Delete lookup tables and their rows: all of them, or none when an id is unknown (404)',
        body: BatchDeleteBody,
        response: { 200: BatchDeleteResult, ...errorResponses(...AUTH_ERRORS, 404) },
      },
    },
    async (request) => {
      const body = request.body ?? {};
      if (body.ids === undefined && body.lookup_table_ids === undefined)
        throw invalid({ ids: ['is required: the ids of the tables to delete'] });
      const field = body.ids !== undefined ? 'ids' : 'lookup_table_ids';
      const ids = [...(body.ids ?? []), ...(body.lookup_table_ids ?? [])].map(toId);
      return deleteTables(ctx, authOf(request), ids, field);
    },
  );

  app.get(
    '/api/lookup_tables/:lookup_table_id',
    {
      config: { privilege: 'lookup_tables:read' },
      schema: {
        tags,
        summary: 'Get a lookup table',
        params: TableParams,
        response: { 200: LookupTable, ...errorResponses(...AUTH_ERRORS, 404) },
      },
    },
    async (request) => getTable(ctx, authOf(request), request.params.lookup_table_id),
  );

  app.get(
    '/api/lookup_tables/:lookup_table_id/rows',
    {
      config: { privilege: 'lookup_tables:read' },
      schema: {
        tags,
        summary: 'List rows in id order (per_page default 500, ≤ 1000)',
        description: FILTERS,
        params: TableParams,
        querystring: RowsQuery,
        response: { 200: RowList, ...errorResponses(...AUTH_ERRORS, 404) },
      },
    },
    async (request) => {
      const query = request.query as Record<string, unknown>;
      return listRows(
        ctx,
        authOf(request),
        request.params.lookup_table_id,
        query,
        parsePage(query, { max: 1000, fallback: 500 }),
      );
    },
  );

  app.get(
    '/api/lookup_tables/:lookup_table_id/lookup',
    {
      config: { privilege: 'lookup_tables:read' },
      schema: {
        tags,
        summary: 'The first row (lowest id) matching the given column values; 404 when none does',
        description: FILTERS,
        params: TableParams,
        querystring: LookupQuery,
        response: { 200: LookupRow, ...errorResponses(...AUTH_ERRORS, 404) },
      },
    },
    async (request) =>
      lookupRow(ctx, authOf(request), request.params.lookup_table_id, request.query as Record<string, unknown>),
  );

  app.get(
    '/api/lookup_tables/:lookup_table_id/rows/:row_id',
    {
      config: { privilege: 'lookup_tables:read' },
      schema: {
        tags,
        summary: 'Get a row',
        params: RowParams,
        response: { 200: LookupRow, ...errorResponses(...AUTH_ERRORS, 404) },
      },
    },
    async (request) => getRow(ctx, authOf(request), request.params.lookup_table_id, request.params.row_id),
  );

  app.post(
    '/api/lookup_tables/:lookup_table_id/rows',
    {
      config: { privilege: 'lookup_tables:write' },
      schema: {
        tags,
        summary: 'Add a row; columns not given stay empty',
        params: TableParams,
        body: RowBody,
        response: { 200: LookupRow, ...errorResponses(...AUTH_ERRORS, 404) },
      },
    },
    async (request) => addRow(ctx, authOf(request), request.params.lookup_table_id, rowData(request.body)),
  );

  app.put(
    '/api/lookup_tables/:lookup_table_id/rows/:row_id',
    {
      config: { privilege: 'lookup_tables:write' },
      schema: {
        tags,
        summary: 'Update a row: only the columns given change',
        params: RowParams,
        body: RowBody,
        response: { 200: LookupRow, ...errorResponses(...AUTH_ERRORS, 404) },
      },
    },
    async (request) =>
      updateRow(ctx, authOf(request), request.params.lookup_table_id, request.params.row_id, rowData(request.body)),
  );

  app.delete(
    '/api/lookup_tables/:lookup_table_id/rows/:row_id',
    {
      config: { privilege: 'lookup_tables:write' },
      schema: {
        tags,
        summary: 'Delete a row',
        params: RowParams,
        response: { 200: SuccessBody, ...errorResponses(...AUTH_ERRORS, 404) },
      },
    },
    async (request) => {
      await deleteRow(ctx, authOf(request), request.params.lookup_table_id, request.params.row_id);
      return { success: true };
    },
  );
}

function rowData(body: { data?: unknown; row?: unknown } | undefined): unknown {
  const data = body?.data ?? body?.row;
  if (data === undefined)
    throw invalid({ data: ['is required: an object of column values, e.g. {"data": {"code": "CZ"}}'] });
  return data;
}
