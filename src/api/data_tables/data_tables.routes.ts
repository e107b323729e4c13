// Data tables and their records: the management API (our own routes; the vendor manages them in
// its UI). Envelope `{"data": ...}` as the vendor's data table API.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { ServiceContext } from '../../context.ts';
import { authOf } from '../../http/auth.ts';
import { parsePage } from '../../http/pagination.ts';
import { AUTH_ERRORS, errorResponses, SuccessBody, toId } from '../../http/schemas.ts';
import { invalid, type FieldErrors } from '../../errors.ts';
import {
  CreateTableBody,
  ListTablesQuery,
  RecordBody,
  RecordEnvelope,
  RecordList,
  RecordParams,
  RecordsBatchBody,
  RecordsBatchResult,
  RecordsQuery,
  TableEnvelope,
  TableList,
  TableParams,
  TruncateResult,
  UpdateTableBody,
} from './data_tables.schemas.ts';
import {
  addRecord,
  addRecords,
  columnsOf,
  createTable,
  deleteRecord,
  deleteTable,
  filterFor,
  getRecord,
  getTable,
  listTables,
  recordToApi,
  searchRecords,
  truncateTable,
  updateRecord,
  updateTable,
  type RecordListener,
} from './data_tables.service.ts';
import type { Filter } from './columns.ts';

const tags = ['Data tables'];
const FILTERS =
  "Filter with `by[<column name or UUID>]=<value>` (equality, the value read as the column's type), repeated for several columns (all must match). Records come in the order they were added.";

export function dataTablesRoutes(
  fastify: FastifyInstance,
  ctx: ServiceContext,
  runtime: { engine: { readonly dataTableListener: RecordListener } },
): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const listener = runtime.engine.dataTableListener;

  app.get(
    '/api/data_tables',
    {
      config: { privilege: 'data_tables:read' },
      schema: {
        tags,
        summary: 'List data tables (per_page ≤ 100)',
        querystring: ListTablesQuery,
        response: { 200: TableList, ...errorResponses(...AUTH_ERRORS) },
      },
    },
    async (request) => ({ data: await listTables(ctx, authOf(request), parsePage(request.query)) }),
  );

  app.post(
    '/api/data_tables',
    {
      config: { privilege: 'data_tables:write' },
      schema: {
        tags,
        summary: 'Create a data table with its columns',
        body: CreateTableBody,
        response: { 200: TableEnvelope, ...errorResponses(...AUTH_ERRORS, 404, 422) },
      },
    },
    async (request) => {
      const body = request.body ?? {};
      return {
        data: await createTable(ctx, authOf(request), {
          name: body.name,
          schema: body.schema,
          folder_id: body.folder_id === undefined || body.folder_id === null ? null : toId(body.folder_id),
        }),
      };
    },
  );

  app.get(
    '/api/data_tables/:data_table_id',
    {
      config: { privilege: 'data_tables:read' },
      schema: {
        tags,
        summary: 'Get a data table and its columns',
        params: TableParams,
        response: { 200: TableEnvelope, ...errorResponses(...AUTH_ERRORS, 404) },
      },
    },
    async (request) => ({ data: await getTable(ctx, authOf(request), request.params.data_table_id) }),
  );

  app.put(
    '/api/data_tables/:data_table_id',
    {
      config: { privilege: 'data_tables:write' },
      schema: {
        tags,
        summary: 'Rename a data table or change its columns',
        params: TableParams,
        body: UpdateTableBody,
        response: { 200: TableEnvelope, ...errorResponses(...AUTH_ERRORS, 404, 422) },
      },
    },
    async (request) => ({
      data: await updateTable(ctx, authOf(request), request.params.data_table_id, request.body ?? {}),
    }),
  );

  app.delete(
    '/api/data_tables/:data_table_id',
    {
      config: { privilege: 'data_tables:write' },
      schema: {
        tags,
        summary: 'Delete a data table and its records',
        params: TableParams,
        response: { 200: SuccessBody, ...errorResponses(...AUTH_ERRORS, 404) },
      },
    },
    async (request) => {
      await deleteTable(ctx, authOf(request), request.params.data_table_id);
      return { success: true };
    },
  );

  app.post(
    '/api/data_tables/:data_table_id/truncate',
    {
      config: { privilege: 'data_tables:write' },
      schema: {
        tags,
        summary: 'Delete every record of a data table',
        params: TableParams,
        response: { 200: TruncateResult, ...errorResponses(...AUTH_ERRORS, 404) },
      },
    },
    async (request) => ({
      success: true,
      deleted_count: await truncateTable(ctx, authOf(request), request.params.data_table_id),
    }),
  );

  app.get(
    '/api/data_tables/:data_table_id/records',
    {
      config: { privilege: 'data_tables:read' },
      schema: {
        tags,
        summary: 'List or search records (per_page default 100, ≤ 1000)',
        description: FILTERS,
        params: TableParams,
        querystring: RecordsQuery,
        response: { 200: RecordList, ...errorResponses(...AUTH_ERRORS, 404) },
      },
    },
    async (request) => {
      const scope = authOf(request);
      const query = request.query as Record<string, unknown>;
      const page = parsePage(query, { max: 1000, fallback: 100 });
      const table = await getTable(ctx, scope, request.params.data_table_id);
      const filters = filtersOf(table.schema, query);
      const found = await searchRecords(ctx, scope, table.id, { filters, limit: page.perPage, offset: page.offset });
      const columns = columnsOf(found.table);
      return {
        data: found.records.map((r) => recordToApi(r, columns)),
        next_page: found.next === null ? null : page.page + 1,
      };
    },
  );

  app.post(
    '/api/data_tables/:data_table_id/records',
    {
      config: { privilege: 'data_tables:write' },
      schema: {
        tags,
        summary: 'Add a record',
        params: TableParams,
        body: RecordBody,
        response: { 200: RecordEnvelope, ...errorResponses(...AUTH_ERRORS, 404) },
      },
    },
    async (request) => ({
      data: await addRecord(ctx, authOf(request), request.params.data_table_id, dataOf(request.body), listener),
    }),
  );

  app.post(
    '/api/data_tables/:data_table_id/records/batch',
    {
      config: { privilege: 'data_tables:write' },
      schema: {
        tags,
        summary: 'Add up to 1,000 records: all of them, or none when one is refused',
        params: TableParams,
        body: RecordsBatchBody,
        response: { 200: RecordsBatchResult, ...errorResponses(...AUTH_ERRORS, 404) },
      },
    },
    async (request) => {
      const { table, records } = await addRecords(
        ctx,
        authOf(request),
        request.params.data_table_id,
        request.body.records,
        { listener, field: 'records' },
      );
      const columns = columnsOf(table);
      return { data: records.map((r) => recordToApi(r, columns)) };
    },
  );

  app.get(
    '/api/data_tables/:data_table_id/records/:record_id',
    {
      config: { privilege: 'data_tables:read' },
      schema: {
        tags,
        summary: 'Get a record',
        params: RecordParams,
        response: { 200: RecordEnvelope, ...errorResponses(...AUTH_ERRORS, 404) },
      },
    },
    async (request) => ({
      data: await getRecord(ctx, authOf(request), request.params.data_table_id, request.params.record_id),
    }),
  );

  app.put(
    '/api/data_tables/:data_table_id/records/:record_id',
    {
      config: { privilege: 'data_tables:write' },
      schema: {
        tags,
        summary: 'Update a record: only the columns given change',
        params: RecordParams,
        body: RecordBody,
        response: { 200: RecordEnvelope, ...errorResponses(...AUTH_ERRORS, 404) },
      },
    },
    async (request) => ({
      data: await updateRecord(
        ctx,
        authOf(request),
        request.params.data_table_id,
        request.params.record_id,
        dataOf(request.body),
        listener,
      ),
    }),
  );

  app.delete(
    '/api/data_tables/:data_table_id/records/:record_id',
    {
      config: { privilege: 'data_tables:write' },
      schema: {
        tags,
        summary: 'Delete a record',
        params: RecordParams,
        response: { 200: SuccessBody, ...errorResponses(...AUTH_ERRORS, 404) },
      },
    },
    async (request) => {
      await deleteRecord(ctx, authOf(request), request.params.data_table_id, request.params.record_id);
      return { success: true };
    },
  );
}

function dataOf(body: { data?: unknown } | undefined): unknown {
  if (body?.data === undefined)
    throw invalid({ data: ['is required: an object of column values, e.g. {"data": {"email": "a@example.com"}}'] });
  return body.data;
}

/** `by[column]=value` query parameters as equality filters; a problem is a 400 naming the parameter. */
function filtersOf(columns: Parameters<typeof filterFor>[0], query: Record<string, unknown>): Filter[] {
  const filters: Filter[] = [];
  const errors: FieldErrors = {};
  for (const [key, raw] of Object.entries(query)) {
    const m = /^by\[(.*)\]$/s.exec(key);
    if (!m) continue;
    if (Array.isArray(raw)) {
      errors[key] = ['is given twice'];
      continue;
    }
    const filter = filterFor(columns, m[1] as string, 'eq', raw);
    if ('problem' in filter) errors[key] = [filter.problem];
    else filters.push(filter);
  }
  if (Object.keys(errors).length > 0) throw invalid(errors);
  return filters;
}
