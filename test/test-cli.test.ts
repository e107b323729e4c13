// switchboard test: run a project's test cases from a pipeline, print failures, write JUnit XML,
// exit 1 when a test case failed and 0 when all passed.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { tempDir } from './helpers.ts';
import { api, startServer } from './process-helpers.ts';

const ROOT = path.resolve(import.meta.dirname, '..');
const TOKEN = 'wrkdev-testclitest0123456789abcdef0123456789abcd';

function cli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [path.join(ROOT, 'src/cli.ts'), 'test', ...args], {
      env: { PATH: process.env.PATH, DATA_DIR: tempDir('sb-test-cli-'), SWITCHBOARD_TOKEN: TOKEN },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => {
      stdout += d;
    });
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

test('switchboard test: failures printed and in the JUnit file, exit 1; all passing, exit 0; refused, exit 2', async () => {
  const server = await startServer(tempDir('sb-test-cli-server-'), { SWITCHBOARD_ADMIN_TOKEN: TOKEN });
  const folder = await api(server.baseUrl, 'POST', '/api/folders', TOKEN, { name: 'Greetings' });
  const pill = `#{_dp('${JSON.stringify({ pill_type: 'output', provider: 'workato_webhooks', line: 'hook', path: ['payload', 'who'] })}')}`;
  const code = {
    number: 0,
    keyword: 'trigger',
    provider: 'workato_webhooks',
    name: 'new_event',
    as: 'hook',
    input: {},
    block: [
      {
        number: 1,
        keyword: 'action',
        provider: 'logger',
        name: 'log_message',
        as: 'say',
        input: { message: `hello ${pill}` },
      },
    ],
  };
  const recipe = await api(server.baseUrl, 'POST', '/api/recipes', TOKEN, {
    recipe: { name: 'Greeter <v1>', folder_id: folder.body.id, code: JSON.stringify(code) },
  });
  const good = await api(server.baseUrl, 'POST', `/api/recipes/${recipe.body.id}/test_cases`, TOKEN, {
    name: 'Greets Ada',
    trigger_output: { payload: { who: 'Ada' } },
    expectations: [{ step: 'say', output_path: ['message'], equals: 'hello Ada' }],
  });
  assert.equal(good.status, 200);
  const bad = await api(server.baseUrl, 'POST', `/api/recipes/${recipe.body.id}/test_cases`, TOKEN, {
    name: 'Greets Bob & co',
    trigger_output: { payload: { who: 'Ada' } },
    expectations: [{ step: 'say', output_path: ['message'], equals: 'hello Bob' }],
  });
  assert.equal(bad.status, 200);

  const junit = path.join(tempDir('sb-junit-'), 'report.xml');
  const failing = await cli(['--project', String(folder.body.project_id), '--url', server.baseUrl, '--junit', junit]);
  assert.equal(failing.code, 1, failing.stdout + failing.stderr);
  assert.match(failing.stdout, /run request cirr-\S+: 2 test case\(s\)/);
  assert.match(failing.stdout, /pass {2}Greeter <v1> \/ Greets Ada/);
  assert.match(
    failing.stdout,
    /FAIL {2}Greeter <v1> \/ Greets Bob & co: expected step say output message to equal "hello Bob", got "hello Ada"/,
  );
  assert.match(failing.stdout, /1 passed, 1 failed; coverage 100%/);
  const report = fs.readFileSync(junit, 'utf8');
  assert.match(
    report,
    /^<\?xml version="1.0" encoding="UTF-8"\?>\n<testsuites name="switchboard cirr-[^"]+" tests="2" failures="1"/,
  );
  assert.match(report, /<testsuite name="Greeter &lt;v1&gt;" id="\d+" tests="2" failures="1">/);
  assert.match(report, /<testcase name="Greets Ada" classname="Greeter &lt;v1&gt;"\/>/);
  assert.match(
    report,
    /<testcase name="Greets Bob &amp; co" classname="Greeter &lt;v1&gt;">\n {6}<failure message="expected step say output message to equal &quot;hello Bob&quot;, got &quot;hello Ada&quot;">/,
  );

  assert.equal(
    (await api(server.baseUrl, 'DELETE', `/api/recipes/${recipe.body.id}/test_cases/${bad.body.data.id}`, TOKEN))
      .status,
    200,
  );
  const passing = await cli(['--recipe', String(recipe.body.id), '--url', server.baseUrl]);
  assert.equal(passing.code, 0, passing.stdout + passing.stderr);
  assert.match(passing.stdout, /1 passed, 0 failed/);

  // A project with no test case: nothing was tested, which is not a pass unless allowed.
  const bare = await api(server.baseUrl, 'POST', '/api/folders', TOKEN, { name: 'Untested' });
  const empty = await cli(['--project', String(bare.body.project_id), '--url', server.baseUrl]);
  assert.equal(empty.code, 1, empty.stdout + empty.stderr);
  assert.match(empty.stdout, /0 test case\(s\)/);
  assert.match(empty.stdout, /no test case to run: nothing was tested .*--allow-empty/);
  assert.doesNotMatch(empty.stdout, /0 passed, 0 failed/);
  const allowed = await cli(['--project', String(bare.body.project_id), '--url', server.baseUrl, '--allow-empty']);
  assert.equal(allowed.code, 0, allowed.stdout + allowed.stderr);
  assert.match(allowed.stdout, /no test case to run \(allowed by --allow-empty\)/);

  const refused = await cli(['--project', '999999', '--url', server.baseUrl]);
  assert.equal(refused.code, 2);
  assert.match(refused.stderr, /answered 404/);
  assert.equal((await cli(['--url', server.baseUrl])).code, 2);
  server.child.kill('SIGTERM');
  await server.exited;
});
