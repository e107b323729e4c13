// Python steps through real jobs: the sandbox runs the step's `main(input)`, keeps nothing of the
// host within reach (escape attempts fail with the step's error), bounds time and memory, and
// keeps the server answering; each step starts from a clean interpreter state.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createTestApp, tempDir, type TestApp } from '../../../test/helpers.ts';
import { createPySandbox, preparePythonSnapshot, pythonSnapshotFile } from '../sandbox/py-sandbox.ts';
import { action, dp, fire, log, readJob, webhookRecipe, webhookTrigger, type StepDoc } from '../../../test/recipes.ts';

let t: TestApp;
before(async () => {
  t = await createTestApp({ engine: { limits: { codeTimeoutMs: 1500, codeMemoryBytes: 32 * 1024 * 1024 } } });
  // The first Python step of a process waits for the interpreter to load (seconds on a busy
  // machine): one step here, with a longer wait than fire's, so the tests time only their own.
  // The tests' steps then run in this one recipe, changed for each: a worker runs the steps of
  // one recipe only, and every other recipe would wait for a worker of its own to load.
  shared = await webhookRecipe(t, [py('warm', 'def main(input): return {}')]);
  await firePatiently(shared.path);
});
after(() => t.close());

const py = (as: string, code: string, data: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) =>
  action('py_eval', 'invoke_custom_py_code', as, {
    code,
    code_input: { data, ...(extra.schema ? { schema: extra.schema } : {}) },
    ...(extra.output ? { code_output_schema_json: extra.output } : {}),
  });

let shared: { id: number; path: string };

/** The shared recipe with these steps, running; its webhook path. */
async function withSteps(block: StepDoc[]): Promise<string> {
  assert.equal((await t.call('PUT', `/api/recipes/${shared.id}/stop`)).status, 200);
  const put = await t.call('PUT', `/api/recipes/${shared.id}`, {
    body: { recipe: { code: JSON.stringify(webhookTrigger(block)) } },
  });
  assert.equal(put.status, 200, put.text);
  assert.deepEqual((await t.call('PUT', `/api/recipes/${shared.id}/start`)).body, { success: true });
  return shared.path;
}

async function runPy(code: string, data: Record<string, unknown> = {}) {
  return fire(t, await withSteps([py('p', code, data)]), {});
}

/** One event to a recipe whose step may wait for a worker to load (seconds on a busy machine). */
async function firePatiently(path: string) {
  const res = await t.app.inject({ method: 'POST', url: path, payload: {} });
  assert.equal(res.statusCode, 200, res.body);
  await t.engine.idle(120_000);
  const job = await t.ctx.db.selectFrom('jobs').select('id').orderBy('id', 'desc').executeTakeFirstOrThrow();
  return readJob(t, job.id);
}

describe('py_eval invoke_custom_py_code', () => {
  test('main gets the input as a dict typed by the schema; the output is shaped by the output schema; later steps read it; #{...} in the code stays code', async () => {
    const code = [
      'def main(input):',
      "    total = sum(i['price'] * i['qty'] for i in input['items'])",
      "    return {'total': total, 'greeting': 'hi ' + input['who'], 'count_type': type(input['count']).__name__, 'marker': '#{not a pill}', 'extra': 1}",
    ].join('\n');
    const schema = JSON.stringify([
      { name: 'who', type: 'string' },
      { name: 'count', type: 'integer' },
      {
        name: 'items',
        type: 'array',
        of: 'object',
        properties: [
          { name: 'price', type: 'number' },
          { name: 'qty', type: 'integer' },
        ],
      },
    ]);
    const output = JSON.stringify([
      { name: 'total', type: 'number' },
      { name: 'greeting', type: 'string' },
      { name: 'count_type', type: 'string' },
      { name: 'marker', type: 'string' },
      { name: 'missing', type: 'string' },
    ]);
    const path = await withSteps([
      py(
        'calc',
        code,
        {
          items: `=${dp('workato_webhooks', 'hook', 'payload', 'items')}`,
          who: `#{${dp('workato_webhooks', 'hook', 'payload', 'who')}}`,
          count: '3',
        },
        { schema, output },
      ),
      log('say', `total #{${dp('py_eval', 'calc', 'output', 'total')}}`),
    ]);
    const job = await fire(t, path, {
      who: 'Ada',
      items: [
        { price: 2.5, qty: '2' },
        { price: 10, qty: 1 },
      ],
    });
    assert.equal(job.status, 'succeeded', JSON.stringify(job.lines));
    assert.deepEqual(job.output(1), {
      output: { total: 15, greeting: 'hi Ada', count_type: 'int', marker: '#{not a pill}', missing: null },
    });
    assert.deepEqual(job.output(2), { message: 'total 15' });
  });

  test('the standard library modules recipes use work; dates, decimals and sets come out as JSON', async () => {
    const code = [
      'import json, re, datetime, math, base64, hashlib, csv, io, collections, itertools, decimal',
      'from urllib.parse import quote, urlencode',
      'def main(input):',
      "    rows = list(csv.DictReader(io.StringIO(input['csv'])))",
      '    return {',
      "        'rows': rows,",
      "        'sha': hashlib.sha256(b'abc').hexdigest()[:12],",
      "        'b64': base64.b64encode(b'hi').decode(),",
      "        'words': re.findall(r'\\w+', 'a-b c'),",
      "        'when': datetime.date(2024, 2, 28) + datetime.timedelta(days=2),",
      "        'dec': decimal.Decimal('1.10') + decimal.Decimal('2.20'),",
      "        'counts': collections.Counter('abca'),",
      "        'pairs': list(itertools.combinations([1, 2, 3], 2)),",
      "        'q': quote('a b/é') + '&' + urlencode({'k': 'v w'}),",
      "        'pi': round(math.pi, 3),",
      "        'tags': {'x'},",
      "        'doc': json.loads('{\"n\": 1}'),",
      '    }',
    ].join('\n');
    const job = await runPy(code, { csv: 'id,name\n1,Ada\n2,Bob' });
    assert.equal(job.status, 'succeeded', JSON.stringify(job.lines));
    assert.deepEqual(job.output(1), {
      output: {
        rows: [
          { id: '1', name: 'Ada' },
          { id: '2', name: 'Bob' },
        ],
        sha: 'ba7816bf8f01',
        b64: 'aGk=',
        words: ['a', 'b', 'c'],
        when: '2024-03-01',
        dec: 3.3,
        counts: { a: 2, b: 1, c: 1 },
        pairs: [
          [1, 2],
          [1, 3],
          [2, 3],
        ],
        q: 'a%20b/%C3%A9&k=v+w',
        pi: 3.142,
        tags: ['x'],
        doc: { n: 1 },
      },
    });
  });

  test('each step starts clean: globals, builtins, imported modules and sys.path left by one step are gone in the next', async () => {
    const first = await runPy(
      [
        'import builtins, sys, difflib',
        "builtins.leaked = 'yes'",
        "sys.path.append('/tmp/evil')",
        "remembered = 'first'",
        "def main(input): return {'ok': True}",
      ].join('\n'),
    );
    assert.equal(first.status, 'succeeded', JSON.stringify(first.lines));
    const second = await runPy(
      [
        'import sys',
        "def main(input): return {'remembered': 'remembered' in globals(), 'leaked': hasattr(__builtins__, 'leaked') if not isinstance(__builtins__, dict) else 'leaked' in __builtins__, 'path': '/tmp/evil' in sys.path, 'difflib': 'difflib' in sys.modules}",
      ].join('\n'),
    );
    assert.deepEqual(second.output(1), { output: { remembered: false, leaked: false, path: false, difflib: false } });
  });

  test("a step leaves nothing for another recipe's steps, in its workspace or another: a spy on json.loads and a file it wrote are gone, and another workspace's input never reaches it", async () => {
    // Workspace 1's step replaces json.loads (which parses every step's input) with a spy that
    // keeps each text in a list and appends it to a file, and returns what the spy saw so far.
    const spyCode = [
      'import json, os',
      'def main(input):',
      "    seen = ''",
      '    try:',
      "        fd = os.open('/tmp/leak.txt', os.O_RDONLY)",
      '        seen = os.read(fd, 1 << 20).decode()',
      '        os.close(fd)',
      '    except OSError:',
      '        pass',
      "    kept = getattr(json.loads, 'kept', [])",
      "    original = getattr(json.loads, 'original', json.loads)",
      '    def spy(text, *args, **kwargs):',
      '        kept.append(text)',
      "        fd = os.open('/tmp/leak.txt', os.O_WRONLY | os.O_CREAT | os.O_APPEND)",
      "        os.write(fd, text.encode() + b'\\n')",
      '        os.close(fd)',
      '        return original(text, *args, **kwargs)',
      '    spy.kept = kept',
      '    spy.original = original',
      '    json.loads = spy',
      "    return {'file': seen, 'kept': list(kept)}",
    ].join('\n');
    const lookCode = [
      'import json, os',
      'def main(input):',
      "    return {'loads': json.loads.__name__, 'file': os.path.exists('/tmp/leak.txt'), 'secret': input.get('secret')}",
    ].join('\n');
    const spying = await webhookRecipe(t, [py('p', spyCode, { mine: 'workspace 1' })]);
    const sameWorkspace = { path: await withSteps([py('p', lookCode, { secret: 'of recipe 2' })]) };
    const other = await t.newWorkspace('Other tenant');
    const created = await t.call('POST', '/api/recipes', {
      token: other.adminToken,
      body: {
        recipe: {
          name: 'Tenant two',
          code: JSON.stringify(webhookTrigger([py('p', lookCode, { secret: 'of workspace 2' })])),
        },
      },
    });
    assert.equal(created.status, 200, created.text);
    assert.equal(
      (await t.call('PUT', `/api/recipes/${created.body.id}/start`, { token: other.adminToken })).status,
      200,
    );
    const otherPath = new URL(
      (await t.call('GET', `/api/recipes/${created.body.id}`, { token: other.adminToken })).body.webhook_url,
    ).pathname;

    const first = await firePatiently(spying.path);
    assert.equal(first.status, 'succeeded', JSON.stringify(first.lines));
    for (const [path, secret] of [
      [sameWorkspace.path, 'of recipe 2'],
      [otherPath, 'of workspace 2'],
    ] as const) {
      const looked = await firePatiently(path);
      assert.equal(looked.status, 'succeeded', JSON.stringify(looked.lines));
      assert.deepEqual(looked.output(1), { output: { loads: 'loads', file: false, secret } });
    }
    const again = await firePatiently(spying.path);
    assert.equal(again.status, 'succeeded', JSON.stringify(again.lines));
    const seen = (again.output(1) as { output: { file: string; kept: string[] } }).output;
    assert.doesNotMatch(JSON.stringify(seen), /of recipe 2|of workspace 2/);
    // Its own recipe's steps may share what they leave: the spy saw the recipe's next input.
    assert.deepEqual(
      seen.kept.map((text) => JSON.parse(text)),
      [{ mine: 'workspace 1' }],
    );
  });

  test('escape attempts fail with the step error: the JavaScript bridge, the file system, processes, the network, ctypes, a module that is not there', async () => {
    const cases: Array<[string, RegExp]> = [
      [
        'import js\ndef main(input): return {}',
        /Code error: ModuleNotFoundError: no module named 'js': a Python step has the standard library only \(line 1\)/,
      ],
      [
        'from pyodide.ffi import to_js\ndef main(input): return {}',
        /no module named 'pyodide\.ffi'|no module named 'pyodide'/,
      ],
      ['def main(input):\n    import pyodide_js\n    return {}', /no module named 'pyodide_js'.*\(line 2\)/],
      ['import _pyodide\ndef main(input): return {}', /no module named '_pyodide'/],
      [
        "def main(input):\n    return {'r': open('/etc/passwd').read()}",
        /PermissionError: a Python step has no file system/,
      ],
      ["import io\ndef main(input):\n    return {'r': io.FileIO('/etc/passwd').read()}", /FileNotFoundError/],
      [
        "import os\ndef main(input):\n    return {'r': os.system('id')}",
        /PermissionError: a Python step has no processes/,
      ],
      [
        "import subprocess\ndef main(input):\n    return {'r': subprocess.run(['id']).returncode}",
        /OSError|PermissionError/,
      ],
      [
        "import socket\ndef main(input):\n    socket.create_connection(('127.0.0.1', 80))\n    return {}",
        /PermissionError: a Python step has no network/,
      ],
      [
        "import socket\ndef main(input):\n    s = socket.socket()\n    s.connect(('127.0.0.1', 80))\n    return {}",
        /PermissionError: a Python step has no network/,
      ],
      ['import ctypes\ndef main(input): return {}', /no module named 'ctypes'/],
      [
        'import requests\ndef main(input): return {}',
        /Code error: ModuleNotFoundError: no module named 'requests': a Python step has the standard library only/,
      ],
      // Walking the class tree to os's functions finds the refused ones.
      [
        "def main(input):\n    wrap = [c for c in ().__class__.__base__.__subclasses__() if c.__name__ == '_wrap_close'][0]\n    return {'r': wrap.__init__.__globals__['system']('id')}",
        /PermissionError: a Python step has no processes/,
      ],
    ];
    for (const [code, reason] of cases) {
      const job = await runPy(code);
      assert.equal(job.status, 'failed', code);
      assert.match(job.error ?? '', reason, code);
    }
  });

  test("Python code that digs out Pyodide's JavaScript bridge finds an empty realm that makes no code from strings", async () => {
    // Pyodide's import hook holds JsProxy objects of its realm (the `js` module, Pyodide's API);
    // gc finds it. From there the realm's Function constructor is reachable, and refuses to run.
    const job = await runPy(
      [
        'import gc',
        'def main(input):',
        "    finder = [o for o in gc.get_objects() if type(o).__name__ == 'JsFinder'][0]",
        "    out = {'js_module': finder.jsproxies['js'].object_keys().to_py()}",
        "    api = finder.jsproxies['pyodide_js']",
        '    for kind, make in [("function", lambda: api.runPython.constructor("return typeof process")()), ("import", lambda: api.loadPackage.constructor("return import(\'node:fs\')")())]:',
        '        try:',
        '            out[kind] = str(make())',
        '        except BaseException as error:',
        "            out[kind] = 'refused: ' + str(error)",
        '    return out',
      ].join('\n'),
    );
    assert.equal(job.status, 'succeeded', JSON.stringify(job.lines));
    const out = (job.output(1) as { output: Record<string, unknown> }).output;
    assert.deepEqual(out.js_module, []);
    assert.match(String(out.function), /^refused: .*Code generation from strings disallowed/);
    assert.match(String(out.import), /^refused: .*(Code generation from strings disallowed|import is not available)/);
  });

  test('a loop forever, a huge string, a growing list, an interrupt caught in a loop, deep recursion, an error, no main: the step fails with the reason; the server answers meanwhile and the next step runs', async () => {
    const cases: Array<[string, RegExp]> = [
      ['def main(input):\n    while True:\n        pass', /Timeout: the code ran longer than its time limit/],
      [
        "def main(input):\n    return {'x': 'x' * 10**10}",
        /Code error: (OverflowError|MemoryError|the code used more memory than its limit)/,
      ],
      [
        "def main(input):\n    a = []\n    while True:\n        a.append('x' * 100_000)",
        /Code error: the code used more memory than its limit/,
      ],
      [
        'def main(input):\n    while True:\n        try:\n            while True:\n                pass\n        except BaseException:\n            pass',
        /Timeout: the code ran longer than its time limit/,
      ],
      [
        'def main(input):\n    def f(n):\n        return f(n + 1)\n    return f(0)',
        /Code error: the code recursed too deeply/,
      ],
      ["def main(input):\n    raise ValueError('bad order')", /Code error: ValueError: bad order \(line 2\)/],
      ['x = 1', /Code error: the code must define def main\(input\)/],
      ["def main(input):\n    return ['a']", /Code error: main must return a dict, not list/],
      ['def main(input) return {}', /Code error: SyntaxError: .* \(line 1\)/],
      ['import sys\ndef main(input):\n    sys.exit(3)', /Code error: the code called exit\(\)/],
    ];
    for (const [code, reason] of cases) {
      const job = await runPy(code);
      assert.equal(job.status, 'failed', code);
      assert.match(job.error ?? '', reason, code);
    }
    const pending = fire(t, await withSteps([py('loop', 'def main(input):\n    while True:\n        pass')]), {});
    const health = await t.app.inject({ method: 'GET', url: '/health' });
    assert.equal(health.statusCode, 200);
    assert.equal((await pending).status, 'failed');
    const next = await runPy("def main(input):\n    return {'n': input['n'] * 2}", { n: 21 });
    assert.deepEqual(next.output(1), { output: { n: 42 } });
  });

  test("snapshots: the data directory's is preferred, the installation's is the fallback, a damaged one means a full load whose snapshot is kept", async () => {
    const limits = { timeoutMs: 60_000, memoryBytes: 32 * 1024 * 1024 };
    const code = "import json\ndef main(input):\n    return {'n': json.loads(input['doc'])['n'] + 1}";
    const dir = tempDir('py-snapshot-');
    const installed = join(dir, 'installed', 'python.snapshot');
    const dataDirs = join(dir, 'data', 'cache', 'python.snapshot');
    // The installation's snapshot, as `npm install` prepares it (switchboard prepare-python).
    await preparePythonSnapshot(installed);
    assert.ok(existsSync(installed), 'prepare-python writes the snapshot');
    const made = readFileSync(installed);
    // A data directory without a snapshot starts from the installation's and writes nothing.
    const fromInstalled = createPySandbox({ workers: 1, snapshotFiles: [dataDirs, installed] });
    try {
      assert.deepEqual(await fromInstalled.run(code, { doc: '{"n": 1}' }, limits, 'test'), {
        ok: true,
        output: { n: 2 },
      });
    } finally {
      await fromInstalled.close();
    }
    assert.equal(existsSync(dataDirs), false, 'a snapshot that loaded is not written again');
    // Preparing again over a snapshot that loads keeps it as it is.
    await preparePythonSnapshot(installed);
    assert.ok(readFileSync(installed).equals(made), 'a snapshot that loads is kept');
    // A damaged snapshot: the interpreter loads anew, and the new snapshot is kept in both places.
    writeFileSync(installed, 'not a snapshot');
    const damaged = createPySandbox({ workers: 1, snapshotFiles: [dataDirs, installed] });
    try {
      assert.deepEqual(await damaged.run(code, { doc: '{"n": 41}' }, limits, 'test'), { ok: true, output: { n: 42 } });
    } finally {
      await damaged.close();
    }
    assert.ok(readFileSync(installed).length > 1_000_000, 'the damaged snapshot is replaced');
    assert.ok(readFileSync(dataDirs).length > 1_000_000, 'the data directory keeps the new snapshot');
    // The data directory's snapshot comes first: a server whose installation lost its snapshot still starts from it.
    rmSync(installed);
    const fromDataDir = createPySandbox({ workers: 1, snapshotFiles: [dataDirs, installed] });
    try {
      assert.deepEqual(await fromDataDir.run(code, { doc: '{"n": 2}' }, limits, 'test'), {
        ok: true,
        output: { n: 3 },
      });
    } finally {
      await fromDataDir.close();
    }
    assert.equal(existsSync(installed), false, 'nothing is loaded anew, so nothing is written');
    assert.equal(
      pythonSnapshotFile(t.ctx.config.dataDir).startsWith(join(t.ctx.config.dataDir, 'cache', 'python-')),
      true,
    );
  });

  test('an output of more objects and lists than an event may hold fails the step before the server parses it', async () => {
    const job = await runPy("def main(input):\n    return {'list': [{}] * 600000}");
    assert.equal(job.status, 'failed');
    assert.equal(job.error, 'Code error: the output holds 600002 objects and lists; at most 500000 are accepted');
  });

  test('bad step input: code that is not text, a schema that is not JSON', async () => {
    const notText = await withSteps([
      action('py_eval', 'invoke_custom_py_code', 'p', { code: 123, code_input: { data: {} } }),
    ]);
    const job = await fire(t, notText, {});
    assert.equal(job.status, 'failed');
    assert.match(job.error ?? '', /code must be the Python source/);
    const badSchema = await withSteps([py('p', 'def main(input): return {}', {}, { schema: '[{not json' })]);
    const second = await fire(t, badSchema, {});
    assert.equal(second.status, 'failed');
    assert.match(second.error ?? '', /Bad request: code_input.schema must be a JSON list of fields/);
  });
});
