// workato_genie: Genies, agents over a model connection. `assign_task_to_genie` runs the agent
// loop (src/engine/agents/agent-loop.ts): the Genie's instructions, the conversation so far and
// the task go to the model with the Genie's skills as tools; each tool call is a job of the skill's
// recipe; the loop ends when the model answers in text, within `max_turns` and `max_tokens`.
// The older skill operations of this provider (`start_workflow`, `workflow_return_result`) are
// those of workato_skill.
import { StepError, type ActionDef, type Connector, type StepContext } from './types.ts';
import { returnResult, startWorkflow } from './workato_skill.ts';
import { fromPlain, hashGet, isHash, newHash, toPlain, type Value } from '../../recipe/formula/values.ts';
import { AgentError, runAgent, type AgentTool } from '../agents/agent-loop.ts';
import { modelFor } from '../agents/model.ts';
import { argumentProblems, recipeTool, uniqueNames } from '../../recipe/tool-schema.ts';
import { findSkill } from '../../api/agentic/agentic.store.ts';
import { findRecipeInEnvironment } from '../../api/recipes/recipes.store.ts';
import type { RecipeRow } from '../../db/types.ts';

export const GENIE_LIMITS = {
  defaultTurns: 10,
  maxTurns: 50,
  defaultTokens: 20_000,
  maxTokens: 1_000_000,
  maxSkills: 128,
  maxConversation: 200,
};

/** An integer input within bounds, or its default when blank. */
function bounded(input: Value, name: string, fallback: number, max: number): number {
  const raw = hashGet(isHash(input) ? input : newHash(), name);
  if (raw === null || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > max)
    throw new StepError('Bad request', `${name} must be an integer from 1 to ${max}`);
  return n;
}

function skillRefs(value: Value): Value[] {
  if (value === null || value === '') return [];
  if (typeof value === 'string')
    return value
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s !== '');
  if (Array.isArray(value)) return value;
  return [value];
}

/** The skill recipes a Genie may call: skill handles, recipe ids, or {id} / {recipe_id} hashes. */
async function skillRecipes(sc: StepContext, refs: Value[]): Promise<Array<{ row: RecipeRow; name: string }>> {
  if (refs.length > GENIE_LIMITS.maxSkills)
    throw new StepError('Bad request', `a Genie has at most ${GENIE_LIMITS.maxSkills} skills`);
  const scope = { workspaceId: sc.recipe.workspaceId, environmentId: sc.recipe.environmentId };
  const out: Array<{ row: RecipeRow; name: string }> = [];
  for (const ref of refs) {
    let id: Value = ref;
    if (isHash(ref)) id = hashGet(ref, 'id') ?? hashGet(ref, 'recipe_id');
    let row: RecipeRow | undefined;
    if (typeof id === 'number' || (typeof id === 'string' && /^\d{1,15}$/.test(id)))
      row = await findRecipeInEnvironment(sc.ctx.db, sc.recipe.environmentId, Number(id));
    else if (typeof id === 'string') {
      const skill = await findSkill(sc.ctx.db, scope, id);
      if (skill) row = await findRecipeInEnvironment(sc.ctx.db, sc.recipe.environmentId, skill.recipe_id);
    }
    const label = JSON.stringify(toPlain(ref)).slice(0, 80);
    if (!row) throw new StepError('Bad request', `the skill ${label} does not exist in this environment`);
    if (recipeTool(row)?.kind !== 'skill')
      throw new StepError(
        'Bad request',
        `recipe ${row.id} is not a skill (its trigger is ${row.trigger_application ?? 'none'})`,
      );
    if (!out.some((o) => o.row.id === row.id)) out.push({ row, name: row.name });
  }
  return out;
}

function conversationOf(value: Value): Array<{ role: 'user' | 'assistant'; content: string }> {
  if (value === null || value === '') return [];
  if (!Array.isArray(value)) throw new StepError('Bad request', 'conversation must be a list of {role, content}');
  if (value.length > GENIE_LIMITS.maxConversation)
    throw new StepError('Bad request', `conversation has at most ${GENIE_LIMITS.maxConversation} messages`);
  return value.map((m, i) => {
    const role = isHash(m) ? hashGet(m, 'role') : null;
    const content = isHash(m) ? hashGet(m, 'content') : null;
    if ((role !== 'user' && role !== 'assistant') || typeof content !== 'string')
      throw new StepError('Bad request', `conversation[${i}] must have role user or assistant and a text content`);
    return { role, content };
  });
}

const assignTask: ActionDef = {
  title: 'Assign task to genie',
  required: [{ path: 'task_instructions', label: 'Task instructions' }],
  async run(input, sc) {
    const task = hashGet(input, 'task_instructions');
    if (typeof task !== 'string' || task.trim() === '')
      throw new StepError('Bad request', 'task_instructions must be text');
    const instructions = hashGet(input, 'instructions');
    if (instructions !== null && typeof instructions !== 'string')
      throw new StepError('Bad request', 'instructions must be text');
    if (instructions === null && hashGet(input, 'genie_handle') !== null)
      throw new StepError(
        'Bad request',
        'Genie assets (genie_handle) are not kept on this server: give the Genie its instructions and skills in the step',
      );
    const maxTurns = bounded(input, 'max_turns', GENIE_LIMITS.defaultTurns, GENIE_LIMITS.maxTurns);
    const maxTokens = bounded(input, 'max_tokens', GENIE_LIMITS.defaultTokens, GENIE_LIMITS.maxTokens);
    const conversation = conversationOf(hashGet(input, 'conversation'));
    const skills = await skillRecipes(sc, skillRefs(hashGet(input, 'skills')));
    const names = uniqueNames(
      skills,
      (s) => s.name,
      (s) => s.row.id,
    );
    const tools: AgentTool[] = skills.map((skill) => {
      const tool = recipeTool(skill.row);
      const parameters = tool?.inputSchema ?? { type: 'object' as const, properties: {} };
      return {
        name: names.get(skill) as string,
        description: tool?.description || skill.row.description || skill.name,
        parameters,
        async call(args) {
          const problem = argumentProblems(parameters, args);
          if (problem) throw new Error(problem);
          const outcome = await sc.callRecipe(skill.row.id, fromPlain(args), true);
          return { result: toPlain(outcome.result ?? newHash()), jobId: outcome.jobId };
        },
      };
    });
    const { chat, model } = await modelFor(sc);
    try {
      const outcome = await runAgent({
        chat,
        instructions: instructions ?? '',
        conversation,
        task,
        tools,
        limits: { maxTurns, maxTokens },
      });
      return fromPlain({
        response: outcome.answer,
        model,
        turn_count: outcome.turns.length,
        turns: outcome.turns,
        usage: outcome.usage,
      });
    } catch (error) {
      if (error instanceof AgentError)
        throw new StepError(error.errorType, error.message, JSON.stringify(error.turns).slice(0, 20_000));
      throw error;
    }
  },
};

export const workatoGenie: Connector = {
  provider: 'workato_genie',
  title: 'Workato Genie',
  needsConnection: false,
  reachesOutside: true,
  triggers: { start_workflow: startWorkflow },
  actions: { assign_task_to_genie: assignTask, workflow_return_result: returnResult },
};
