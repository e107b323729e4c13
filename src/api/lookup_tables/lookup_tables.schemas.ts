import { Type, type Static } from 'typebox';
import { Id, IdInput, PageQuery, Timestamp } from '../../http/schemas.ts';

const tableFields = {
  name: Type.Optional(
    Type.String({
      description: 'Table name, unique in the environment (ignoring case); recipes refer to the table by it',
    }),
  ),
  project_id: Type.Optional(
    Type.Union([IdInput, Type.Null()], {
      description: 'Scope the table to this project; omitted or null: workspace-global',
    }),
  ),
  // Checked by the service, which names the column at fault; typed here for the documentation.
  schema: Type.Optional(
    Type.Unknown({
      description:
        'The columns, in order: an array of 1 to 10 objects `{"label": "code"}` (other keys ignored), or that array JSON-encoded as tables are returned. Position n becomes col<n>.',
      examples: [[{ label: 'code' }, { label: 'country' }, { label: 'currency' }]],
    }),
  ),
};

// The fields at the top level (docs) or wrapped in `lookup_table` (a real client); the wrapped form wins.
export const CreateTableBody = Type.Object({
  ...tableFields,
  lookup_table: Type.Optional(Type.Object(tableFields, { description: 'The same fields, wrapped' })),
});
export type CreateTableBody = Static<typeof CreateTableBody>;

const IdList = Type.Array(IdInput, { maxItems: 1000 });
export const BatchDeleteBody = Type.Object({
  ids: Type.Optional(IdList),
  lookup_table_ids: Type.Optional(IdList),
});

const RowData = Type.Record(Type.String(), Type.Unknown(), {
  description:
    'Column label (or col1..col10) -> value. Strings are stored as given; numbers and booleans as their text; null or "" empties the cell; objects and arrays are refused. At most 10 KB (UTF-8) a value.',
});
export const RowBody = Type.Object({
  data: Type.Optional(RowData),
  row: Type.Optional(
    Type.Record(Type.String(), Type.Unknown(), { description: 'Alias of data (sent by some clients); data wins' }),
  ),
});

export const TableParams = Type.Object({ lookup_table_id: Id });
export const RowParams = Type.Object({ lookup_table_id: Id, row_id: Id });

export const ListTablesQuery = Type.Object(PageQuery);
// `by[<column>]=<value>` parameters are read by the service; any other parameter is ignored.
export const RowsQuery = Type.Object(PageQuery, { additionalProperties: true });
export const LookupQuery = Type.Object({}, { additionalProperties: true });

export const LookupTable = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  schema: Type.String({ description: 'JSON-encoded array of {control_type, label, name, type, sticky}' }),
  created_at: Timestamp,
  updated_at: Timestamp,
  project_id: Type.Union([Type.String({ description: 'Project id, as a string of digits' }), Type.Null()]),
});

export const LookupRow = Type.Object({
  id: Type.Integer(),
  data: Type.Record(Type.String(), Type.Union([Type.String(), Type.Null()]), {
    description: 'Cell values by column label; null for an empty cell',
  }),
  created_at: Timestamp,
  updated_at: Timestamp,
});

export const TableList = Type.Array(LookupTable);
export const RowList = Type.Array(LookupRow);
export const BatchDeleteResult = Type.Object({
  deleted_ids: Type.Array(Type.Integer()),
  failed_ids: Type.Array(Type.Integer(), {
    description: 'Always empty: an unknown id fails the whole call with a 404',
  }),
});
