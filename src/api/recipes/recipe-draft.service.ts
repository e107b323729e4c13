// A draft of a recipe checked as a start would check it, without saving it (the console's recipe
// editor shows these errors on the steps while a person edits).
import { createHash } from 'node:crypto';
import type { ServiceContext } from '../../context.ts';
import type { RecipeRow } from '../../db/types.ts';
import type { StepErrors } from '../../recipe/document.ts';
import { findVisible, type Caller, type RecipeRuntime } from './recipes.service.ts';

/**
 * The errors a start would give for a draft (the recipe editor, while editing): the draft is
 * checked as the saved recipe would be, in its folder, without being saved. `id` null: a new recipe.
 */
export async function checkRecipeDraft(
  ctx: ServiceContext,
  engine: RecipeRuntime,
  caller: Caller,
  draft: { id: number | null; code: string; config: string },
): Promise<StepErrors> {
  const current = draft.id === null ? undefined : await findVisible(ctx.db, caller, draft.id);
  const digest = createHash('sha256').update(draft.code).update('\0').update(draft.config).digest('hex');
  const row: RecipeRow = {
    ...(current ?? newDraftRow(caller)),
    // Compiled under an id no recipe has and a stamp of this draft, so no recipe's compiled form is reused or replaced.
    id: -1,
    code: draft.code,
    config: draft.config,
    running: 0,
    updated_at: `draft:${digest}`,
  };
  const validation = await engine.validate(row);
  return [...validation.codeErrors, ...validation.configErrors];
}

function newDraftRow(caller: Caller): RecipeRow {
  return {
    id: -1,
    workspace_id: caller.workspaceId,
    environment_id: caller.environmentId,
    folder_id: 0,
    name: '',
    description: '',
    code: '',
    config: '[]',
    trigger_application: null,
    action_applications: '[]',
    webhook_event: null,
    concurrency: 1,
    running: 0,
    version_no: 0,
    copy_count: 0,
    job_succeeded_count: 0,
    job_failed_count: 0,
    lifetime_task_count: 0,
    last_run_at: null,
    stopped_at: null,
    stop_cause: null,
    trigger_closure: null,
    webhook_key: '',
    author_name: '',
    author_email: '',
    created_at: '',
    updated_at: '',
  } as RecipeRow;
}
