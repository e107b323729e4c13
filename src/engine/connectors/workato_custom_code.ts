// workato_custom_code/invoke_custom_ruby_code (Ruby snippets by Workato, 20 §10.9, D-ruby): the
// step's `code` is Ruby whose last expression is a hash; `input` in the code holds
// `code_input.data` (a hash with indifferent access, typed by `code_input.schema` as for Python
// steps); the hash is the step's `output`, shaped by `code_output_schema_json` when the step has
// one. The code runs in the Ruby runtime of custom connectors (src/engine/sandbox/ruby-code.ts),
// with the SDK's methods (`get`, `post`, `parse_json`, `workato.*`, `account_property`, `lookup`):
// off the event loop, bounded in time and memory, isolated per workspace and recipe; an error of
// the code is the step's error, naming its line.
import { fromPlain, hashGet, isHash, newHash, toPlain, type Hash } from '../../recipe/formula/values.ts';
import { isPlainObject, parseSchema, shaped, typedObject } from './code-schemas.ts';
import { lookupForFormula } from './lookup_table.ts';
import { StepError, type Connector } from './types.ts';

/** The vendor's limit on a Ruby step's code (D-ruby: 1 MB). */
const MAX_CODE_CHARS = 1024 * 1024;

const TIMEOUT_KINDS = new Set(['cpu_time', 'wall_timeout', 'timeout']);

function kindOf(value: unknown): string {
  if (value === null) return 'nil';
  if (Array.isArray(value)) return 'an Array';
  if (typeof value === 'string') return 'a String';
  if (typeof value === 'number') return Number.isInteger(value) ? 'an Integer' : 'a Float';
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  return 'a value';
}

export const workatoCustomCode: Connector = {
  provider: 'workato_custom_code',
  title: 'Ruby snippets',
  needsConnection: false,
  // The code may send requests (`get`, `post`...): a test case mocks the step.
  reachesOutside: true,
  triggers: {},
  actions: {
    invoke_custom_ruby_code: {
      title: 'Execute Ruby code',
      required: [{ path: 'code', label: 'Code' }],
      async run(input, sc) {
        const code = hashGet(input, 'code');
        if (typeof code !== 'string') throw new StepError('Bad request', 'code must be the Ruby source');
        if (code.length > MAX_CODE_CHARS)
          throw new StepError('Bad request', `code is longer than ${MAX_CODE_CHARS} characters`);
        const given = hashGet(input, 'code_input');
        const dataValue = isHash(given) ? hashGet(given, 'data') : null;
        const data = toPlain(dataValue ?? newHash());
        if (!isPlainObject(data)) throw new StepError('Bad request', 'code_input.data must be an object of fields');
        const inputFields = parseSchema(isHash(given) ? hashGet(given, 'schema') : null, 'code_input.schema');
        const outputFields = parseSchema(hashGet(input, 'code_output_schema_json'), 'code_output_schema_json');
        const runner = sc.sandboxes?.ruby;
        if (!runner) throw new StepError('Code error', 'no Ruby runtime in this process');
        const outcome = await runner.run({
          code,
          input: inputFields ? typedObject(data, inputFields) : data,
          workspaceId: sc.recipe.workspaceId,
          scope: `recipe:${sc.recipe.id}`,
          timeoutMs: sc.limits.codeTimeoutMs,
          accountProperty: async (name) => sc.properties?.get(name) ?? null,
          lookup: async (table, conditions) => {
            const row = await lookupForFormula(sc.ctx, sc.recipe, table, fromPlain(conditions) as Hash);
            return row === null ? null : (toPlain(row) as Record<string, unknown>);
          },
        });
        if (!outcome.ok) {
          const error = outcome.error;
          const type = TIMEOUT_KINDS.has(error.kind) ? 'Timeout' : 'Code error';
          const where = error.line === null ? '' : `line ${error.line}: `;
          const what = error.rubyClass && !error.detail.startsWith(error.rubyClass) ? `${error.rubyClass}: ` : '';
          throw new StepError(type, `${where}${what}${error.detail}`.slice(0, 2000));
        }
        const value = outcome.value ?? {};
        if (!isPlainObject(value))
          throw new StepError('Code error', `the code must end with a hash (its last value was ${kindOf(value)})`);
        return newHash([['output', fromPlain(outputFields ? shaped(value, outputFields) : value)]]);
      },
    },
  },
};
