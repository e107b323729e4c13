// workato_recipe_function: recipes that other recipes call (20 §10.9, D-rf). The callee's trigger
// `execute` receives `parameters` and `context`; `return_result` ends its job with `result`;
// `call_recipe` waits for that result, `call_recipe_async` only starts the job.
import { EndJob, StepError, type ActionDef, type Connector } from './types.ts';
import { fromPlain, hashGet, isHash, newHash } from '../../recipe/formula/values.ts';

function call(wait: boolean): ActionDef {
  return {
    title: wait ? 'Call recipe function' : 'Call recipe function asynchronously',
    required: [{ path: 'flow_id', label: 'Recipe' }],
    async run(input, sc) {
      const parameters = hashGet(input, 'parameters');
      if (parameters !== null && !isHash(parameters))
        throw new StepError('Bad request', 'parameters must be an object');
      const outcome = await sc.callRecipe(hashGet(input, 'flow_id'), parameters ?? newHash(), wait);
      const jobUrl = `${sc.ctx.config.publicBaseUrl}/api/recipes/${outcome.recipeId}/jobs/${outcome.jobId}`;
      return wait
        ? newHash([
            ['result', outcome.result ?? newHash()],
            ['job_id', outcome.jobId],
            ['job_url', jobUrl],
          ])
        : newHash([
            ['job_id', outcome.jobId],
            ['job_url', jobUrl],
          ]);
    },
  };
}

export const workatoRecipeFunction: Connector = {
  provider: 'workato_recipe_function',
  title: 'Recipe functions by Workato',
  needsConnection: false,
  reachesOutside: true,
  triggers: {
    execute: {
      title: 'new call for recipe',
      kind: 'function_call',
      output(event) {
        return newHash([
          ['parameters', fromPlain(hashGet(event, 'parameters')) ?? newHash()],
          [
            'context',
            newHash([
              ['calling_job_id', hashGet(event, 'calling_job_id')],
              ['calling_recipe_id', hashGet(event, 'calling_recipe_id')],
            ]),
          ],
        ]);
      },
      titleFields(event) {
        const caller = hashGet(event, 'calling_recipe_id');
        return caller === null ? [] : [['Calling recipe ID', String(caller)]];
      },
    },
  },
  actions: {
    call_recipe: call(true),
    call_recipe_async: call(false),
    return_result: {
      title: 'Return result',
      run(input) {
        const result = hashGet(input, 'result');
        throw new EndJob('result', isHash(result) ? result : newHash());
      },
    },
  },
};
