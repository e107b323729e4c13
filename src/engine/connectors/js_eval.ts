// js_eval/invoke_custom_js_code (20 §10.9): the step's `code` defines `exports.main = (input) =>
// ({...})` (CommonJS, as the vendor's); `code_input.data` (or `code_input` itself) is its input;
// what main returns (JSON) is the step's `output`. It runs in the JavaScript sandbox (QuickJS in
// WebAssembly, in a worker thread): no host objects, no file system or network, bounded time and
// memory; an error of the code is the step's error.
import { fromPlain, hashGet, isHash, newHash, toPlain } from '../../recipe/formula/values.ts';
import { StepError, type Connector } from './types.ts';

/** The vendor's limit on a JavaScript step's code (D-js). */
const MAX_CODE_CHARS = 1024 * 1024;

export const jsEval: Connector = {
  provider: 'js_eval',
  title: 'JavaScript',
  needsConnection: false,
  reachesOutside: false,
  triggers: {},
  actions: {
    invoke_custom_js_code: {
      title: 'Run JavaScript code',
      required: [{ path: 'code', label: 'Code' }],
      async run(input, sc) {
        const code = hashGet(input, 'code');
        if (typeof code !== 'string') throw new StepError('Bad request', 'code must be the JavaScript source');
        if (code.length > MAX_CODE_CHARS)
          throw new StepError('Bad request', `code is longer than ${MAX_CODE_CHARS} characters`);
        const given = hashGet(input, 'code_input');
        const data = isHash(given) && hashGet(given, 'data') !== null ? hashGet(given, 'data') : (given ?? newHash());
        const sandbox = sc.sandboxes?.js;
        if (!sandbox) throw new StepError('Code error', 'no JavaScript sandbox in this process');
        const result = await sandbox.run(code, toPlain(data), {
          timeoutMs: sc.limits.codeTimeoutMs,
          memoryBytes: sc.limits.codeMemoryBytes,
        });
        if (!result.ok) throw new StepError(result.type, result.message);
        return newHash([['output', fromPlain(result.output ?? null)]]);
      },
    },
  },
};
