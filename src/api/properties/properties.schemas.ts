import { Type, type Static } from 'typebox';
import { IdInput } from '../../http/schemas.ts';
import { optionalQueryId } from '../folders/folders.schemas.ts';

const ProjectIdQuery = optionalQueryId('Project id: its project properties; absent: environment properties');

export const PropertiesQuery = Type.Object({
  prefix: Type.Optional(
    Type.String({ description: 'Only names starting with this text (case-sensitive); empty or absent: all' }),
  ),
  project_id: Type.Optional(ProjectIdQuery),
});

export const UpsertQuery = Type.Object({ project_id: Type.Optional(ProjectIdQuery) });

export const UpsertBody = Type.Object({
  // Values are checked one by one in the service so that each error names its property.
  properties: Type.Unsafe<Record<string, unknown>>({
    type: 'object',
    description:
      'Name -> value. Names: 1-100 characters, no control characters. Values: strings up to 1,024 characters; numbers and booleans are stored as their text',
  }),
  project_id: Type.Optional(IdInput),
});
export type UpsertBody = Static<typeof UpsertBody>;

/** A flat map; additionalProperties (not a pattern) so that any name, even with a newline, is sent. */
export const PropertyMap = Type.Unsafe<Record<string, string>>({
  type: 'object',
  additionalProperties: { type: 'string' },
  description: 'Property name -> value',
});
