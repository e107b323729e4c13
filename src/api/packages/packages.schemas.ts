import { Type } from 'typebox';
import { Id } from '../../http/schemas.ts';

export const PackageParams = Type.Object({ id: Id });
export const ExportParams = Type.Object({ manifest_id: Id });
export const ImportParams = Type.Object({ folder_id: Id });

export const ImportQuery = Type.Object({
  restart_recipes: Type.Optional(
    Type.Unsafe<string | boolean>({
      type: ['boolean', 'string'],
      description:
        'Allow updating running recipes: stopped, updated, started again. Without it, an import that changes a running recipe fails',
    }),
  ),
  include_tags: Type.Optional(Type.Unsafe<string | boolean>({ type: ['boolean', 'string'] })),
  folder_id_for_home_assets: Type.Optional(
    Type.Unsafe<string | number>({
      type: ['integer', 'string'],
      description: 'Folder that receives the assets the package holds for the Home folder (root_folder: true)',
    }),
  ),
});

export const Package = Type.Object({
  id: Type.Integer(),
  operation_type: Type.Unsafe<string>({ type: 'string', enum: ['export', 'import'] }),
  status: Type.Unsafe<string>({ type: 'string', enum: ['in_progress', 'completed', 'failed'] }),
  export_manifest_id: Type.Optional(Type.Union([Type.Integer(), Type.Null()])),
  download_url: Type.Union([Type.String(), Type.Null()]),
  error: Type.Optional(Type.String()),
  error_parts: Type.Optional(Type.Array(Type.String())),
  recipe_status: Type.Optional(
    Type.Array(
      Type.Object({
        id: Type.Integer(),
        import_result: Type.Unsafe<string>({
          type: 'string',
          enum: ['no_update_or_updated_without_restart', 'restarted', 'stopped', 'restart_failed'],
        }),
      }),
    ),
  ),
  warnings: Type.Optional(
    Type.Array(Type.String(), {
      description: 'Imports: what was imported differently from its file, and why (`<path>: <why>`)',
    }),
  ),
  files: Type.Optional(
    Type.Array(
      Type.Object({
        path: Type.String(),
        type: Type.Union([Type.String(), Type.Null()]),
        result: Type.Unsafe<string>({ type: 'string', enum: ['imported', 'kept', 'skipped', 'failed'] }),
        change: Type.Optional(
          Type.Unsafe<string>({
            type: 'string',
            enum: ['created', 'updated', 'unchanged'],
            description: 'An imported file: its asset was created, updated, or already as the file says',
          }),
        ),
        reason: Type.Optional(Type.String()),
      }),
      { description: 'Imports, once applied: each file of the zip, what became of it and why' },
    ),
  ),
});
