import { Type } from 'typebox';
import { Id, IdInput, Timestamp } from '../../http/schemas.ts';
import { ASSET_TYPES } from './asset-types.ts';

export const ManifestParams = Type.Object({ id: Id });

export const FolderAssetsQuery = Type.Object({
  folder_id: Type.Optional(Id),
  include_test_cases: Type.Optional(
    Type.Unsafe<string | boolean>({
      type: ['boolean', 'string'],
      description: 'Accepted; test cases are not held yet',
    }),
  ),
  include_data: Type.Optional(
    Type.Unsafe<string | boolean>({
      type: ['boolean', 'string'],
      description: 'Sets the flag a manifest made from this list carries',
    }),
  ),
});

export const AssetType = Type.Unsafe<string>({
  type: 'string',
  enum: [...ASSET_TYPES],
  description:
    'Asset type (closed list of the vendor; the ones this server holds: recipe, connection, lookup_table, topic, api_group, api_endpoint, account_property, project_property)',
});

export const Asset = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  type: AssetType,
  version: Type.Optional(Type.Integer({ description: 'Recipes: the version exported' })),
  folder: Type.String({ description: 'Folder path relative to the manifest folder; "" is that folder' }),
  absolute_path: Type.String(),
  root_folder: Type.Boolean(),
  unreachable: Type.Boolean({ description: "Outside the caller's scope: listed, not packaged" }),
  zip_name: Type.String({ description: 'Entry path inside the zip' }),
  checked: Type.Boolean(),
  status: Type.Optional(
    Type.Unsafe<string>({
      type: 'string',
      enum: ['added', 'updated', 'no change'],
      description: 'Against the last export of the manifest',
    }),
  ),
});

export const AssetInput = Type.Object({
  id: IdInput,
  type: Type.String(),
  name: Type.Optional(Type.String()),
  version: Type.Optional(Type.Union([IdInput, Type.Null()])),
  folder: Type.Optional(Type.String()),
  absolute_path: Type.Optional(Type.String()),
  root_folder: Type.Optional(Type.Boolean()),
  unreachable: Type.Optional(Type.Boolean()),
  zip_name: Type.Optional(Type.String()),
  checked: Type.Optional(Type.Boolean()),
  status: Type.Optional(Type.String()),
});

const ManifestFields = {
  name: Type.Optional(Type.String({ description: 'Required on create' })),
  assets: Type.Optional(
    Type.Array(AssetInput, { description: 'Replaces the list; required on create unless auto_generate_assets' }),
  ),
  folder_id: Type.Optional(Type.Union([IdInput, Type.Null()], { description: 'Anchor folder (default Home)' })),
  auto_generate_assets: Type.Optional(Type.Boolean()),
  include_test_cases: Type.Optional(Type.Boolean()),
  include_data: Type.Optional(Type.Boolean({ description: 'Lookup tables with their rows' })),
  include_tags: Type.Optional(Type.Boolean()),
  auto_run: Type.Optional(Type.Boolean({ description: 'Also start an export; its id is package_id' })),
};

export const ManifestBody = Type.Object({
  export_manifest: Type.Optional(Type.Object(ManifestFields)),
  ...ManifestFields,
});

export const Manifest = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  folder_id: Type.Union([Type.Integer(), Type.Null()]),
  last_exported_at: Type.Union([Timestamp, Type.Null()]),
  created_at: Timestamp,
  updated_at: Timestamp,
  deleted_at: Type.Union([Timestamp, Type.Null()]),
  project_path: Type.String(),
  status: Type.Unsafe<string>({ type: 'string', enum: ['working', 'archived'] }),
  include_data: Type.Boolean(),
  include_test_cases: Type.Boolean(),
  include_tags: Type.Boolean(),
  assets: Type.Array(Asset),
  package_id: Type.Optional(Type.Integer({ description: 'The export auto_run started' })),
});

export const ManifestResult = Type.Object({ result: Manifest });
export const FolderAssetsResult = Type.Object({ result: Type.Object({ assets: Type.Array(Asset) }) });
export const DeleteResult = Type.Object({ result: Type.Object({ success: Type.Boolean() }) });
