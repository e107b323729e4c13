// Recipe test cases (our API beside contract 16 §6) and run requests (16 §2–§5). A test case is
// checked against its recipe's steps when saved; a run request picks test cases by exactly one
// selector and runs them in the background (runner.ts).
import { recipeFolders, recipeIdsInTree, recipeName } from '../recipes/recipes.store.ts';
import { findProject } from '../projects/projects.store.ts';
import type { ServiceContext } from '../../context.ts';
import type { Db, RecipeRow, TestCaseRow } from '../../db/types.ts';
import { AppError, invalid, type FieldErrors } from '../../errors.ts';
import { isUniqueViolation } from '../../db/dialect.ts';
import { toStored } from '../../time.ts';
import type { AuthContext } from '../../auth/credentials.ts';
import { assetsOf, findManifest } from '../export_manifests/export_manifests.store.ts';
import { findFolderInScope, folderIdsUnderProjects } from '../folders/folder-scope.store.ts';
import { findRecipe } from '../recipes/recipes.store.ts';
import { checkDoc, stepIndex } from './test-case-doc.ts';
import {
  deleteTestCase as deleteRow,
  findRunRequest,
  findTestCase,
  recentRunRequests,
  insertRunRequest,
  insertTestCase,
  listTestCases as listRows,
  newId,
  runRequestToApi,
  summaryOf,
  testCaseToApi,
  updateTestCase as updateRow,
  type RunRequestApi,
  type RunResult,
  type TestCaseApi,
  type TestCaseSummary,
} from './test_cases.store.ts';

export type Caller = Pick<AuthContext, 'clientId' | 'workspaceId' | 'environmentId' | 'allFolders' | 'folderIds'>;

/** Test cases in one run request (contract 16 §7, P). */
export const MAX_TEST_CASES_PER_RUN = 500;
/** Test cases of one recipe. */
export const MAX_TEST_CASES_PER_RECIPE = 500;
const MAX_NAME = 255;
const MAX_DESCRIPTION = 10_000;

/** Starts the background work of a run request. */
export interface TestRunKick {
  kick(): void;
}

async function visibleRecipe(db: Db, caller: Caller, id: number): Promise<RecipeRow> {
  const row = await findRecipe(db, caller.environmentId, id);
  if (!row) throw new AppError('not_found');
  if (!caller.allFolders && (await findFolderInScope(db, caller.environmentId, caller, row.folder_id)) === undefined)
    throw new AppError('not_found');
  return row;
}

async function visibleTestCase(db: Db, caller: Caller, recipeId: number, id: string): Promise<TestCaseRow> {
  await visibleRecipe(db, caller, recipeId);
  const row = await findTestCase(db, id);
  if (!row || row.recipe_id !== recipeId) throw new AppError('test_case_not_found');
  return row;
}

export async function listTestCases(
  ctx: ServiceContext,
  caller: Caller,
  recipeId: number,
): Promise<{ data: TestCaseSummary[] }> {
  await visibleRecipe(ctx.db, caller, recipeId);
  return { data: (await listRows(ctx.db, [recipeId])).map(summaryOf) };
}

export async function getTestCase(
  ctx: ServiceContext,
  caller: Caller,
  recipeId: number,
  id: string,
): Promise<{ data: TestCaseApi }> {
  return { data: testCaseToApi(await visibleTestCase(ctx.db, caller, recipeId, id)) };
}

export interface TestCaseInput {
  name?: unknown;
  description?: unknown;
  trigger_output?: unknown;
  mocks?: unknown;
  expectations?: unknown;
  allow_external?: unknown;
}

function checkInput(
  input: TestCaseInput,
  recipe: RecipeRow,
  current?: TestCaseRow,
): { name: string; description: string; body: string } {
  const errors: FieldErrors = {};
  let name = current?.name ?? '';
  if (input.name !== undefined || !current) {
    if (typeof input.name !== 'string' || input.name.trim() === '') errors.name = ["can't be blank"];
    else if (input.name.trim().length > MAX_NAME) errors.name = [`is too long (maximum is ${MAX_NAME} characters)`];
    else name = input.name.trim();
  }
  let description = current?.description ?? '';
  if (input.description !== undefined && input.description !== null) {
    if (typeof input.description !== 'string') errors.description = ['must be a string'];
    else if (input.description.length > MAX_DESCRIPTION)
      errors.description = [`is too long (maximum is ${MAX_DESCRIPTION} characters)`];
    else description = input.description;
  }
  const previous = current ? (JSON.parse(current.body) as Record<string, unknown>) : {};
  const merged: Record<string, unknown> = { ...previous };
  for (const key of ['trigger_output', 'mocks', 'expectations', 'allow_external'] as const)
    if (input[key] !== undefined) merged[key] = input[key];
  const doc = checkDoc(merged, stepIndex(recipe.code), errors);
  if (Object.keys(errors).length > 0) throw invalid(errors);
  return { name, description, body: JSON.stringify(doc) };
}

export async function createTestCase(
  ctx: ServiceContext,
  caller: Caller,
  recipeId: number,
  input: TestCaseInput,
): Promise<{ data: TestCaseApi }> {
  const recipe = await visibleRecipe(ctx.db, caller, recipeId);
  const checked = checkInput(input, recipe);
  if ((await listRows(ctx.db, [recipeId])).length >= MAX_TEST_CASES_PER_RECIPE)
    throw invalid({ test_case: [`a recipe holds at most ${MAX_TEST_CASES_PER_RECIPE} test cases`] });
  const now = toStored(ctx.clock.now());
  const row = { id: newId('citc'), recipe_id: recipeId, ...checked, created_at: now, updated_at: now };
  try {
    await insertTestCase(ctx.db, row);
  } catch (error) {
    if (isUniqueViolation(error))
      throw new AppError('name_taken', {
        errors: { name: ['has already been taken by another test case of the recipe'] },
      });
    throw error;
  }
  return { data: testCaseToApi(row) };
}

export async function updateTestCase(
  ctx: ServiceContext,
  caller: Caller,
  recipeId: number,
  id: string,
  input: TestCaseInput,
): Promise<{ data: TestCaseApi }> {
  const current = await visibleTestCase(ctx.db, caller, recipeId, id);
  const recipe = await visibleRecipe(ctx.db, caller, recipeId);
  const checked = checkInput(input, recipe, current);
  try {
    await updateRow(ctx.db, id, { ...checked, updated_at: toStored(ctx.clock.now()) });
  } catch (error) {
    if (isUniqueViolation(error))
      throw new AppError('name_taken', {
        errors: { name: ['has already been taken by another test case of the recipe'] },
      });
    throw error;
  }
  return { data: testCaseToApi((await findTestCase(ctx.db, id)) as TestCaseRow) };
}

export async function deleteTestCase(ctx: ServiceContext, caller: Caller, recipeId: number, id: string): Promise<void> {
  await visibleTestCase(ctx.db, caller, recipeId, id);
  await deleteRow(ctx.db, id);
}

export interface RunInput {
  recipe_id?: unknown;
  test_case_ids?: unknown;
  folder_id?: unknown;
  project_id?: unknown;
  manifest_id?: unknown;
}

function idOf(value: unknown, field: string): number {
  if (typeof value === 'number' && Number.isSafeInteger(value) && value > 0) return value;
  if (typeof value === 'string' && /^\d{1,15}$/.test(value.trim()) && Number(value) > 0) return Number(value);
  throw invalid({ [field]: ['must be a positive whole number'] });
}

/** The recipes a folder selector reaches: the folder and everything below it, within the caller's scope. */
async function recipesUnder(db: Db, caller: Caller, folderId: number): Promise<number[]> {
  const folder = await findFolderInScope(db, caller.environmentId, caller, folderId);
  if (!folder) throw new AppError('folder_not_found');
  const ids = await recipeIdsInTree(db, caller.environmentId, folder.id);
  const visible = caller.allFolders
    ? null
    : new Set(await folderIdsUnderProjects(db, caller.environmentId, caller.folderIds));
  return visible === null
    ? ids
    : (await recipeFolders(db, ids)).filter((r) => visible.has(r.folder_id)).map((r) => r.id);
}

/** The test cases a run request selects (exactly one selector). */
async function selectTestCases(db: Db, caller: Caller, input: RunInput): Promise<TestCaseRow[]> {
  const given = (['recipe_id', 'test_case_ids', 'folder_id', 'project_id', 'manifest_id'] as const).filter(
    (k) => input[k] !== undefined && input[k] !== null,
  );
  if (given.length !== 1)
    throw new AppError('run_request_selector', {
      errors: { selector: [given.length === 0 ? 'none was given' : `several were given: ${given.join(', ')}`] },
    });
  const selector = given[0]!;
  if (selector === 'test_case_ids') {
    const ids = input.test_case_ids;
    if (!Array.isArray(ids) || ids.length === 0 || !ids.every((i) => typeof i === 'string'))
      throw invalid({ test_case_ids: ['must be a non-empty list of test case ids'] });
    if (ids.length > MAX_TEST_CASES_PER_RUN)
      throw new AppError('too_many_test_cases', { params: { count: ids.length, max: MAX_TEST_CASES_PER_RUN } });
    const out: TestCaseRow[] = [];
    for (const id of new Set(ids as string[])) {
      const row = await findTestCase(db, id);
      if (!row) throw new AppError('test_case_not_found', { errors: { test_case_ids: [`${id} does not exist`] } });
      await visibleRecipe(db, caller, row.recipe_id).catch(() => {
        throw new AppError('test_case_not_found', { errors: { test_case_ids: [`${id} does not exist`] } });
      });
      out.push(row);
    }
    return out;
  }
  let recipeIds: number[];
  if (selector === 'recipe_id') recipeIds = [(await visibleRecipe(db, caller, idOf(input.recipe_id, 'recipe_id'))).id];
  else if (selector === 'folder_id') recipeIds = await recipesUnder(db, caller, idOf(input.folder_id, 'folder_id'));
  else if (selector === 'project_id') {
    const project = await findProject(db, caller.environmentId, idOf(input.project_id, 'project_id'));
    if (!project) throw new AppError('project_not_found');
    recipeIds = await recipesUnder(db, caller, project.folder_id).catch((error: unknown) => {
      if (error instanceof AppError && error.code === 'folder_not_found') throw new AppError('project_not_found');
      throw error;
    });
  } else {
    const manifest = await findManifest(db, caller.environmentId, idOf(input.manifest_id, 'manifest_id'));
    if (!manifest) throw new AppError('export_manifest_not_found');
    recipeIds = [];
    for (const asset of assetsOf(manifest).filter((a) => a.type === 'recipe' && a.checked && !a.unreachable)) {
      if (await findRecipe(db, caller.environmentId, asset.id)) recipeIds.push(asset.id);
    }
  }
  return listRows(db, recipeIds);
}

export async function startRunRequest(
  ctx: ServiceContext,
  runner: TestRunKick,
  caller: Caller,
  input: RunInput,
): Promise<{ data: RunRequestApi }> {
  const cases = await selectTestCases(ctx.db, caller, input);
  if (cases.length > MAX_TEST_CASES_PER_RUN)
    throw new AppError('too_many_test_cases', { params: { count: cases.length, max: MAX_TEST_CASES_PER_RUN } });
  const names = new Map<number, string>();
  for (const c of cases) {
    if (!names.has(c.recipe_id)) names.set(c.recipe_id, (await recipeName(ctx.db, c.recipe_id)) ?? '');
  }
  const results: RunResult[] = cases.map((c) => ({
    recipe: { id: c.recipe_id, name: names.get(c.recipe_id) ?? '' },
    test_case: { id: c.id, name: c.name },
    job: null,
    status: 'pending',
  }));
  const now = toStored(ctx.clock.now());
  const id = newId('cirr');
  // Nothing to run: completed at once, with a coverage of 0 (contract 16 §5).
  const empty = results.length === 0;
  await insertRunRequest(ctx.db, {
    id,
    workspace_id: caller.workspaceId,
    environment_id: caller.environmentId,
    client_id: caller.clientId,
    status: empty ? 'completed' : 'running',
    results: JSON.stringify(results),
    coverage: empty ? 0 : null,
    created_at: now,
    updated_at: now,
  });
  if (!empty) runner.kick();
  return getRunRequest(ctx, caller, id);
}

/** The latest run requests of the caller's environment (the web console lists them; the API reads one by id). */
export async function listRecentRunRequests(
  ctx: ServiceContext,
  caller: Caller,
  limit: number,
): Promise<RunRequestApi[]> {
  return (await recentRunRequests(ctx.db, caller.workspaceId, caller.environmentId, limit)).map(runRequestToApi);
}

export async function getRunRequest(ctx: ServiceContext, caller: Caller, id: string): Promise<{ data: RunRequestApi }> {
  const row = await findRunRequest(ctx.db, caller.environmentId, id);
  if (!row || row.workspace_id !== caller.workspaceId) throw new AppError('run_request_not_found');
  return { data: runRequestToApi(row) };
}
