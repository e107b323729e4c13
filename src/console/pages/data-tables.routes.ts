// The console's data tables section: its routes, rendered by ./data-tables.ts (src/console/README.md).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { AppError } from '../../errors.ts';
import { IdParams } from '../../http/schemas.ts';
import {
  addRecord,
  columnsOf as dataColumnsOf,
  deleteRecord,
  filterFor,
  getRecord,
  getTable as getDataTable,
  listTables as listDataTables,
  recordToApi,
  searchRecords,
  updateRecord,
} from '../../api/data_tables/data_tables.service.ts';
import { dataRecordPage, dataTablePage, dataTablesPage } from './data-tables.ts';
import { type ConsoleKit, PAGE_SIZE, Form, NoticeQuery, RowForm } from '../kit.ts';

/** A data table's page: its records, a page at a time, or those matching one column's value. */
async function showDataTable(
  kit: ConsoleKit,
  request: FastifyRequest,
  reply: FastifyReply,
  id: number,
  q: { column?: string | undefined; value?: string | undefined; page?: number | undefined },
  extra: { message?: { text: string; kind: 'ok' | 'error' } | undefined; draft?: Record<string, string> } = {},
  status = 200,
) {
  const { ctx, callerWith, send, frameOf, can, csrfOf } = kit;
  const scope = callerWith(request, 'data_tables:read');
  const table = await getDataTable(ctx, scope, id);
  const pageNo = q.page ?? 1;
  const searching =
    q.value !== undefined && q.value !== '' && q.column !== undefined && table.schema.some((c) => c.name === q.column);
  let message = extra.message;
  let records: ReturnType<typeof recordToApi>[] = [];
  let hasMore = false;
  const filter = searching ? filterFor(table.schema, q.column as string, 'eq', q.value) : null;
  if (filter && 'problem' in filter) {
    message = { text: `Not searched: ${filter.problem}.`, kind: 'error' };
    status = 400;
  } else {
    const found = await searchRecords(ctx, scope, table.id, {
      filters: filter ? [filter] : [],
      limit: PAGE_SIZE,
      offset: (pageNo - 1) * PAGE_SIZE,
    });
    const columns = dataColumnsOf(found.table);
    records = found.records.map((r) => recordToApi(r, columns));
    hasMore = found.next !== null;
  }
  return send(
    reply,
    dataTablePage(
      { ...frameOf(request, 'data-tables'), title: table.name },
      {
        table,
        records,
        hasMore,
        page: pageNo,
        search: searching ? { column: q.column, value: q.value } : { column: q.column },
        canWrite: can(request, 'data_tables:write'),
        message,
        draft: extra.draft,
      },
      csrfOf(request),
    ),
    status,
  );
}

export function consoleDataTablesRoutes(fastify: FastifyInstance, kit: ConsoleKit): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { ctx, frameOf, callerWith, send, noticeOf, hide, can } = kit;

  // Data tables
  app.get('/console/data-tables', { schema: { ...hide, querystring: NoticeQuery } }, async (request, reply) => {
    const tables = await listDataTables(ctx, callerWith(request, 'data_tables:read'), { offset: 0, perPage: 100 });
    return send(
      reply,
      dataTablesPage({ ...frameOf(request, 'data-tables'), title: 'Data tables' }, tables, {
        canWrite: can(request, 'data_tables:write'),
        message: noticeOf(request.query.done),
      }),
    );
  });

  const DataTableQuery = Type.Object({
    column: Type.Optional(Type.String({ maxLength: 255 })),
    value: Type.Optional(Type.String({ maxLength: 10240 })),
    page: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000 })),
    done: Type.Optional(Type.String({ maxLength: 40 })),
  });

  app.get(
    '/console/data-tables/:id',
    { schema: { ...hide, params: IdParams, querystring: DataTableQuery } },
    async (request, reply) =>
      showDataTable(kit, request, reply, request.params.id, request.query, { message: noticeOf(request.query.done) }),
  );
}

export function consoleDataTableRecordsRoutes(fastify: FastifyInstance, kit: ConsoleKit): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { ctx, engine, frameOf, callerWith, send, csrfOf, hide } = kit;

  const RecordParams = Type.Object({
    id: IdParams.properties.id,
    record_id: Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9-]+$' }),
  });

  /** A record's values from the form's col_<i> fields, by the table's column names (text: the service reads it as the column's type). */
  function recordData(columns: ReadonlyArray<{ name: string }>, body: Record<string, string>): Record<string, string> {
    const data: Record<string, string> = {};
    columns.forEach((column, i) => {
      const value = body[`col_${i}`];
      if (value !== undefined) data[column.name] = value;
    });
    return data;
  }

  const refused = (error: unknown) => (error instanceof AppError && error.status === 400 ? error : undefined);

  app.post(
    '/console/data-tables/:id/records',
    { schema: { ...hide, params: IdParams, body: RowForm } },
    async (request, reply) => {
      const scope = callerWith(request, 'data_tables:write');
      const table = await getDataTable(ctx, scope, request.params.id);
      const body = request.body as Record<string, string>;
      try {
        await addRecord(ctx, scope, table.id, recordData(table.schema, body), engine.dataTableListener);
      } catch (error) {
        const problem = refused(error);
        if (!problem) throw error;
        return showDataTable(
          kit,
          request,
          reply,
          table.id,
          {},
          {
            message: { text: `Not added: ${problem.message}`, kind: 'error' },
            draft: recordData(table.schema, body),
          },
          400,
        );
      }
      return reply.redirect(`/console/data-tables/${table.id}?done=record_added`, 303);
    },
  );

  app.get(
    '/console/data-tables/:id/records/:record_id',
    { schema: { ...hide, params: RecordParams } },
    async (request, reply) => {
      const scope = callerWith(request, 'data_tables:write');
      const table = await getDataTable(ctx, scope, request.params.id);
      const record = await getRecord(ctx, scope, table.id, request.params.record_id);
      return send(
        reply,
        dataRecordPage({ ...frameOf(request, 'data-tables'), title: 'Edit record' }, table, record, csrfOf(request)),
      );
    },
  );

  app.post(
    '/console/data-tables/:id/records/:record_id',
    { schema: { ...hide, params: RecordParams, body: RowForm } },
    async (request, reply) => {
      const scope = callerWith(request, 'data_tables:write');
      const table = await getDataTable(ctx, scope, request.params.id);
      const data = recordData(table.schema, request.body as Record<string, string>);
      try {
        await updateRecord(ctx, scope, table.id, request.params.record_id, data, engine.dataTableListener);
      } catch (error) {
        const problem = refused(error);
        if (!problem) throw error;
        const record = await getRecord(ctx, scope, table.id, request.params.record_id);
        return send(
          reply,
          dataRecordPage({ ...frameOf(request, 'data-tables'), title: 'Edit record' }, table, record, csrfOf(request), {
            text: `Not saved: ${problem.message}`,
            draft: data,
          }),
          400,
        );
      }
      return reply.redirect(`/console/data-tables/${table.id}?done=record_saved`, 303);
    },
  );

  app.post(
    '/console/data-tables/:id/records/:record_id/delete',
    { schema: { ...hide, params: RecordParams, body: Form({}) } },
    async (request, reply) => {
      await deleteRecord(ctx, callerWith(request, 'data_tables:write'), request.params.id, request.params.record_id);
      return reply.redirect(`/console/data-tables/${request.params.id}?done=record_deleted`, 303);
    },
  );
}
