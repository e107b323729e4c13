// Skills (contract 23 §2): a skill wraps a recipe whose trigger is a skill trigger
// (workato_skill, or the older workato_genie start_workflow). One skill per recipe: creating it
// again answers the same skill.
import { randomBytes } from 'node:crypto';
import type { ServiceContext } from '../../context.ts';
import { AppError, assertFound, invalid } from '../../errors.ts';
import { toStored } from '../../time.ts';
import { projectInScope, type AuthContext } from '../../auth/credentials.ts';
import { findRecipeInEnvironment } from '../recipes/recipes.store.ts';
import { findFolder } from '../folders/folders.store.ts';
import { recipeTool } from '../../recipe/tool-schema.ts';
import { isUniqueViolation } from '../../db/dialect.ts';
import {
  findSkill,
  findSkillOfRecipe,
  insertSkill,
  listSkills as listSkillRows,
  skillToApi,
  type SkillApi,
  type SkillWithRecipe,
} from './agentic.store.ts';

function toApi(row: SkillWithRecipe): SkillApi {
  const tool = recipeTool({ trigger_application: row.recipe_trigger_application, code: row.recipe_code });
  const applications = [row.recipe_trigger_application].filter((a): a is string => a !== null);
  return skillToApi(row, tool?.description || null, applications);
}

async function inScope(ctx: ServiceContext, auth: AuthContext, folderId: number): Promise<boolean> {
  if (auth.allFolders) return true;
  const folder = await findFolder(ctx.db, auth.environmentId, folderId);
  return folder?.project_folder_id != null && projectInScope(auth, folder.project_folder_id);
}

export async function listSkills(ctx: ServiceContext, auth: AuthContext, page: { offset: number; perPage: number }) {
  const rows = await listSkillRows(ctx.db, auth, page);
  const out: SkillApi[] = [];
  for (const row of rows) if (await inScope(ctx, auth, row.recipe_folder_id)) out.push(toApi(row));
  return out;
}

export async function getSkill(ctx: ServiceContext, auth: AuthContext, handle: string): Promise<SkillApi> {
  const row = assertFound(await findSkill(ctx.db, auth, handle));
  if (!(await inScope(ctx, auth, row.recipe_folder_id))) throw new AppError('not_found');
  return toApi(row);
}

export async function createSkill(ctx: ServiceContext, auth: AuthContext, recipeId: number): Promise<SkillApi> {
  const recipe = await findRecipeInEnvironment(ctx.db, auth.environmentId, recipeId);
  if (!recipe || !(await inScope(ctx, auth, recipe.folder_id)))
    throw invalid({ recipe_id: ['is not a recipe of this environment'] });
  if (recipeTool(recipe)?.kind !== 'skill')
    throw new AppError('skill_recipe_not_skill', {
      params: { id: recipeId, trigger: recipe.trigger_application ?? 'none' },
    });
  const existing = await findSkillOfRecipe(ctx.db, recipe.id);
  if (existing) return toApi(existing);
  try {
    await insertSkill(ctx.db, {
      handle: `skill-${randomBytes(9).toString('base64url')}`,
      workspace_id: auth.workspaceId,
      environment_id: auth.environmentId,
      recipe_id: recipe.id,
      now: toStored(ctx.clock.now()),
    });
  } catch (error) {
    // Two creates of the same skill at once: the second answers the first's.
    if (!isUniqueViolation(error)) throw error;
  }
  return toApi(assertFound(await findSkillOfRecipe(ctx.db, recipe.id)));
}
