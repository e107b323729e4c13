// Validation for PUT /api/recipes/:id/start: the compiler's code errors, config slots without a
// usable connection, recipe-function calls that name no recipe function of the environment, and
// trigger inputs, which are read once when the recipe starts and so must be literal.
import { tableRefOf } from './connectors/workato_db_table.ts';
import { appRefOf } from './connectors/workato_workflow_task.ts';
import { resolveApp } from '../api/workflow_apps/workflow_apps.service.ts';
import { findTableByRef } from '../api/data_tables/data_tables.service.ts';
import type { Db, RecipeRow } from '../db/types.ts';
import type { CompiledStep } from './compile.ts';
import type { ErrorDetail, StepErrors } from '../recipe/document.ts';
import { connectionSlot } from './connection-slots.ts';
import { resolveTopicId } from './connectors/workato_pub_sub.ts';
import { StepError } from './connectors/types.ts';
import { Budget } from '../recipe/formula/env.ts';
import { toPlain, isHash, newHash, type Hash, type Value } from '../recipe/formula/values.ts';
import { evaluateInput } from './inputs.ts';
import type { RecipeCache } from './recipe-cache.ts';
import { CALLABLE_PROVIDERS, isRecipeCall, resolveFlow } from './recipe-calls.ts';
import type { FormulaSettings } from './settings.ts';

export interface Validation {
  codeErrors: StepErrors;
  configErrors: StepErrors;
}

export interface ValidationDeps {
  db: Db;
  cache: RecipeCache;
  formulas: FormulaSettings;
}

export async function validateRecipe(deps: ValidationDeps, row: RecipeRow): Promise<Validation> {
  await deps.cache.prepare(row);
  const { recipe, codeErrors } = deps.cache.compiledFor(row);
  if (!recipe) return { codeErrors, configErrors: [] };
  const configErrors: StepErrors = [];
  const stepsByProvider = new Map<string, CompiledStep[]>();
  for (const step of [recipe.trigger, ...recipe.steps.values()]) {
    if (!step.provider || (step.keyword !== 'trigger' && step.keyword !== 'action')) continue;
    const list = stepsByProvider.get(step.provider) ?? [];
    if (!list.includes(step)) list.push(step);
    stepsByProvider.set(step.provider, list);
  }
  const extra: StepErrors = [];
  for (const [provider, steps] of stepsByProvider) {
    const first = Math.min(...steps.map((s) => s.number));
    const slot = await connectionSlot(deps.db, row, recipe.config, provider);
    const entry = recipe.config.find((c) => c.provider === provider);
    const detail: ErrorDetail = [
      'account_id',
      typeof entry?.account_id === 'number' ? entry.account_id : null,
      'unconnected',
      { key: 'recipe.validation.config_unconnected' },
    ];
    if (slot === 'missing') configErrors.push([first, [detail]]);
    // A connector whose steps all reach its service through a connection (SaaS, custom) needs one.
    else if (slot === null && steps.some((s) => s.connector?.needsConnection)) configErrors.push([first, [detail]]);
    else if (slot === null && (provider === 'rest' || provider === 'http')) {
      // Without a connection, an HTTP step needs an absolute URL.
      const relative = steps.some((s) => {
        const url = literalAt(s, ['request', 'url']);
        return (
          typeof url === 'string' &&
          url !== '' &&
          !/^https?:\/\//i.test(url) &&
          !url.includes('#{') &&
          !url.startsWith('=')
        );
      });
      if (relative) configErrors.push([first, [detail]]);
    }
  }
  // Calls of recipe functions named literally must name a recipe function of this environment.
  for (const step of recipe.steps.values()) {
    if (!isRecipeCall(step.provider, step.name) || step.input.k !== 'object') continue;
    const entry = step.input.entries.find(([key]) => key === 'flow_id');
    if (!entry) continue;
    let flow: Value;
    try {
      flow = evaluateInput(entry[1], literalEnv(deps.formulas));
    } catch {
      continue;
    }
    const target = await resolveFlow(deps.db, row, flow);
    const label =
      isHash(flow) && typeof flow.name === 'string' ? flow.name : JSON.stringify(toPlain(flow)).slice(0, 100);
    if (!target)
      extra.push([step.number, [['Recipe', label, 'does not name a recipe of this environment', 'flow_id']]]);
    else if (!CALLABLE_PROVIDERS.has(target.trigger_application ?? ''))
      extra.push([
        step.number,
        [
          [
            'Recipe',
            label,
            'is not a recipe function (its trigger is not workato_recipe_function/execute nor workato_service/receive_request)',
            'flow_id',
          ],
        ],
      ]);
  }
  // Trigger inputs are read once when the recipe starts: they must be literal.
  const trigger = recipe.trigger;
  if (trigger.trigger) {
    try {
      const input = evaluateTriggerInput(deps.formulas, trigger);
      if (
        trigger.trigger.kind === 'topic' &&
        input.topic_id !== undefined &&
        input.topic_id !== null &&
        input.topic_id !== ''
      ) {
        const topicId = await resolveTopicId(deps.db, row.environment_id, input.topic_id);
        if (topicId === undefined)
          extra.push([
            trigger.number,
            [
              [
                'Topic',
                JSON.stringify(toPlain(input.topic_id)).slice(0, 100),
                'does not name an event topic of this environment',
                'topic_id',
              ],
            ],
          ]);
      }
      if (trigger.trigger.kind === 'data_table' && trigger.provider === 'workato_workflow_task') {
        if (!(await resolveApp(deps.db, row.environment_id, toPlain(appRefOf(input)))))
          extra.push([
            trigger.number,
            [
              [
                'Workflow app',
                JSON.stringify(toPlain(appRefOf(input))).slice(0, 100),
                'does not name a Workflow app of this environment',
                'app_id',
              ],
            ],
          ]);
      } else if (
        trigger.trigger.kind === 'data_table' ||
        (trigger.trigger.kind === 'poll' && trigger.provider === 'workato_db_table')
      ) {
        const ref = tableRefOf(input);
        const scope = {
          workspaceId: row.workspace_id,
          environmentId: row.environment_id,
          allFolders: true,
          folderIds: [],
        };
        const table = ref === null ? undefined : await findTableByRef({ db: deps.db }, scope, ref);
        if (ref !== null && !table)
          extra.push([
            trigger.number,
            [['Table', String(ref).slice(0, 100), 'does not name a data table of this environment', 'table_id']],
          ]);
      }
    } catch (error) {
      extra.push([
        trigger.number,
        [['input', null, `trigger input must not use datapills or formulas that fail: ${(error as Error).message}`]],
      ]);
    }
  }
  return { codeErrors: [...codeErrors, ...extra], configErrors };
}

function literalEnv(formulas: FormulaSettings) {
  return {
    bindings: new Map<string, Value>(),
    resolvePill: (): Value => {
      throw new StepError('Bad request', 'datapills are not available here');
    },
    lookup: () => null,
    now: formulas.now,
    timeZone: formulas.timeZone,
    budget: new Budget(formulas.formulaLimits),
  };
}

/** The trigger's input, evaluated without datapills (as when the recipe starts). */
export function evaluateTriggerInput(formulas: FormulaSettings, trigger: CompiledStep): Hash {
  const env = {
    bindings: new Map<string, Value>(),
    resolvePill: () => {
      throw new StepError('Bad request', 'datapills are not available in a trigger');
    },
    lookup: () => null,
    now: formulas.now,
    timeZone: formulas.timeZone,
    budget: new Budget(formulas.formulaLimits),
  };
  const value = evaluateInput(trigger.input, env);
  return isHash(value) ? value : newHash();
}

function literalAt(step: CompiledStep, path: string[]): unknown {
  let c = step.input;
  for (const key of path) {
    if (c.k !== 'object') return undefined;
    const entry = c.entries.find(([k]) => k === key);
    if (!entry) return undefined;
    c = entry[1];
  }
  if (c.k === 'literal') return c.v;
  if (c.k === 'template') return '#{';
  if (c.k === 'formula') return '=';
  return undefined;
}
