// Run requests in the background: each pending test case runs as a test job of its recipe (the
// engine's runTestJob: mocks in place, nothing counted), its expectations are checked, and its
// result is saved as soon as it is known. Several test cases run at once. A restart takes up the
// run requests still `running`: their pending results run again (a job cut off by the restart
// was failed as interrupted by the engine's recovery, and a new one runs).
import type { ServiceContext } from '../../context.ts';
import type { RecipeRow } from '../../db/types.ts';
import type { JobOutcome, StepMock, TestMode } from '../../recipe/job-outcome.ts';
import { fromPlain } from '../../recipe/formula/values.ts';
import { toStored } from '../../time.ts';
import { createWorkLoop, type WorkLoop } from '../../work-loop.ts';
import { isSharedByNodes } from '../../db/dialect.ts';
import { withLease } from '../../leases.ts';
import { findRecipeById } from '../recipes/recipes.store.ts';
import { evaluate, stepIndex, stepNumber, type TestCaseDoc } from './test-case-doc.ts';
import {
  findRunRequestById,
  findTestCase,
  runningRunRequestIds,
  saveResults,
  type RunResult,
} from './test_cases.store.ts';

/** What the runner needs of the recipe engine. */
export interface TestRuntime {
  runTestJob(row: RecipeRow, triggerOutput: unknown, mode: TestMode): Promise<{ handle: string; outcome: JobOutcome }>;
}

export type TestRunner = WorkLoop;

/** Test cases of one run request running at once. */
const PARALLEL = 8;

export function createTestRunner(ctx: ServiceContext, engine: TestRuntime): TestRunner {
  async function runOne(result: RunResult): Promise<RunResult> {
    const tc = await findTestCase(ctx.db, result.test_case.id);
    if (!tc) return { ...result, status: 'failed', failure: 'the test case was deleted before it ran' };
    const row = await findRecipeById(ctx.db, tc.recipe_id);
    if (!row) return { ...result, status: 'failed', failure: 'the recipe was deleted before the test case ran' };
    const doc = JSON.parse(tc.body) as TestCaseDoc;
    const index = stepIndex(row.code);
    const mocks = new Map<string, StepMock>();
    for (const mock of doc.mocks) {
      const n = stepNumber(index, mock.step);
      if (n === undefined)
        return {
          ...result,
          status: 'failed',
          failure: `the mock names step ${mock.step}, which is no longer in the recipe`,
        };
      mocks.set(`#${n}`, mock.error ? { error: mock.error } : { output: fromPlain(mock.output ?? null) });
    }
    const { handle, outcome } = await engine.runTestJob(row, doc.trigger_output, {
      mocks,
      allowExternal: doc.allow_external,
    });
    const failure = evaluate(doc, index, outcome.status, outcome.error, outcome.lines);
    const steps = [...new Set(outcome.lines.map((l) => l.recipe_line_number))];
    return {
      ...result,
      job: { id: handle, status: outcome.status },
      status: failure === null ? 'succeeded' : 'failed',
      ...(failure === null ? {} : { failure }),
      steps,
    };
  }

  async function coverageOf(results: readonly RunResult[]): Promise<number> {
    let total = 0;
    let exercised = 0;
    for (const recipeId of new Set(results.map((r) => r.recipe.id))) {
      const row = await findRecipeById(ctx.db, recipeId);
      if (!row) continue;
      const index = stepIndex(row.code);
      const ran = new Set(
        results
          .filter((r) => r.recipe.id === recipeId)
          .flatMap((r) => r.steps ?? [])
          .filter((n) => index.counted.has(n)),
      );
      total += index.counted.size;
      exercised += ran.size;
    }
    return total === 0 ? 0 : Math.round((1000 * exercised) / total) / 10;
  }

  async function runRequest(id: string, stopped: () => boolean): Promise<void> {
    const row = await findRunRequestById(ctx.db, id);
    if (!row || row.status !== 'running') return;
    const results = JSON.parse(row.results) as RunResult[];
    const pending = results.map((r, i) => [r, i] as const).filter(([r]) => r.status === 'pending');
    let saving = Promise.resolve();
    const save = () => {
      saving = saving.then(() => saveResults(ctx.db, id, results, toStored(ctx.clock.now())));
      return saving;
    };
    let next = 0;
    const worker = async () => {
      while (next < pending.length && !stopped()) {
        const [result, at] = pending[next++]!;
        try {
          results[at] = await runOne(result);
        } catch (error) {
          if (stopped()) return;
          ctx.log.error({ err: error, runRequest: id, testCase: result.test_case.id }, 'a test case could not be run');
          results[at] = {
            ...result,
            status: 'failed',
            failure: 'the test case could not be run because of a server error; see the server log',
          };
        }
        await save();
      }
    };
    await Promise.all(Array.from({ length: Math.min(PARALLEL, pending.length) }, worker));
    await saving;
    if (stopped() || results.some((r) => r.status === 'pending')) return;
    await saveResults(ctx.db, id, results, toStored(ctx.clock.now()), { coverage: await coverageOf(results) });
  }

  return createWorkLoop({
    name: 'the test runner',
    log: ctx.log,
    // Several nodes: a run left by a node that died is taken up once its lease runs out.
    repassEveryMs: isSharedByNodes(ctx.db) ? ctx.config.nodeLeaseMs : undefined,
    async pass(stopped) {
      const leaseDeps = { db: ctx.db, clock: ctx.clock, nodeId: ctx.nodeId, leaseMs: ctx.config.nodeLeaseMs };
      for (const id of await runningRunRequestIds(ctx.db)) {
        if (stopped()) return;
        await withLease(leaseDeps, `test_run:${id}`, () => runRequest(id, stopped));
      }
    },
  });
}
