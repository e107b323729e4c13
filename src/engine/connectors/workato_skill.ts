// workato_skill: skill recipes, tools that agents call (Genies, MCP clients). `start_workflow`
// receives the caller's `parameters`; `workflow_return_result` ends the job with `result`, which
// the caller gets back. The same two operations of the older `workato_genie` provider work alike.
import { EndJob, StepError, type ActionDef, type TriggerDef } from './types.ts';
import { fromPlain, hashGet, isHash, newHash, toPlain } from '../../recipe/formula/values.ts';
import type { Connector } from './types.ts';

/** The vendor's limit on a skill's result (Return response: "Result is too big"). */
export const MAX_RESULT_BYTES = 250 * 1024;

export const startWorkflow: TriggerDef = {
  title: 'Start workflow',
  kind: 'skill_call',
  output(event) {
    return newHash([
      ['parameters', fromPlain(hashGet(event, 'parameters')) ?? newHash()],
      [
        'context',
        newHash([
          ['calling_job_id', hashGet(event, 'calling_job_id')],
          ['calling_recipe_id', hashGet(event, 'calling_recipe_id')],
          ['mcp_server_id', hashGet(event, 'mcp_server_id')],
        ]),
      ],
    ]);
  },
  titleFields(event) {
    const parameters = hashGet(event, 'parameters');
    if (!isHash(parameters)) return [];
    return Object.keys(parameters)
      .filter((k) => {
        const v = parameters[k];
        return v !== null && typeof v !== 'object';
      })
      .slice(0, 3)
      .map((k) => [k, String(parameters[k]).slice(0, 100)]);
  },
};

export const returnResult: ActionDef = {
  title: 'Return response',
  run(input) {
    const result = hashGet(input, 'result');
    const value = isHash(result) ? result : newHash();
    if (Buffer.byteLength(JSON.stringify(toPlain(value))) > MAX_RESULT_BYTES)
      throw new StepError('Bad request', `Result is too big: a skill's result is at most ${MAX_RESULT_BYTES} bytes`);
    throw new EndJob('result', value);
  },
};

export const workatoSkill: Connector = {
  provider: 'workato_skill',
  title: 'Workato Skill',
  needsConnection: false,
  reachesOutside: false,
  triggers: { start_workflow: startWorkflow },
  actions: { workflow_return_result: returnResult },
};
