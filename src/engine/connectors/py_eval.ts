// py_eval/invoke_custom_py_code (20 §10.9): the step's `code` defines `def main(input): return
// {...}`; `code_input.data.<field>` are its input (a dict), typed by `code_input.schema` (a JSON
// string of fields: a number field given as text arrives as a number, as the vendor passes it);
// what main returns is the step's `output`, shaped by `code_output_schema_json` when the step has
// one. It runs in the Python sandbox (Pyodide in WebAssembly, in a realm of its own, in a worker
// thread): no host objects, no file system, processes or network, bounded time and memory; an
// error of the code is the step's error.
import { fromPlain, hashGet, isHash, newHash, toPlain } from '../../recipe/formula/values.ts';
import { StepError, type Connector } from './types.ts';
import { isPlainObject, parseSchema, shaped, typedObject } from './code-schemas.ts';

/** The limit on a Python step's code, as for JavaScript steps. */
const MAX_CODE_CHARS = 1024 * 1024;

export const pyEval: Connector = {
  provider: 'py_eval',
  title: 'Python',
  needsConnection: false,
  reachesOutside: false,
  triggers: {},
  actions: {
    invoke_custom_py_code: {
      title: 'Run Python code',
      required: [{ path: 'code', label: 'Code' }],
      async run(input, sc) {
        const code = hashGet(input, 'code');
        if (typeof code !== 'string') throw new StepError('Bad request', 'code must be the Python source');
        if (code.length > MAX_CODE_CHARS)
          throw new StepError('Bad request', `code is longer than ${MAX_CODE_CHARS} characters`);
        const given = hashGet(input, 'code_input');
        const dataValue = isHash(given) ? hashGet(given, 'data') : null;
        const data = toPlain(dataValue ?? newHash());
        if (!isPlainObject(data)) throw new StepError('Bad request', 'code_input.data must be an object of fields');
        const inputFields = parseSchema(isHash(given) ? hashGet(given, 'schema') : null, 'code_input.schema');
        const outputFields = parseSchema(hashGet(input, 'code_output_schema_json'), 'code_output_schema_json');
        const sandbox = sc.sandboxes?.py;
        if (!sandbox) throw new StepError('Code error', 'no Python sandbox in this process');
        // A worker runs the steps of one recipe of one workspace only (py-sandbox.ts says why).
        const tenant = `${sc.recipe.workspaceId}/${sc.recipe.id}`;
        const result = await sandbox.run(
          code,
          inputFields ? typedObject(data, inputFields) : data,
          { timeoutMs: sc.limits.codeTimeoutMs, memoryBytes: sc.limits.codeMemoryBytes },
          tenant,
        );
        if (!result.ok) throw new StepError(result.type, result.message);
        const output = isPlainObject(result.output) ? result.output : {};
        return newHash([['output', fromPlain(outputFields ? shaped(output, outputFields) : output)]]);
      },
    },
  },
};
