// The JavaScript sandbox's worker thread: QuickJS compiled to WebAssembly (quickjs-emscripten),
// loaded once per worker. Each step gets a fresh QuickJS context (its own global object: nothing
// carries from one step to the next) in the worker's QuickJS runtime, which holds the memory
// limit; the context has no host objects at all (no require, process, fetch, file system or
// network), and an interrupt at its deadline. After a step that failed, or that left promise jobs
// queued in the runtime, the runtime is replaced.
import { parentPort } from 'node:worker_threads';
import { getQuickJS, shouldInterruptAfterDeadline, type QuickJSRuntime } from 'quickjs-emscripten';
import { outputProblem } from './output-bounds.ts';

export interface JsRequest {
  id: number;
  code: string;
  input: string;
  timeoutMs: number;
  memoryBytes: number;
}

export type JsReply =
  { id: number; ok: true; output: string } | { id: number; ok: false; type: string; message: string };

const QuickJS = await getQuickJS();

let shared: { runtime: QuickJSRuntime; memoryBytes: number } | null = null;

function runtimeFor(memoryBytes: number): QuickJSRuntime {
  if (shared && shared.memoryBytes === memoryBytes) return shared.runtime;
  shared?.runtime.dispose();
  const runtime = QuickJS.newRuntime();
  runtime.setMemoryLimit(memoryBytes);
  runtime.setMaxStackSize(1024 * 1024);
  shared = { runtime, memoryBytes };
  return runtime;
}

function run(request: JsRequest): JsReply {
  const reply = runInContext(request);
  // Contexts of one runtime share its queue of promise jobs: work a step queued and did not wait
  // for would run in the next step's time (and memory), whoever's step that is. Such a runtime,
  // like one a step failed in, is not used again.
  if (shared && (!reply.ok || shared.runtime.hasPendingJob())) {
    shared.runtime.dispose();
    shared = null;
  }
  return reply;
}

function runInContext(request: JsRequest): JsReply {
  const runtime = runtimeFor(request.memoryBytes);
  runtime.setInterruptHandler(shouldInterruptAfterDeadline(Date.now() + request.timeoutMs));
  const vm = runtime.newContext();
  try {
    // CommonJS as the vendor's step expects it: `exports.main = (input) => ({...})`.
    const source = `const exports = {}; const module = { exports };\n${request.code}\n;(function () {\n  const main = typeof module.exports === 'function' ? module.exports : (module.exports.main || exports.main);\n  if (typeof main !== 'function') throw new TypeError('the code must define exports.main = (input) => ({ ... })');\n  return main(JSON.parse(${JSON.stringify(request.input)}));\n})()`;
    const result = vm.evalCode(source, 'step.js');
    if (result.error) {
      const error = vm.dump(result.error) as { name?: string; message?: string } | string;
      result.error.dispose();
      return failure(request.id, error);
    }
    let handle = result.value;
    // An async main: run its jobs until the promise settles (within the same deadline).
    const state = vm.getPromiseState(handle);
    if (state.type !== 'fulfilled' || state.notAPromise !== true) {
      runtime.executePendingJobs();
      const settled = vm.getPromiseState(handle);
      if (settled.type === 'pending') {
        handle.dispose();
        return {
          id: request.id,
          ok: false,
          type: 'Code error',
          message: 'main returned a promise that did not settle',
        };
      }
      handle.dispose();
      if (settled.type === 'rejected') {
        const error = vm.dump(settled.error) as { name?: string; message?: string } | string;
        settled.error.dispose();
        return failure(request.id, error);
      }
      handle = settled.value;
    }
    const json = vm.getProp(vm.global, 'JSON');
    const stringify = vm.getProp(json, 'stringify');
    const text = vm.callFunction(stringify, json, handle);
    stringify.dispose();
    json.dispose();
    handle.dispose();
    if (text.error) {
      const error = vm.dump(text.error) as { name?: string; message?: string } | string;
      text.error.dispose();
      return failure(request.id, error);
    }
    const output = vm.typeof(text.value) === 'string' ? vm.getString(text.value) : 'null';
    text.value.dispose();
    const problem = outputProblem(output);
    if (problem) return { id: request.id, ok: false, type: 'Code error', message: problem };
    return { id: request.id, ok: true, output };
  } catch (error) {
    return { id: request.id, ok: false, type: 'Code error', message: (error as Error).message.slice(0, 500) };
  } finally {
    vm.dispose();
  }
}

function failure(id: number, error: { name?: string; message?: string } | string): JsReply {
  const name = typeof error === 'string' ? 'Error' : (error.name ?? 'Error');
  const message = typeof error === 'string' ? error : (error.message ?? 'error');
  if (name === 'InternalError' && message === 'interrupted')
    return { id, ok: false, type: 'Timeout', message: 'the code ran longer than its time limit' };
  if (name === 'InternalError' && message === 'out of memory')
    return { id, ok: false, type: 'Code error', message: 'the code used more memory than its limit' };
  if (name === 'RangeError' && /stack/i.test(message))
    return { id, ok: false, type: 'Code error', message: 'the code recursed too deeply' };
  return { id, ok: false, type: 'Code error', message: `${name}: ${message}`.slice(0, 1000) };
}

parentPort?.on('message', (request: JsRequest) => {
  parentPort?.postMessage(run(request));
});
