// The Python sandbox's worker thread: Pyodide (CPython compiled to WebAssembly) loaded once per
// worker inside a JavaScript realm of its own that holds nothing of the host (py-realm.ts). The
// worker copies Pyodide's WebAssembly module and standard library into the realm as bytes, runs
// Pyodide's loader there as plain scripts, and starts the interpreter with py-bootstrap.py. Each
// step then calls the runner with text in and text out: nothing crosses but strings.
//
// Limits: the WebAssembly memory may not grow past the heap at start plus the step's memory
// bound (Python sees a MemoryError); the time limit is Pyodide's interrupt buffer, a
// SharedArrayBuffer the pool writes SIGINT into at the deadline (Python sees a KeyboardInterrupt);
// the pool terminates a worker that still does not answer.
import { randomFillSync } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { parentPort, workerData } from 'node:worker_threads';
import { createRealm, type RealmHandles } from './py-realm.ts';

export interface PyRequest {
  id: number;
  code: string;
  input: string;
  memoryBytes: number;
}

export type PyReply =
  | { id: number; ok: true; output: string }
  | { id: number; ok: false; type: string; message: string; recycle?: boolean };

export type PyBoot =
  | { boot: 'ready'; interrupt: SharedArrayBuffer; loadMs: number; snapshot?: Uint8Array }
  | { boot: 'failed'; message: string };

/** What a worker starts from: the memory snapshot of an interpreter that an earlier worker loaded, if any. */
export interface PyWorkerData {
  snapshot: SharedArrayBuffer | null;
}

type StepFunction = (code: string, input: string) => string;

const PYODIDE_DIR = dirname(createRequire(import.meta.url).resolve('pyodide/package.json'));
const INDEX = '/pyodide/';

function patch(source: string, from: string, to: string): string {
  if (!source.includes(from))
    throw new Error(`the Pyodide build is not the expected one (missing ${JSON.stringify(from.slice(0, 40))})`);
  return source.replace(from, to);
}

/** Pyodide's sources with every import() made a rejection of the realm (py-realm.ts says why). */
function withoutImports(source: string): string {
  const patched = source.replace(/\bimport\s*\(/g, '__refuseImport(');
  if (/\bimport\s*\(|\bimport\.meta\b/.test(patched))
    throw new Error('the Pyodide build is not the expected one (an import() is left)');
  return patched;
}

async function boot(snapshot: SharedArrayBuffer | null): Promise<{
  step: StepFunction;
  realm: RealmHandles;
  heapBytes: () => number;
  interrupt: SharedArrayBuffer;
  snapshot?: Uint8Array;
}> {
  const { realm, run: inRealm } = createRealm();
  for (const name of ['pyodide.asm.wasm', 'python_stdlib.zip']) {
    const bytes = readFileSync(join(PYODIDE_DIR, name));
    realm.file(INDEX + name, bytes.length).set(bytes);
  }
  if (snapshot) realm.file(`${INDEX}snapshot`, snapshot.byteLength).set(new Uint8Array(snapshot));
  // Pyodide's Emscripten module is an ES module; in the realm it runs as a script (no import()
  // reaches anything there: a vm script has no module loader). Its random source is the realm's.
  let asm = readFileSync(join(PYODIDE_DIR, 'pyodide.asm.mjs'), 'utf8').replaceAll(
    'import.meta.url',
    JSON.stringify(`${INDEX}pyodide.asm.mjs`),
  );
  asm = patch(asm, 'export default _createPyodideModule;', '');
  asm = patch(asm, 'if(ENVIRONMENT_IS_SHELL){return view=>{if(!os.system)', 'if(false){return view=>{if(!os.system)');
  inRealm(`${withoutImports(asm)}\nglobalThis._createPyodideModule = _createPyodideModule;`, 'pyodide.asm.js');
  inRealm(withoutImports(readFileSync(join(PYODIDE_DIR, 'pyodide.js'), 'utf8')), 'pyodide.js');
  const lock = JSON.stringify({
    info: JSON.parse(readFileSync(join(PYODIDE_DIR, 'pyodide-lock.json'), 'utf8')).info,
    packages: {},
  });
  const bootstrap = readFileSync(new URL('./py-bootstrap.py', import.meta.url), 'utf8');
  randomFillSync(realm.pool());
  // The loader and the bootstrap run in the realm; what comes back is the step function and the
  // interrupt buffer, both the realm's own objects. The first worker of a pool loads the
  // interpreter, runs the bootstrap and takes a memory snapshot of it; later workers start from
  // that snapshot, in a fraction of the time.
  const loaded = inRealm<
    Promise<{ step: StepFunction; heapBytes: () => number; interrupt: Int32Array; snapshot?: Uint8Array }>
  >(
    `(async () => {
    const fromSnapshot = ${snapshot ? 'true' : 'false'};
    const pyodide = await loadPyodide({
      indexURL: ${JSON.stringify(INDEX)},
      lockFileContents: JSON.parse(${JSON.stringify(lock)}),
      createPyodideModule: _createPyodideModule,
      jsglobals: Object.create(null),
      env: { HOME: '/home/step' },
      stdout: (line) => console.log(line),
      stderr: (line) => console.log(line),
      ...(fromSnapshot ? { _loadSnapshot: new Uint8Array(readbuffer(${JSON.stringify(`${INDEX}snapshot`)})) } : { _makeSnapshot: true }),
    });
    delete globalThis.loadPyodide;
    delete globalThis._createPyodideModule;
    let snapshot;
    if (!fromSnapshot) {
      pyodide.runPython(${JSON.stringify(bootstrap)});
      snapshot = pyodide.makeMemorySnapshot();
    }
    const interrupt = new Int32Array(new SharedArrayBuffer(4));
    pyodide.setInterruptBuffer(interrupt);
    const runner = pyodide.globals.get('_switchboard_run');
    pyodide.runPython('del _switchboard_run');
    return {
      step(code, input) { interrupt[0] = 0; return runner(code, input); },
      heapBytes() { return pyodide._module.HEAP8.buffer.byteLength; },
      interrupt,
      snapshot,
    };
  })()`,
    'py-boot.js',
  );
  try {
    const { step, heapBytes, interrupt, snapshot: made } = await loaded;
    realm.dropFiles();
    return {
      step,
      realm,
      heapBytes,
      interrupt: interrupt.buffer as SharedArrayBuffer,
      ...(made ? { snapshot: made } : {}),
    };
  } catch (error) {
    throw new Error(`${(error as Error).message} ${realm.log.join(' | ')}`.slice(0, 1000), { cause: error });
  }
}

const started = Date.now();
let sandbox: Awaited<ReturnType<typeof boot>> | null = null;
let baseHeap = 0;
try {
  const given = (workerData as PyWorkerData | null)?.snapshot ?? null;
  // A snapshot that does not load (a damaged file) is not fatal: the interpreter loads anew.
  sandbox = given ? await boot(given).catch(() => boot(null)) : await boot(null);
  baseHeap = sandbox.heapBytes();
  const made = sandbox.snapshot ? new Uint8Array(sandbox.snapshot) : undefined;
  delete sandbox.snapshot;
  parentPort?.postMessage(
    {
      boot: 'ready',
      interrupt: sandbox.interrupt,
      loadMs: Date.now() - started,
      ...(made ? { snapshot: made } : {}),
    } satisfies PyBoot,
    made ? [made.buffer] : [],
  );
} catch (error) {
  parentPort?.postMessage({ boot: 'failed', message: (error as Error).message } satisfies PyBoot);
}

function run(request: PyRequest): PyReply {
  if (!sandbox)
    return {
      id: request.id,
      ok: false,
      type: 'Code error',
      message: 'the Python sandbox did not start',
      recycle: true,
    };
  randomFillSync(sandbox.realm.pool());
  sandbox.realm.setMemoryCap(baseHeap + request.memoryBytes);
  let text: unknown;
  try {
    text = sandbox.step(request.code, request.input);
  } catch (error) {
    // An error that escaped Python (the interpreter trapped): this interpreter is not used again.
    const message =
      typeof (error as Error)?.message === 'string' ? (error as Error).message : 'the interpreter stopped';
    return {
      id: request.id,
      ok: false,
      type: 'Code error',
      message: `the Python sandbox stopped: ${message.split('\n').filter(Boolean).pop() ?? ''}`.slice(0, 500),
      recycle: true,
    };
  }
  if (typeof text !== 'string')
    return {
      id: request.id,
      ok: false,
      type: 'Code error',
      message: 'the Python sandbox answered nothing',
      recycle: true,
    };
  const reply = JSON.parse(text) as { ok: true; output: unknown } | { ok: false; type: string; message: string };
  if (!reply.ok) return { id: request.id, ok: false, type: reply.type, message: reply.message };
  return { id: request.id, ok: true, output: JSON.stringify(reply.output) };
}

parentPort?.on('message', (request: PyRequest) => {
  parentPort?.postMessage(run(request));
});
