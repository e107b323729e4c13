// The console's lookup tables section: its routes, rendered by ./lookup-tables.ts (src/console/README.md).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { IdParams } from '../../http/schemas.ts';
import {
  addRow,
  deleteRow,
  getRow,
  getTable,
  listRows,
  listTables,
  updateRow,
} from '../../api/lookup_tables/lookup_tables.service.ts';
import { columnsOf, lookupRowPage, lookupTablePage, lookupTablesPage } from './lookup-tables.ts';
import { type ConsoleKit, PAGE_SIZE, Form, RowParams, RowForm } from '../kit.ts';

export function consoleLookupTablesRoutes(fastify: FastifyInstance, kit: ConsoleKit): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { ctx, frameOf, callerWith, can, send, csrfOf, noticeOf, hide } = kit;

  // Lookup tables
  app.get('/console/lookup-tables', { schema: hide }, async (request, reply) => {
    const tables = await listTables(ctx, callerWith(request, 'lookup_tables:read'), { offset: 0, perPage: 100 });
    return send(reply, lookupTablesPage({ ...frameOf(request, 'lookup-tables'), title: 'Lookup tables' }, tables));
  });

  async function showTable(
    request: FastifyRequest,
    reply: FastifyReply,
    id: number,
    q: { column?: string | undefined; value?: string | undefined; page?: number | undefined },
    message?: { text: string; kind: 'ok' | 'error' },
    status = 200,
  ) {
    const scope = callerWith(request, 'lookup_tables:read');
    const table = await getTable(ctx, scope, id);
    const columns = columnsOf(table);
    const pageNo = q.page ?? 1;
    const searching = q.value !== undefined && q.value !== '' && q.column !== undefined && columns.includes(q.column);
    const rows = await listRows(ctx, scope, id, searching ? { [`by[${q.column}]`]: q.value } : {}, {
      offset: (pageNo - 1) * PAGE_SIZE,
      perPage: PAGE_SIZE + 1,
    });
    return send(
      reply,
      lookupTablePage(
        { ...frameOf(request, 'lookup-tables'), title: table.name },
        {
          table,
          columns,
          rows: rows.slice(0, PAGE_SIZE),
          hasMore: rows.length > PAGE_SIZE,
          page: pageNo,
          search: searching ? { column: q.column, value: q.value } : { column: q.column },
          canWrite: can(request, 'lookup_tables:write'),
          message,
        },
        csrfOf(request),
      ),
      status,
    );
  }

  app.get(
    '/console/lookup-tables/:id',
    {
      schema: {
        ...hide,
        params: IdParams,
        querystring: Type.Object({
          column: Type.Optional(Type.String({ maxLength: 255 })),
          value: Type.Optional(Type.String({ maxLength: 10240 })),
          page: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000 })),
          done: Type.Optional(Type.String({ maxLength: 40 })),
        }),
      },
    },
    async (request, reply) => showTable(request, reply, request.params.id, request.query, noticeOf(request.query.done)),
  );

  /** A row's values from the form's col_<i> fields, by the table's column labels. */
  function rowData(columns: readonly string[], body: Record<string, string>): Record<string, string> {
    const data: Record<string, string> = {};
    columns.forEach((label, i) => {
      const value = body[`col_${i}`];
      if (value !== undefined) data[label] = value;
    });
    return data;
  }

  app.post(
    '/console/lookup-tables/:id/rows',
    { schema: { ...hide, params: IdParams, body: RowForm } },
    async (request, reply) => {
      const scope = callerWith(request, 'lookup_tables:write');
      const table = await getTable(ctx, scope, request.params.id);
      await addRow(ctx, scope, table.id, rowData(columnsOf(table), request.body as Record<string, string>));
      return reply.redirect(`/console/lookup-tables/${table.id}?done=row_added`, 303);
    },
  );

  app.get(
    '/console/lookup-tables/:id/rows/:row_id',
    { schema: { ...hide, params: RowParams } },
    async (request, reply) => {
      const scope = callerWith(request, 'lookup_tables:write');
      const table = await getTable(ctx, scope, request.params.id);
      const row = await getRow(ctx, scope, table.id, request.params.row_id);
      return send(
        reply,
        lookupRowPage(
          { ...frameOf(request, 'lookup-tables'), title: `Edit row ${row.id}` },
          table,
          columnsOf(table),
          row,
          csrfOf(request),
        ),
      );
    },
  );

  app.post(
    '/console/lookup-tables/:id/rows/:row_id',
    { schema: { ...hide, params: RowParams, body: RowForm } },
    async (request, reply) => {
      const scope = callerWith(request, 'lookup_tables:write');
      const table = await getTable(ctx, scope, request.params.id);
      await updateRow(
        ctx,
        scope,
        table.id,
        request.params.row_id,
        rowData(columnsOf(table), request.body as Record<string, string>),
      );
      return reply.redirect(`/console/lookup-tables/${table.id}?done=row_saved`, 303);
    },
  );

  app.post(
    '/console/lookup-tables/:id/rows/:row_id/delete',
    { schema: { ...hide, params: RowParams, body: Form({}) } },
    async (request, reply) => {
      await deleteRow(ctx, callerWith(request, 'lookup_tables:write'), request.params.id, request.params.row_id);
      return reply.redirect(`/console/lookup-tables/${request.params.id}?done=row_deleted`, 303);
    },
  );
}
