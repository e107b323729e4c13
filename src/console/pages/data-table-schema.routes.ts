// The console's data table authoring (src/console/README.md): a new table with its columns; a
// table's name and columns changed (as PUT /api/data_tables/:id with the whole column list); a
// table deleted. Rendered by ./data-table-schema.ts.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { invalid } from '../../errors.ts';
import { IdParams } from '../../http/schemas.ts';
import { createTable, deleteTable, getTable, updateTable } from '../../api/data_tables/data_tables.service.ts';
import type { Column } from '../../api/data_tables/columns.ts';
import { refusalOf, type Refusal } from './form-fields.ts';
import {
  ADDED_COLUMN_ROWS,
  dataTableNewPage,
  dataTableSchemaPage,
  NEW_COLUMN_ROWS,
  type NewColumnDraft,
  type SchemaEditDraft,
  type SchemaRow,
} from './data-table-schema.ts';
import type { ConsoleKit } from '../kit.ts';

/** The forms' fields: name, folder_id, and per column row `col_name_<i>`, `col_type_<i>`, `ex_id_<i>`, .... */
const TableForm = Type.Object(
  { _csrf: Type.String({ maxLength: 100 }) },
  { additionalProperties: Type.String({ maxLength: 1000 }) },
);

function newColumns(body: Record<string, string> | undefined, count: number): NewColumnDraft[] {
  return Array.from({ length: count }, (_, i) => ({
    name: body?.[`col_name_${i}`] ?? '',
    type: body?.[`col_type_${i}`] ?? 'string',
    required: body?.[`col_req_${i}`] === '1',
  }));
}

/** New columns as the service takes them, with the form row of each (blank names left out). */
function addedSchema(columns: readonly NewColumnDraft[]) {
  const schema: Array<Record<string, unknown>> = [];
  const rows: SchemaRow[] = [];
  columns.forEach((c, i) => {
    if (c.name.trim() === '') return;
    schema.push({ name: c.name, type: c.type, optional: !c.required });
    rows.push({ inputId: `col-name-${i}`, label: `New column ${i + 1}` });
  });
  return { schema, rows };
}

export function consoleDataTableSchemaRoutes(fastify: FastifyInstance, kit: ConsoleKit): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { ctx, frameOf, callerWith, send, csrfOf, hide } = kit;

  function showNew(request: FastifyRequest, reply: FastifyReply, body?: Record<string, string>, refusal?: Refusal) {
    callerWith(request, 'data_tables:write');
    const columns = newColumns(body, NEW_COLUMN_ROWS);
    return send(
      reply,
      dataTableNewPage(
        { ...frameOf(request, 'data-tables'), title: 'New data table' },
        { name: body?.name ?? '', folder_id: body?.folder_id ?? '', columns },
        addedSchema(columns).rows,
        csrfOf(request),
        refusal,
      ),
      refusal?.status ?? 200,
    );
  }

  app.get('/console/data-tables/new', { schema: hide }, async (request, reply) => showNew(request, reply));

  app.post('/console/data-tables/new', { schema: { ...hide, body: TableForm } }, async (request, reply) => {
    const scope = callerWith(request, 'data_tables:write');
    const body = request.body as Record<string, string>;
    const folder = (body.folder_id ?? '').trim();
    try {
      if (folder !== '' && !/^\d{1,15}$/.test(folder)) throw invalid({ folder_id: ['must be a whole number'] });
      const table = await createTable(ctx, scope, {
        name: body.name ?? '',
        folder_id: folder === '' ? null : Number(folder),
        schema: addedSchema(newColumns(body, NEW_COLUMN_ROWS)).schema,
      });
      return reply.redirect(`/console/data-tables/${table.id}?done=data_table_created`, 303);
    } catch (error) {
      return showNew(request, reply, body, refusalOf(error));
    }
  });

  async function showSchema(
    request: FastifyRequest,
    reply: FastifyReply,
    id: number,
    body?: Record<string, string>,
    refusal?: Refusal,
  ) {
    const scope = callerWith(request, 'data_tables:write');
    const table = await getTable(ctx, scope, id);
    const { draft, rows } = schemaDraft(table.schema, table.name, body);
    return send(
      reply,
      dataTableSchemaPage(
        { ...frameOf(request, 'data-tables'), title: `Change ${table.name}` },
        table,
        draft,
        rows,
        csrfOf(request),
        refusal,
      ),
      refusal?.status ?? 200,
    );
  }

  app.get('/console/data-tables/:id/schema', { schema: { ...hide, params: IdParams } }, async (request, reply) =>
    showSchema(request, reply, request.params.id),
  );

  app.post(
    '/console/data-tables/:id/schema',
    { schema: { ...hide, params: IdParams, body: TableForm } },
    async (request, reply) => {
      const scope = callerWith(request, 'data_tables:write');
      const body = request.body as Record<string, string>;
      const table = await getTable(ctx, scope, request.params.id);
      const { draft } = schemaDraft(table.schema, table.name, body);
      const kept = draft.existing
        .filter((e) => !e.remove)
        .map((e) => ({
          field_id: e.column.field_id,
          name: e.name,
          type: e.column.type,
          optional: e.column.optional,
          default_value: e.column.default_value,
          hint: e.column.hint,
        }));
      try {
        await updateTable(ctx, scope, table.id, {
          name: draft.name,
          schema: [...kept, ...addedSchema(draft.added).schema],
        });
        return reply.redirect(`/console/data-tables/${table.id}?done=data_table_saved`, 303);
      } catch (error) {
        return showSchema(request, reply, table.id, body, refusalOf(error));
      }
    },
  );

  app.post(
    '/console/data-tables/:id/delete',
    { schema: { ...hide, params: IdParams, body: TableForm } },
    async (request, reply) => {
      await deleteTable(ctx, callerWith(request, 'data_tables:write'), request.params.id);
      return reply.redirect('/console/data-tables?done=data_table_deleted', 303);
    },
  );
}

/**
 * The change form's draft: each column with the name typed (matched by its field id, so a column
 * removed by someone else meanwhile is simply gone) and the rows the service's `schema.<i>` refer to.
 */
function schemaDraft(
  columns: readonly Column[],
  tableName: string,
  body: Record<string, string> | undefined,
): { draft: SchemaEditDraft; rows: SchemaRow[] } {
  const typed = new Map<string, { name: string; remove: boolean }>();
  for (let i = 0; body && body[`ex_id_${i}`] !== undefined && i < 200; i++)
    typed.set(body[`ex_id_${i}`] as string, {
      name: body[`ex_name_${i}`] ?? '',
      remove: body[`ex_drop_${i}`] === '1',
    });
  const existing = columns.map((column) => ({
    column,
    name: typed.get(column.field_id)?.name ?? column.name,
    remove: typed.get(column.field_id)?.remove ?? false,
  }));
  const added = newColumns(body, ADDED_COLUMN_ROWS);
  const rows: SchemaRow[] = [
    ...existing.flatMap((e, i) => (e.remove ? [] : [{ inputId: `ex-name-${i}`, label: `Column ${i + 1}` }])),
    ...addedSchema(added).rows,
  ];
  return { draft: { name: body?.name ?? tableName, existing, added }, rows };
}
