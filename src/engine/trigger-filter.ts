// A trigger's filter: whether an event starts a job.
import { type CompiledRecipe } from './compile.ts';
import { testCondition } from './conditions.ts';
import { StepError } from './connectors/types.ts';
import { type Limits } from '../recipe/formula/env.ts';
import { newHash, type Value } from '../recipe/formula/values.ts';
import { Run } from './executor.ts';

/**
 * Whether the trigger's filter lets an event through: true, false, or the error that stopped
 * the filter from being evaluated (20 §4.3; an invalid filter is a trigger error).
 */
export function filterAccepts(
  compiled: CompiledRecipe,
  triggerOutput: Value,
  options: { now(): number; timeZone: string; formulaLimits: Limits },
): boolean | { error: string } {
  const condition = compiled.trigger.condition;
  if (!condition) return true;
  const outputs = new Map<string, Value>();
  if (compiled.trigger.as !== null) outputs.set(compiled.trigger.as, triggerOutput);
  const run = new Run({
    ctx: undefined as never,
    recipe: undefined as never,
    compiled,
    handle: '',
    triggerOutput,
    jobContext: newHash(),
    properties: new Map(),
    timeZone: options.timeZone,
    formulaLimits: options.formulaLimits,
    limits: undefined as never,
    connectionFor: async () => null,
    sleep: async () => undefined,
    now: options.now,
    callRecipe: async () => {
      throw new StepError('Bad request', 'no calls from a trigger filter');
    },
    eventStreams: null,
  });
  for (const [k, v] of outputs) run.outputs.set(k, v);
  try {
    return testCondition(condition, run.env());
  } catch (error) {
    return { error: error instanceof Error ? error.message : 'the filter could not be evaluated' };
  }
}
