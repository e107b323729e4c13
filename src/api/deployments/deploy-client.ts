// `switchboard deploy`: a client of this area's HTTP API for pipelines. It builds the project,
// waits for the build, deploys it, waits for the deployment, and tells the outcome by its exit
// status (0 deployed, 1 the build or the deployment failed or did not finish in time, 2 the
// request was refused), printing progress while it waits. With `runTests` the build carries the
// project's test cases and, once deployed, they run in the target project (with a token of the
// target environment): a failing test case, or none at all, exits 1.

import { callServer, pollPauses } from '../../cli-http.ts';
import { runTests } from '../test_cases/test-client.ts';

export interface DeployRequest {
  baseUrl: string;
  token: string;
  project: string;
  environment: 'test' | 'prod';
  description?: string;
  /** The build carries the rows of its lookup and data tables (they replace the target's). */
  includeData?: boolean;
  /** The build carries the project's test cases (implied by `runTests`). */
  includeTestCases?: boolean;
  /** After the deployment, run the target project's test cases with `targetToken`. */
  runTests?: { targetToken: string; junitFile?: string; allowEmpty?: boolean };
  timeoutMs: number;
  pollMs: number;
  write: (line: string) => void;
}

type Json = Record<string, unknown>;

function call(req: DeployRequest, method: string, path: string, body?: Json): Promise<Json> {
  return callServer<Json>(req.baseUrl, req.token, method, path, body);
}

async function waitFor(req: DeployRequest, what: string, path: string, deadline: number): Promise<Json> {
  const started = Date.now();
  const pause = pollPauses(req.pollMs);
  let last = '';
  for (;;) {
    const body = await call(req, 'GET', path);
    const state = String(body.state);
    const line = `${what}: ${state}`;
    if (line !== last || state !== 'pending') req.write(`${line} (${((Date.now() - started) / 1000).toFixed(1)} s)`);
    last = line;
    if (state !== 'pending') return body;
    if (Date.now() >= deadline) return body;
    await pause();
  }
}

/** Build and deploy; the exit status. */
export async function deployProject(req: DeployRequest): Promise<number> {
  const deadline = Date.now() + req.timeoutMs;
  const build = await call(req, 'POST', `/api/projects/${encodeURIComponent(req.project)}/build`, {
    ...(req.description ? { description: req.description } : {}),
    ...(req.includeData ? { include_data: true } : {}),
    ...(req.includeTestCases || req.runTests ? { include_test_cases: true } : {}),
  });
  req.write(`build ${String(build.id)} of project ${String(build.project_id)} started`);
  const built = await waitFor(req, `build ${String(build.id)}`, `/api/project_builds/${String(build.id)}`, deadline);
  if (built.state === 'pending') {
    req.write(`the build did not finish within ${req.timeoutMs / 1000} s`);
    return 1;
  }
  if (built.state !== 'success') {
    req.write(`the build failed: ${String(built.error ?? 'no reason given')}`);
    return 1;
  }
  const deployment = await call(
    req,
    'POST',
    `/api/project_builds/${String(build.id)}/deploy?environment_type=${req.environment}`,
    req.description ? { description: req.description } : {},
  );
  req.write(`deployment ${String(deployment.id)} to ${req.environment} started`);
  const done = await waitFor(
    req,
    `deployment ${String(deployment.id)}`,
    `/api/deployments/${String(deployment.id)}`,
    deadline,
  );
  if (done.state === 'success') {
    req.write(`deployed build ${String(build.id)} to ${req.environment}: project ${String(done.target_project_id)}`);
    if (!req.runTests) return 0;
    const left = deadline - Date.now();
    if (left <= 0) {
      req.write(`no time left within ${req.timeoutMs / 1000} s to run the test cases`);
      return 1;
    }
    req.write(`running the test cases of project ${String(done.target_project_id)} in ${req.environment}`);
    return runTests({
      baseUrl: req.baseUrl,
      token: req.runTests.targetToken,
      selector: { project_id: String(done.target_project_id) },
      timeoutMs: left,
      pollMs: req.pollMs,
      ...(req.runTests.junitFile ? { junitFile: req.runTests.junitFile } : {}),
      ...(req.runTests.allowEmpty ? { allowEmpty: true } : {}),
      write: req.write,
    });
  }
  req.write(
    done.state === 'pending'
      ? `the deployment did not finish within ${req.timeoutMs / 1000} s`
      : `the deployment failed: ${String(done.error ?? 'no reason given')}`,
  );
  return 1;
}
