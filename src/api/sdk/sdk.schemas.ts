import { Type } from 'typebox';

/** A field of a Workato schema; objects and arrays of objects nest fields in `properties`. */
export const SchemaField = Type.Cyclic(
  {
    SchemaField: Type.Object({
      control_type: Type.Optional(Type.String({ description: 'text, number or checkbox (primitive fields)' })),
      label: Type.String(),
      render_input: Type.Optional(Type.String()),
      parse_output: Type.Optional(Type.String()),
      toggle_hint: Type.Optional(Type.String()),
      toggle_field: Type.Optional(Type.Ref('SchemaField')),
      type: Type.String({ description: 'string, number, boolean, date_time, object or array' }),
      of: Type.Optional(Type.String({ description: 'Element type of an array' })),
      name: Type.String({ description: 'The key exactly as in the sample' }),
      properties: Type.Optional(Type.Array(Type.Ref('SchemaField'))),
    }),
  },
  'SchemaField',
);

export const GeneratedSchema = Type.Array(SchemaField, { description: 'The schema: a bare array of fields' });

export const GenerateJsonSchemaBody = Type.Object({
  sample: Type.Optional(
    Type.Union([
      Type.String({ description: 'The JSON document, as a string' }),
      Type.Object({}, { additionalProperties: true, description: 'Leniency: an already parsed object' }),
      Type.Array(Type.Unknown(), { description: 'Leniency: an already parsed array' }),
      Type.Null(),
    ]),
  ),
});

const Separator = Type.Union([Type.String({ maxLength: 100 }), Type.Null()]);

export const GenerateCsvSchemaBody = Type.Object({
  sample: Type.Optional(
    Type.Union([Type.String({ description: 'CSV text; the first line is the header' }), Type.Null()]),
  ),
  col_sep: Type.Optional(Separator),
  custom_col_sep: Type.Optional(Separator),
});
