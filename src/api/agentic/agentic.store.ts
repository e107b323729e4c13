// Skills: a recipe an agent may call, named by a string handle (contract 23 §2).
import type { AgenticSkillRow, Db } from '../../db/types.ts';
import { toApiTimestamp } from '../../time.ts';

export interface SkillScope {
  workspaceId: number;
  environmentId: number;
}

export type SkillWithRecipe = AgenticSkillRow & {
  recipe_name: string;
  recipe_description: string;
  recipe_code: string;
  recipe_running: number;
  recipe_folder_id: number;
  recipe_trigger_application: string | null;
  project_id: number | null;
};

function selectSkills(db: Db) {
  return db
    .selectFrom('agentic_skills as s')
    .innerJoin('recipes as r', 'r.id', 's.recipe_id')
    .innerJoin('folders as f', 'f.id', 'r.folder_id')
    .selectAll('s')
    .select([
      'r.name as recipe_name',
      'r.description as recipe_description',
      'r.code as recipe_code',
      'r.running as recipe_running',
      'r.folder_id as recipe_folder_id',
      'r.trigger_application as recipe_trigger_application',
      'f.project_id as project_id',
    ]);
}

export async function insertSkill(
  db: Db,
  values: { handle: string; workspace_id: number; environment_id: number; recipe_id: number; now: string },
): Promise<void> {
  await db
    .insertInto('agentic_skills')
    .values({
      handle: values.handle,
      workspace_id: values.workspace_id,
      environment_id: values.environment_id,
      recipe_id: values.recipe_id,
      created_at: values.now,
      updated_at: values.now,
    })
    .execute();
}

export async function findSkill(db: Db, scope: SkillScope, handle: string): Promise<SkillWithRecipe | undefined> {
  return selectSkills(db)
    .where('s.workspace_id', '=', scope.workspaceId)
    .where('s.environment_id', '=', scope.environmentId)
    .where('s.handle', '=', handle)
    .executeTakeFirst();
}

export async function findSkillOfRecipe(db: Db, recipeId: number): Promise<SkillWithRecipe | undefined> {
  return selectSkills(db).where('s.recipe_id', '=', recipeId).executeTakeFirst();
}

/** Skills of the environment, oldest first; limited to these project folders when given. */
export async function listSkills(
  db: Db,
  scope: SkillScope,
  page: { offset: number; perPage: number },
): Promise<SkillWithRecipe[]> {
  return selectSkills(db)
    .where('s.workspace_id', '=', scope.workspaceId)
    .where('s.environment_id', '=', scope.environmentId)
    .orderBy('s.id')
    .offset(page.offset)
    .limit(page.perPage)
    .execute();
}

export interface SkillApi {
  id: string;
  name: string;
  description: string | null;
  recipe_id: number;
  provider_id: number;
  provider_type: string;
  folder_id: number;
  project_id: number;
  running: boolean;
  genies_count: number;
  trigger_description: string | null;
  applications: string[];
  created_at: string;
  updated_at: string;
}

export function skillToApi(row: SkillWithRecipe, triggerDescription: string | null, applications: string[]): SkillApi {
  return {
    id: row.handle,
    name: row.recipe_name,
    description: row.recipe_description === '' ? null : row.recipe_description,
    recipe_id: row.recipe_id,
    provider_id: row.recipe_id,
    provider_type: 'Recipe',
    folder_id: row.recipe_folder_id,
    project_id: row.project_id ?? 0,
    running: row.recipe_running === 1,
    genies_count: 0,
    trigger_description: triggerDescription,
    applications,
    created_at: toApiTimestamp(row.created_at),
    updated_at: toApiTimestamp(row.updated_at),
  };
}
