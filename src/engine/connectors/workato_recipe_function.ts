// workato_recipe_function: recipes that other recipes call (20 §10.9, D-rf). The callee's trigger
// `execute` receives `parameters` and `context`; `return_result` ends its job with `result`;
// `call_recipe` waits for that result, `call_recipe_async` only starts the job.
import { EndJob, StepError, type ActionDef, type Connector } from './types.ts';
import { fromPlain, hashGet, isHash, newHash, toRubyString } from '../../recipe/formula/values.ts';

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

const MAX_WAIT_SECONDS = 86_400;

/**
 * `wait_for_async_jobs` (Wait for async calls): waits until every recipe this job called has ended
 * (`timeout` seconds at most; default the synchronous call's timeout). Output `jobs` (each call's
 * `job_id`, `recipe_id`, `status`, `error`), `succeeded_count`, `failed_count`. A call still
 * running at the timeout fails the step (`Timeout`); failed calls do not: the recipe decides.
 */
export const waitForAsyncJobs: ActionDef = {
  title: 'Wait for async calls',
  async run(input, sc) {
    if (!sc.waitForCalls) throw new StepError('Bad request', 'this job cannot wait for its calls');
    const raw = hashGet(input, 'timeout') ?? hashGet(input, 'timeout_in_seconds');
    let seconds = sc.limits.callTimeoutMs / 1000;
    if (raw !== null && raw !== '') {
      seconds = typeof raw === 'number' ? raw : Number(toRubyString(raw));
      if (!Number.isFinite(seconds) || seconds <= 0 || seconds > MAX_WAIT_SECONDS)
        throw new StepError('Bad request', `timeout must be a number of seconds from 1 to ${MAX_WAIT_SECONDS}`);
    }
    const jobs = await sc.waitForCalls(Math.round(seconds * 1000));
    const pending = jobs.filter((j) => j.status === 'queued' || j.status === 'running' || j.status === 'waiting');
    if (pending.length > 0)
      throw new StepError(
        'Timeout',
        `${pending.length} called job${pending.length === 1 ? ' has' : 's have'} not ended within ${seconds} s (${pending
          .slice(0, 5)
          .map((j) => j.jobId)
          .join(', ')})`,
      );
    const publicStatus = (s: string) => (s === 'succeeded' ? 'succeeded' : 'failed');
    return newHash([
      [
        'jobs',
        jobs.map((j) =>
          newHash([
            ['job_id', j.jobId],
            ['recipe_id', j.recipeId],
            ['status', publicStatus(j.status)],
            ['error', j.error],
          ]),
        ),
      ],
      ['succeeded_count', jobs.filter((j) => j.status === 'succeeded').length],
      ['failed_count', jobs.filter((j) => j.status !== 'succeeded').length],
    ]);
  },
};

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
    wait_for_async_jobs: waitForAsyncJobs,
  },
};
