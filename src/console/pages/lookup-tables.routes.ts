// The console's lookup tables section: its routes, rendered by ./lookup-tables.ts (src/console/README.md).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { IdParams } from '../../http/schemas.ts';
import { invalid } from '../../errors.ts';
import {
  addRow,
  createTable,
  deleteRow,
  deleteTables,
  getRow,
  getTable,
  listRows,
  listTables,
  updateRow,
} from '../../api/lookup_tables/lookup_tables.service.ts';
import {
  columnsOf,
  lookupRowPage,
  lookupTableNewPage,
  lookupTablePage,
  lookupTablesPage,
  TABLE_COLUMNS,
  type TableDraft,
} from './lookup-tables.ts';
import { refusalOf } from './form-fields.ts';
import { type ConsoleKit, PAGE_SIZE, Form, NoticeQuery, RowParams, RowForm } from '../kit.ts';

const NewTableForm = Type.Object({
  _csrf: Type.String({ maxLength: 100 }),
  name: Type.Optional(Type.String({ maxLength: 1000 })),
  project_id: Type.Optional(Type.String({ maxLength: 40 })),
  ...Object.fromEntries(
    Array.from({ length: TABLE_COLUMNS }, (_, i) => [`column_${i}`, Type.Optional(Type.String({ maxLength: 1000 }))]),
  ),
});

/** The form as typed, and the service's input from it (the filled column inputs, in order). */
function tableInput(body: Record<string, string | undefined>) {
  const draft: TableDraft = {
    name: body.name ?? '',
    project_id: (body.project_id ?? '').trim(),
    columns: Array.from({ length: TABLE_COLUMNS }, (_, i) => body[`column_${i}`] ?? ''),
  };
  // Which input each of the table's columns came from, to show a column's problem on its input.
  const inputs = draft.columns.flatMap((label, i) => (label.trim() === '' ? [] : [i]));
  return { draft, inputs, schema: inputs.map((i) => ({ label: draft.columns[i] as string })) };
}

export function consoleLookupTablesRoutes(fastify: FastifyInstance, kit: ConsoleKit): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { ctx, frameOf, callerWith, can, send, csrfOf, noticeOf, hide } = kit;

  // Lookup tables
  app.get('/console/lookup-tables', { schema: { ...hide, querystring: NoticeQuery } }, async (request, reply) => {
    const tables = await listTables(ctx, callerWith(request, 'lookup_tables:read'), { offset: 0, perPage: 100 });
    return send(
      reply,
      lookupTablesPage({ ...frameOf(request, 'lookup-tables'), title: 'Lookup tables' }, tables, {
        canWrite: can(request, 'lookup_tables:write'),
        message: noticeOf(request.query.done),
      }),
    );
  });

  // A new table (as POST /api/lookup_tables): a name, an optional project, up to ten column labels.
  app.get('/console/lookup-tables/new', { schema: hide }, async (request, reply) => {
    callerWith(request, 'lookup_tables:write');
    const draft: TableDraft = { name: '', project_id: '', columns: Array.from({ length: TABLE_COLUMNS }, () => '') };
    return send(
      reply,
      lookupTableNewPage({ ...frameOf(request, 'lookup-tables'), title: 'New lookup table' }, draft, csrfOf(request)),
    );
  });

  app.post('/console/lookup-tables/new', { schema: { ...hide, body: NewTableForm } }, async (request, reply) => {
    const scope = callerWith(request, 'lookup_tables:write');
    const { draft, inputs, schema } = tableInput(request.body as Record<string, string | undefined>);
    try {
      if (draft.project_id !== '' && !/^[1-9]\d{0,15}$/.test(draft.project_id))
        throw invalid({ project_id: ['must be an integer'] });
      const table = await createTable(ctx, scope, {
        name: draft.name,
        ...(draft.project_id !== '' ? { project_id: Number(draft.project_id) } : {}),
        schema,
      });
      return reply.redirect(`/console/lookup-tables/${table.id}?done=table_created`, 303);
    } catch (error) {
      const refusal = refusalOf(error);
      // `schema.<n>.label` is the n-th filled column: shown on the input it was typed in.
      const errors: Record<string, string[]> = {};
      for (const [key, problems] of Object.entries(refusal.errors)) {
        const column = /^schema\.(\d+)\.label$/.exec(key);
        errors[column ? `column_${inputs[Number(column[1])] ?? 0}` : key] = problems;
      }
      return send(
        reply,
        lookupTableNewPage(
          { ...frameOf(request, 'lookup-tables'), title: 'New lookup table' },
          draft,
          csrfOf(request),
          { ...refusal, errors },
        ),
        refusal.status,
      );
    }
  });

  // Delete a table and its rows (as POST /api/lookup_tables/batch_delete with its id).
  app.post(
    '/console/lookup-tables/:id/delete',
    { schema: { ...hide, params: IdParams, body: Form({}) } },
    async (request, reply) => {
      await deleteTables(ctx, callerWith(request, 'lookup_tables:write'), [request.params.id], 'id');
      return reply.redirect('/console/lookup-tables?done=table_deleted', 303);
    },
  );

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
