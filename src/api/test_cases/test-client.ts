// `switchboard test`: a client of the test automation API for pipelines. It starts a run request
// for a project (or a recipe, or a folder), prints each result as it ends and every failure with
// its reason, writes a JUnit XML report for CI systems, and tells the outcome by its exit status
// (0 all passed, 1 a test case failed, there was no test case to run, or the run did not end in
// time, 2 the request was refused).
import fs from 'node:fs';
import { callServer, pollPauses } from '../../cli-http.ts';

export interface TestRequest {
  baseUrl: string;
  token: string;
  selector: { project_id: string } | { recipe_id: string } | { folder_id: string };
  junitFile?: string;
  /** A run with no test case passes (otherwise it fails: a pipeline that tests nothing is not green). */
  allowEmpty?: boolean;
  timeoutMs: number;
  pollMs: number;
  write: (line: string) => void;
}

interface Result {
  recipe: { id: number; name: string };
  test_case: { id: string; name: string };
  job: { id: string; status: string } | null;
  status: 'pending' | 'succeeded' | 'failed';
  failure?: string;
}

interface RunRequest {
  id: string;
  status: 'running' | 'completed';
  results: Result[];
  coverage?: { value: number };
}

function call(req: TestRequest, method: string, path: string, body?: unknown): Promise<{ data: RunRequest }> {
  return callServer<{ data: RunRequest }>(req.baseUrl, req.token, method, path, body);
}

function xml(text: string): string {
  return (
    text
      .replace(
        /[<>&"']/g,
        (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[c] as string,
      )
      // Characters XML 1.0 cannot hold.
      .replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F]/g, '')
  );
}

/** JUnit XML: one test suite per recipe, one test case per test case. */
export function junitXml(run: RunRequest, seconds: number): string {
  const suites = new Map<number, Result[]>();
  for (const r of run.results) suites.set(r.recipe.id, [...(suites.get(r.recipe.id) ?? []), r]);
  const failures = run.results.filter((r) => r.status !== 'succeeded').length;
  const lines = [
    `<?xml version="1.0" encoding="UTF-8"?>`,
    `<testsuites name="switchboard ${xml(run.id)}" tests="${run.results.length}" failures="${failures}" time="${seconds.toFixed(3)}">`,
  ];
  for (const [, results] of suites) {
    const recipe = results[0]!.recipe;
    const failed = results.filter((r) => r.status !== 'succeeded').length;
    lines.push(
      `  <testsuite name="${xml(recipe.name)}" id="${recipe.id}" tests="${results.length}" failures="${failed}">`,
    );
    for (const r of results) {
      const attrs = `name="${xml(r.test_case.name)}" classname="${xml(recipe.name)}"`;
      if (r.status === 'succeeded') lines.push(`    <testcase ${attrs}/>`);
      else {
        lines.push(`    <testcase ${attrs}>`);
        lines.push(
          `      <failure message="${xml(r.failure ?? r.status)}">${xml(`${r.failure ?? r.status}${r.job ? `\njob ${r.job.id}` : ''}`)}</failure>`,
        );
        lines.push('    </testcase>');
      }
    }
    lines.push('  </testsuite>');
  }
  lines.push('</testsuites>', '');
  return lines.join('\n');
}

/** `--junit FILE` and `--allow-empty` of `switchboard test` and `switchboard deploy --run-tests`. */
export function junitAndEmpty(values: Record<string, string | boolean | undefined>) {
  return {
    ...(typeof values.junit === 'string' ? { junitFile: values.junit } : {}),
    allowEmpty: values['allow-empty'] === true,
  };
}

/** Run the test cases; the exit status. */
export async function runTests(req: TestRequest): Promise<number> {
  const started = Date.now();
  let run = (await call(req, 'POST', '/api/test_cases/run_requests', req.selector)).data;
  req.write(`run request ${run.id}: ${run.results.length} test case(s)`);
  if (run.results.length === 0) {
    if (req.junitFile) fs.writeFileSync(req.junitFile, junitXml(run, (Date.now() - started) / 1000));
    if (req.allowEmpty) {
      req.write('no test case to run (allowed by --allow-empty)');
      return 0;
    }
    req.write(
      'no test case to run: nothing was tested (add test cases to the recipes, deploy with --run-tests so the build carries them, or pass --allow-empty)',
    );
    return 1;
  }
  const reported = new Set<string>();
  const report = () => {
    for (const r of run.results) {
      if (r.status === 'pending' || reported.has(r.test_case.id)) continue;
      reported.add(r.test_case.id);
      req.write(
        `${r.status === 'succeeded' ? 'pass' : 'FAIL'}  ${r.recipe.name} / ${r.test_case.name}${r.failure ? `: ${r.failure}` : ''}`,
      );
    }
  };
  report();
  const pause = pollPauses(req.pollMs);
  while (run.status !== 'completed' && Date.now() - started < req.timeoutMs) {
    await pause();
    run = (await call(req, 'GET', `/api/test_cases/run_requests/${encodeURIComponent(run.id)}`)).data;
    report();
  }
  const seconds = (Date.now() - started) / 1000;
  if (req.junitFile) fs.writeFileSync(req.junitFile, junitXml(run, seconds));
  if (run.status !== 'completed') {
    req.write(`the run did not end within ${req.timeoutMs / 1000} s`);
    return 1;
  }
  const failed = run.results.filter((r) => r.status !== 'succeeded').length;
  req.write(
    `${run.results.length - failed} passed, ${failed} failed; coverage ${run.coverage?.value ?? 0}%${req.junitFile ? `; JUnit report in ${req.junitFile}` : ''}`,
  );
  return failed > 0 ? 1 : 0;
}
