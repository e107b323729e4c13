// Folders and projects as the folders API sees them (contract 05 §3.1-3.6). A folder created
// without a parent, or under Home, is a project: a folder plus a project record with its own id.
import type { ServiceContext } from '../../context.ts';
import { isUniqueViolation } from '../../db/dialect.ts';
import type { Db, FolderRow, FolderUpdate } from '../../db/types.ts';
import { AppError, assertFound, invalid, type FieldErrors, type PlainErrorCode } from '../../errors.ts';
import { toStored } from '../../time.ts';
import type { AuthContext } from '../../auth/credentials.ts';
import { updateProject } from '../projects/projects.store.ts';
import { hasRunningRecipeUnder, recipeIdsUnder } from '../recipes/recipes.store.ts';
import {
  deleteFolder as deleteFolderRow,
  findFolder,
  findHomeFolder,
  folderNameKey,
  folderToApi,
  insertFolder,
  insertProject,
  isWithin,
  listFolders as listFolderRows,
  setProjectOfTree,
  updateFolder as updateFolderRow,
  type FolderApi,
  type ScopedFolderRow,
} from './folders.store.ts';

/** Who is asking: the environment of the token and its project scope (contract 02 §3). */
export type Caller = Pick<AuthContext, 'workspaceId' | 'environmentId' | 'allFolders' | 'folderIds'>;

export const MAX_FOLDER_NAME = 255;

export interface FolderListInput {
  parentId?: number;
  nested: boolean;
  page: { offset: number; perPage: number };
}

export async function listFolders(ctx: ServiceContext, caller: Caller, input: FolderListInput): Promise<FolderApi[]> {
  const home = assertFound(await findHomeFolder(ctx.db, caller.environmentId));
  const parentId = input.parentId ?? home.id;
  if (parentId !== home.id)
    visibleOr404(caller, await findFolder(ctx.db, caller.environmentId, parentId), 'parent_folder_not_found');
  const rows = await listFolderRows(ctx.db, {
    environmentId: caller.environmentId,
    parentId,
    nested: input.nested,
    projectFolderIds: caller.allFolders ? null : caller.folderIds,
    page: input.page,
  });
  return rows.map(folderToApi);
}

/** The id of the environment's Home folder (where a connection or recipe goes when none is named). */
export async function homeFolderId(ctx: ServiceContext, caller: Caller): Promise<number> {
  return assertFound(await findHomeFolder(ctx.db, caller.environmentId)).id;
}

export async function getFolder(ctx: ServiceContext, caller: Caller, id: number): Promise<FolderApi> {
  return folderToApi(visibleOr404(caller, await findFolder(ctx.db, caller.environmentId, id)));
}

export async function createFolder(
  ctx: ServiceContext,
  caller: Caller,
  input: { name: string; parentId: number | null },
): Promise<FolderApi> {
  const errors: FieldErrors = {};
  const name = checkFolderName(input.name, errors);
  if (Object.keys(errors).length > 0) throw invalid(errors);
  const now = toStored(ctx.clock.now());

  return ctx.db.transaction().execute(async (trx) => {
    const home = assertFound(await findHomeFolder(trx, caller.environmentId));
    if (input.parentId === null || input.parentId === home.id) {
      if (!caller.allFolders) {
        throw new AppError('project_creation_needs_all_folders');
      }
      const { folder } = await uniqueName(() =>
        insertProject(trx, {
          workspaceId: caller.workspaceId,
          environmentId: caller.environmentId,
          homeFolderId: home.id,
          name,
          now,
        }),
      );
      return folderToApi(folder);
    }
    const parent = visibleOr404(
      caller,
      await findFolder(trx, caller.environmentId, input.parentId),
      'parent_folder_not_found',
    );
    const folder = await uniqueName(() =>
      insertFolder(trx, {
        workspace_id: caller.workspaceId,
        environment_id: caller.environmentId,
        parent_id: parent.id,
        name,
        is_project: 0,
        project_id: parent.project_id,
        created_at: now,
        updated_at: now,
      }),
    );
    return folderToApi(folder);
  });
}

/** `parentId`: undefined keeps the parent; null asks for the top level (only a project is there). */
export async function updateFolder(
  ctx: ServiceContext,
  caller: Caller,
  id: number,
  input: { name?: string; parentId?: number | null },
): Promise<FolderApi> {
  if (input.name === undefined && input.parentId === undefined) {
    throw new AppError('nothing_to_update', { errors: { body: ['must contain at least one of name, parent_id'] } });
  }
  const errors: FieldErrors = {};
  const name = input.name === undefined ? undefined : checkFolderName(input.name, errors);
  if (Object.keys(errors).length > 0) throw invalid(errors);
  const now = toStored(ctx.clock.now());

  return ctx.db.transaction().execute(async (trx) => {
    const folder = visibleOr404(caller, await findFolder(trx, caller.environmentId, id));
    if (folder.parent_id === null) throw new AppError('home_folder_immutable');
    const changes: FolderUpdate = { updated_at: now };
    let movedToProject: number | null | undefined;
    if (input.parentId !== undefined) {
      const target = await moveTarget(trx, caller, folder, input.parentId);
      if (target !== undefined && target.id !== folder.parent_id) {
        changes.parent_id = target.id;
        if (target.project_id !== folder.project_id) movedToProject = target.project_id;
      }
    }
    if (name !== undefined) {
      changes.name = name;
      changes.name_key = folderNameKey(name);
    }
    await uniqueName(() => updateFolderRow(trx, folder.id, changes));
    if (movedToProject !== undefined) await setProjectOfTree(trx, folder.id, movedToProject);
    if (name !== undefined && folder.is_project === 1 && folder.project_id !== null) {
      await updateProject(trx, folder.project_id, { name, updated_at: now });
    }
    return folderToApi(assertFound(await findFolder(trx, caller.environmentId, folder.id)));
  });
}

export async function deleteFolder(ctx: ServiceContext, caller: Caller, id: number): Promise<void> {
  const recipeIds = await ctx.db.transaction().execute(async (trx) => {
    const folder = visibleOr404(caller, await findFolder(trx, caller.environmentId, id));
    if (folder.parent_id === null) throw new AppError('home_folder_undeletable');
    if (folder.is_project === 1) throw new AppError('folder_is_project');
    // Stopped recipes go with their folder (cascade); a running one must be stopped first.
    if (await hasRunningRecipeUnder(trx, folder.id)) throw new AppError('folder_has_running_recipes');
    const deleted = await recipeIdsUnder(trx, folder.id);
    await deleteFolderRow(trx, folder.id);
    return deleted;
  });
  if (recipeIds.length > 0) ctx.notifier.publish('recipes.deleted', { recipeIds });
}

/** Where a PUT may move a folder: undefined when it stays where it is. */
async function moveTarget(
  db: Db,
  caller: Caller,
  folder: ScopedFolderRow,
  parentId: number | null,
): Promise<FolderRow | undefined> {
  const home = assertFound(await findHomeFolder(db, caller.environmentId));
  const toTopLevel = parentId === null || parentId === home.id;
  if (folder.is_project === 1) {
    if (toTopLevel) return undefined;
    throw new AppError('project_cannot_move_into_folder', {
      errors: { parent_id: ['a project cannot be moved into a folder'] },
    });
  }
  if (toTopLevel)
    throw new AppError('folder_cannot_move_to_top_level', {
      errors: { parent_id: ['a folder cannot be moved to the top level; create a project instead'] },
    });
  if (parentId === folder.id)
    throw new AppError('folder_cannot_move_into_itself', {
      errors: { parent_id: ['a folder cannot be moved into itself'] },
    });
  const target = visibleOr404(caller, await findFolder(db, caller.environmentId, parentId), 'parent_folder_not_found');
  if (await isWithin(db, folder.id, target.id))
    throw new AppError('folder_cannot_move_into_descendant', {
      errors: { parent_id: ['a folder cannot be moved into one of its own sub-folders'] },
    });
  return target;
}

/** Home is visible to every caller; any other folder only when its project is in the caller's scope. */
export function canSee(caller: Pick<Caller, 'allFolders' | 'folderIds'>, folder: ScopedFolderRow): boolean {
  if (folder.parent_id === null || caller.allFolders) return true;
  return folder.project_folder_id !== null && caller.folderIds.includes(folder.project_folder_id);
}

function visibleOr404(
  caller: Caller,
  folder: ScopedFolderRow | undefined,
  code: PlainErrorCode = 'not_found',
): ScopedFolderRow {
  if (folder === undefined || !canSee(caller, folder)) throw new AppError(code);
  return folder;
}

/** Trimmed; not blank, at most 255 characters, no control characters. */
export function checkFolderName(name: string, errors: FieldErrors, field = 'name'): string {
  const trimmed = name.trim();
  if (trimmed === '') errors[field] = ["can't be blank"];
  else if ([...trimmed].length > MAX_FOLDER_NAME)
    errors[field] = [`is too long (maximum is ${MAX_FOLDER_NAME} characters)`];
  else if (/[\p{Cc}\p{Cs}]/u.test(trimmed))
    errors[field] = ['must not contain control characters or unpaired surrogates'];
  return trimmed;
}

/** Sibling names are unique by database constraint; a clash is the contract's 422. */
export async function uniqueName<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (isUniqueViolation(error)) throw new AppError('name_taken', { errors: { name: ['has already been taken'] } });
    throw error;
  }
}
