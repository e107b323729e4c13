import { Type, type Static } from 'typebox';
import { Id, IdInput, PageQuery, Timestamp } from '../../http/schemas.ts';

export const FolderParams = Type.Object({ folder_id: Id });

/** An optional id in a query string: empty counts as absent (clients send `parent_id=`). */
export function optionalQueryId(description: string) {
  return Type.String({ pattern: '^([1-9][0-9]{0,14})?$', description: `${description}; empty counts as absent` });
}

export function queryId(value: string | undefined): number | undefined {
  return value === undefined || value === '' ? undefined : Number(value);
}

export const FolderListQuery = Type.Object({
  parent_id: Type.Optional(
    optionalQueryId('List the children of this folder (default: the Home folder, whose children are the projects)'),
  ),
  with_nested_folders: Type.Optional(
    Type.String({ pattern: '^(true|false|1|0)?$', description: 'true: every descendant of parent_id, flattened' }),
  ),
  ...PageQuery,
});

const ParentId = Type.Union([IdInput, Type.Null()], {
  description:
    'Parent folder id (integer or decimal string); absent, null or the Home folder id: the folder is a project',
});

// Unknown fields are ignored, as the vendor does.
export const CreateFolderBody = Type.Object({
  name: Type.String({ description: 'Trimmed; 1-255 characters, unique among its siblings (case-insensitive)' }),
  parent_id: Type.Optional(ParentId),
});
export type CreateFolderBody = Static<typeof CreateFolderBody>;

export const UpdateFolderBody = Type.Object({
  name: Type.Optional(CreateFolderBody.properties.name),
  parent_id: Type.Optional(
    Type.Union([IdInput, Type.Null()], {
      description: 'Move under this folder of the same or another project (not for project folders)',
    }),
  ),
});
export type UpdateFolderBody = Static<typeof UpdateFolderBody>;

export const Folder = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  parent_id: Type.Union([Type.Integer(), Type.Null()], {
    description: 'The Home folder id for projects; null only for Home itself',
  }),
  is_project: Type.Boolean(),
  project_id: Type.Union([Type.Integer(), Type.Null()], {
    description: 'Id of the project the folder is or belongs to (not its folder id)',
  }),
  created_at: Timestamp,
  updated_at: Timestamp,
});

export const FolderList = Type.Array(Folder);
