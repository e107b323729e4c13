// workato_service (Callable recipes by Workato): the older form of recipe functions, still in
// exports. The callee's trigger `receive_request` (New call for recipe) receives the caller's
// fields; `send_reply` (Return response from recipe) ends its job with a success reply, or fails it
// with an error reply; `call_service` waits for the reply, `call_service_async` only starts the
// job; `wait_for_async_jobs` waits for the calls made. Calls go through the same path as recipe
// functions (src/engine/recipe-calls.ts): a callable recipe may be called by either action.
import { EndJob, StepError, type ActionDef, type Connector } from './types.ts';
import { waitForAsyncJobs } from './workato_recipe_function.ts';
import { fromPlain, hashGet, isHash, isTrue, newHash, toRubyString, type Hash } from '../../recipe/formula/values.ts';

/** The fields sent with a call: `request` as the vendor's form names them, `parameters` as recipe functions do. */
function requestOf(input: Hash): Hash {
  const request = hashGet(input, 'request') ?? hashGet(input, 'parameters');
  if (request === null) return newHash();
  if (!isHash(request)) throw new StepError('Bad request', 'the recipe input (request) must be an object');
  return request;
}

function call(wait: boolean): ActionDef {
  return {
    title: wait ? 'Call recipe (synchronous)' : 'Call recipe (asynchronous)',
    required: [{ path: 'flow_id', label: 'Recipe to call' }],
    async run(input, sc) {
      const outcome = await sc.callRecipe(hashGet(input, 'flow_id'), requestOf(input), wait);
      const jobUrl = `${sc.ctx.config.publicBaseUrl}/api/recipes/${outcome.recipeId}/jobs/${outcome.jobId}`;
      const out = newHash([
        ['job_id', outcome.jobId],
        ['job_url', jobUrl],
      ]);
      if (wait) out.reply = outcome.result ?? newHash();
      return out;
    },
  };
}

export const workatoService: Connector = {
  provider: 'workato_service',
  title: 'Callable recipes by Workato',
  needsConnection: false,
  reachesOutside: true,
  triggers: {
    receive_request: {
      title: 'new call for recipe',
      kind: 'function_call',
      output(event) {
        const fields = fromPlain(hashGet(event, 'parameters')) ?? newHash();
        return newHash([
          ['request', fields],
          ['parameters', fields],
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
    call_service: call(true),
    call_service_async: call(false),
    send_reply: {
      title: 'Return response from recipe',
      run(input) {
        const type = toRubyString(hashGet(input, 'response_type') ?? 'success')
          .trim()
          .toLowerCase();
        if (type === 'error' || isTrue(hashGet(input, 'is_error'))) {
          const message =
            toRubyString(hashGet(input, 'error_message') ?? '').trim() || 'the recipe replied with an error';
          throw new StepError('Recipe error', message.slice(0, 2000));
        }
        if (type !== 'success' && type !== '')
          throw new StepError('Bad request', 'response_type must be success or error');
        const reply = hashGet(input, 'response') ?? hashGet(input, 'reply');
        throw new EndJob('result', isHash(reply) ? reply : newHash());
      },
    },
    wait_for_async_jobs: waitForAsyncJobs,
  },
};
