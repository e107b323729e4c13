import { Type } from 'typebox';
import { Id, IdInput, PageQuery, Timestamp } from '../../http/schemas.ts';

export const CreateTableBody = Type.Object({
  name: Type.Optional(Type.Unknown({ description: 'Table name, unique in the environment ignoring case' })),
  folder_id: Type.Optional(
    Type.Union([IdInput, Type.Null()], {
      description: 'The folder of the table; default: Home (clients of all projects only)',
    }),
  ),
  // Checked by the service, which names the column at fault; typed here for the documentation.
  schema: Type.Optional(
    Type.Unknown({
      description:
        'The columns, in order: 1 to 100 of {name, type, optional, default_value, hint, field_id}. `type`: string, integer, decimal (or number), boolean, date (YYYY-MM-DD) or date_time (ISO 8601); `optional` false: every record must hold a value (default true); `default_value`: the value of a new record that gives none; `field_id`: the column UUID, generated when not given. Names are unique ignoring case and are not Record ID, Created at or Updated at.',
      examples: [
        [
          { name: 'email', type: 'string', optional: false },
          { name: 'amount', type: 'decimal' },
        ],
      ],
    }),
  ),
});

export const UpdateTableBody = Type.Object({
  name: Type.Optional(Type.Unknown({ description: 'A new name' })),
  schema: Type.Optional(
    Type.Unknown({
      description:
        'The whole new list of columns: a column with the field_id of an existing one keeps its values; columns left out are dropped',
    }),
  ),
});

export const Column = Type.Object({
  field_id: Type.String({ description: 'Column UUID; recipes write it with `_` for `-`' }),
  name: Type.String(),
  type: Type.String(),
  optional: Type.Boolean(),
  default_value: Type.Unknown(),
  hint: Type.String(),
});

export const DataTable = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  folder_id: Type.Integer(),
  project_id: Type.Union([Type.String(), Type.Null()]),
  schema: Type.Array(Column, {
    description:
      'The columns; every table also has Record ID (11fbe9a6-a16d-4d7e-86ea-afe42ec03005), Created at and Updated at',
  }),
  record_count: Type.Integer(),
  created_at: Timestamp,
  updated_at: Timestamp,
});

export const TableEnvelope = Type.Object({ data: DataTable });
export const TableList = Type.Object({ data: Type.Array(DataTable) });

export const DataRecord = Type.Object({
  record_id: Type.String({ description: 'The Record ID (a UUID)' }),
  created_at: Timestamp,
  updated_at: Timestamp,
  data: Type.Record(Type.String(), Type.Unknown(), { description: 'Values by column name; null when empty' }),
});
export const RecordEnvelope = Type.Object({ data: DataRecord });
export const RecordList = Type.Object({
  data: Type.Array(DataRecord),
  next_page: Type.Union([Type.Integer(), Type.Null()], { description: 'The page after this one, null on the last' }),
});

const RecordData = Type.Record(Type.String(), Type.Unknown(), {
  description:
    'Column name (or UUID) -> value of the column\'s type; text of numbers and booleans is accepted; null or "" empties it',
});
export const RecordBody = Type.Object({ data: Type.Optional(RecordData) });
export const RecordsBatchBody = Type.Object({
  records: Type.Array(RecordData, {
    minItems: 1,
    maxItems: 1000,
    description: 'Up to 1,000 records added in one transaction: all or none',
  }),
});
export const RecordsBatchResult = Type.Object({ data: Type.Array(DataRecord) });

export const TableParams = Type.Object({ data_table_id: Id });
export const RecordParams = Type.Object({ data_table_id: Id, record_id: Type.String({ maxLength: 64 }) });
export const ListTablesQuery = Type.Object(PageQuery);
// `by[<column>]=<value>` parameters are read by the service; any other parameter is ignored.
export const RecordsQuery = Type.Object(PageQuery, { additionalProperties: true });
export const TruncateResult = Type.Object({ success: Type.Boolean(), deleted_count: Type.Integer() });
