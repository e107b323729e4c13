// Projects (contract 05 §3.7): list, update, delete. Paths take the project id, never the folder id.
import type { ServiceContext } from '../../context.ts';
import type { Db, ProjectRow } from '../../db/types.ts';
import { AppError, invalid, type FieldErrors } from '../../errors.ts';
import { toStored } from '../../time.ts';
import { projectInScope } from '../../auth/credentials.ts';
import { removeFolderFromScopes } from '../developer_api_clients/developer_api_clients.store.ts';
import { checkFolderName, uniqueName, type Caller } from '../folders/folders.service.ts';
import { deleteFolder, folderNameKey, updateFolder } from '../folders/folders.store.ts';
import { hasRunningRecipeUnder, recipeIdsUnder } from '../recipes/recipes.store.ts';
import {
  findProject,
  listProjects as listProjectRows,
  projectToApi,
  updateProject as updateProjectRow,
  type ProjectApi,
} from './projects.store.ts';

export const MAX_PROJECT_DESCRIPTION = 1000;
/** The widths of the columns (migration 0062) that hold the vendor's colour and icon names. */
export const MAX_PROJECT_COLOR = 40;
export const MAX_PROJECT_ICON = 100;

/** A colour or icon as given: a name of one line within `max` characters; null or "" clears it. */
function lookValue(
  value: string | null | undefined,
  field: 'color' | 'icon',
  max: number,
  errors: FieldErrors,
): string | null | undefined {
  if (value === undefined || value === null) return value;
  const trimmed = value.trim();
  if (trimmed === '') return null;
  if ([...trimmed].length > max) errors[field] = [`is too long (maximum is ${max} characters)`];
  else if (/[\p{Cc}\p{Cs}]/u.test(trimmed))
    errors[field] = ['must not contain control characters or unpaired surrogates'];
  return trimmed;
}

export async function listProjects(
  ctx: ServiceContext,
  caller: Caller,
  page: { offset: number; perPage: number },
): Promise<ProjectApi[]> {
  const rows = await listProjectRows(ctx.db, caller.environmentId, caller.allFolders ? null : caller.folderIds, page);
  return rows.map(projectToApi);
}

/** Renaming a project renames its folder (same sibling-name rule as any folder). */
export async function updateProject(
  ctx: ServiceContext,
  caller: Caller,
  id: number,
  input: { name?: string; description?: string; color?: string | null; icon?: string | null },
): Promise<ProjectApi> {
  if (
    input.name === undefined &&
    input.description === undefined &&
    input.color === undefined &&
    input.icon === undefined
  ) {
    throw new AppError('nothing_to_update', {
      errors: { body: ['must contain at least one of name, description, color, icon'] },
    });
  }
  const errors: FieldErrors = {};
  const name = input.name === undefined ? undefined : checkFolderName(input.name, errors);
  if (input.description !== undefined && [...input.description].length > MAX_PROJECT_DESCRIPTION) {
    errors.description = [`is too long (maximum is ${MAX_PROJECT_DESCRIPTION} characters)`];
  } else if (input.description !== undefined && /[\0\p{Cs}]/u.test(input.description)) {
    errors.description = ['must not contain NUL characters or unpaired surrogates'];
  }
  const color = lookValue(input.color, 'color', MAX_PROJECT_COLOR, errors);
  const icon = lookValue(input.icon, 'icon', MAX_PROJECT_ICON, errors);
  if (Object.keys(errors).length > 0) throw invalid(errors);
  const now = toStored(ctx.clock.now());

  return ctx.db.transaction().execute(async (trx) => {
    const project = await projectOr404(trx, caller, id);
    if (name !== undefined) {
      await uniqueName(() =>
        updateFolder(trx, project.folder_id, { name, name_key: folderNameKey(name), updated_at: now }),
      );
    }
    await updateProjectRow(trx, project.id, {
      ...(name !== undefined ? { name } : {}),
      ...(input.description !== undefined ? { description: input.description } : {}),
      ...(color !== undefined ? { color } : {}),
      ...(icon !== undefined ? { icon } : {}),
      updated_at: now,
    });
    return projectToApi(await projectOr404(trx, caller, id));
  });
}

/** Deletes the project folder; sub-folders, the project record and its properties follow by cascade. */
export async function deleteProject(ctx: ServiceContext, caller: Caller, id: number): Promise<void> {
  const recipeIds = await ctx.db.transaction().execute(async (trx) => {
    const project = await projectOr404(trx, caller, id);
    // Stopped recipes go with the project (cascade); a running one must be stopped first (05 §3).
    if (await hasRunningRecipeUnder(trx, project.folder_id)) throw new AppError('project_has_running_recipes');
    const deleted = await recipeIdsUnder(trx, project.folder_id);
    await deleteFolder(trx, project.folder_id);
    await removeFolderFromScopes(trx, caller.workspaceId, project.folder_id);
    return deleted;
  });
  ctx.notifier.publish('developer_api_clients.changed', { workspaceId: caller.workspaceId });
  // Its lookup tables went with it (cascade).
  ctx.notifier.publish('lookup_tables.changed', { environmentId: caller.environmentId });
  if (recipeIds.length > 0) ctx.notifier.publish('recipes.deleted', { recipeIds });
}

/** A project of the caller's environment and scope, or the 404 that hides it. */
export async function projectOr404(db: Db, caller: Caller, id: number): Promise<ProjectRow> {
  const project = await findProject(db, caller.environmentId, id);
  if (!project || !projectInScope(caller, project.folder_id)) throw new AppError('not_found');
  return project;
}
