// JavaScript steps through real jobs: the sandbox runs the step's code, keeps nothing of the host
// within reach, and turns runaway code into the step's error while the server keeps answering.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestApp, type TestApp } from '../../../test/helpers.ts';
import { action, dp, fire, log, webhookRecipe } from '../../../test/recipes.ts';
import { createJsSandbox } from '../sandbox/js-sandbox.ts';

let t: TestApp;
before(async () => {
  t = await createTestApp({ engine: { limits: { codeTimeoutMs: 1500, codeMemoryBytes: 8 * 1024 * 1024 } } });
});
after(() => t.close());

const js = (as: string, code: string, data: Record<string, unknown> = {}) =>
  action('js_eval', 'invoke_custom_js_code', as, { code, code_input: { data } });

describe('js_eval invoke_custom_js_code', () => {
  test('main gets the input data and its result is the step output; later steps read it; #{...} in the code stays code', async () => {
    const code =
      "exports.main = ({ items, who }) => ({ total: items.reduce((s, i) => s + i.price * i.qty, 0), greeting: `hi ${who}`, marker: '#{not a pill}' });";
    const { path } = await webhookRecipe(t, [
      js('calc', code, {
        items: `=${dp('workato_webhooks', 'hook', 'payload', 'items')}`,
        who: `#{${dp('workato_webhooks', 'hook', 'payload', 'who')}}`,
      }),
      log('say', `total #{${dp('js_eval', 'calc', 'output', 'total')}}`),
    ]);
    const job = await fire(t, path, {
      who: 'Ada',
      items: [
        { price: 2.5, qty: 2 },
        { price: 10, qty: 1 },
      ],
    });
    assert.equal(job.status, 'succeeded', JSON.stringify(job.lines));
    assert.deepEqual(job.output(1), { output: { total: 15, greeting: 'hi Ada', marker: '#{not a pill}' } });
    assert.deepEqual(job.output(2), { message: 'total 15' });
  });

  test('an async main is awaited', async () => {
    const { path } = await webhookRecipe(t, [
      js('a', 'exports.main = async (input) => { const v = await Promise.resolve(input.n * 2); return { v }; };', {
        n: 21,
      }),
    ]);
    assert.deepEqual((await fire(t, path, {})).output(1), { output: { v: 42 } });
  });

  test("a step leaves nothing for the next one, of another recipe: its globals are gone, and work it queued never runs in the other's time", async () => {
    // The first step queues work that would loop in whatever step runs the sandbox's jobs next, and
    // ends without waiting for it; it also leaves a global.
    const leaving = await webhookRecipe(t, [
      js(
        'leave',
        'globalThis.left = 1; exports.main = () => { Promise.resolve().then(() => { for (;;) {} }); return { queued: true }; };',
      ),
    ]);
    // The next step awaits (so the sandbox runs queued work), then computes for a moment: in the time
    // left over by a loop of the first step's, it would be cut off as running too long.
    const next = await webhookRecipe(t, [
      js(
        'next',
        'exports.main = async () => { await null; let s = 0; for (let i = 0; i < 300000; i++) s += i % 7; return { left: typeof globalThis.left, s }; };',
      ),
    ]);
    for (let round = 0; round < 2; round += 1) {
      assert.deepEqual((await fire(t, leaving.path, {})).output(1), { output: { queued: true } });
      const job = await fire(t, next.path, {});
      assert.equal(job.status, 'succeeded', JSON.stringify(job.lines));
      assert.deepEqual(job.output(1), { output: { left: 'undefined', s: 899997 } });
    }
  });

  test('an output of more objects and lists than an event may hold, or over 10 MiB of JSON, fails the step before the server parses it', async () => {
    const sandbox = createJsSandbox({ workers: 1 });
    const limits = { timeoutMs: 20_000, memoryBytes: 128 * 1024 * 1024 };
    try {
      assert.deepEqual(
        await sandbox.run('exports.main = () => ({ list: Array.from({ length: 600000 }, () => ({})) });', {}, limits),
        {
          ok: false,
          type: 'Code error',
          message: 'the output holds 600002 objects and lists; at most 500000 are accepted',
        },
      );
      assert.deepEqual(
        await sandbox.run("exports.main = () => ({ text: 'x'.repeat(11 * 1024 * 1024) });", {}, limits),
        {
          ok: false,
          type: 'Code error',
          message: `the output is ${11 * 1024 * 1024 + 11} characters of JSON; at most 10485760 are accepted`,
        },
      );
      assert.deepEqual(
        await sandbox.run('exports.main = () => ({ list: Array.from({ length: 1000 }, () => ({})) });', {}, limits),
        {
          ok: true,
          output: { list: Array.from({ length: 1000 }, () => ({})) },
        },
      );
    } finally {
      await sandbox.close();
    }
  });

  test('no host objects; a loop forever, a memory hog, a throw, no main: the step fails with the reason, and the next step of another job runs', async () => {
    const host = await webhookRecipe(t, [
      js(
        'h',
        'exports.main = () => ({ kinds: [typeof require, typeof process, typeof fetch, typeof globalThis.setTimeout, typeof WebAssembly] });',
      ),
    ]);
    assert.deepEqual((await fire(t, host.path, {})).output(1), {
      output: { kinds: ['undefined', 'undefined', 'undefined', 'undefined', 'undefined'] },
    });
    const cases: Array<[string, RegExp]> = [
      ['exports.main = () => { for (;;) {} };', /Timeout: the code ran longer than its time limit/],
      [
        'exports.main = () => { const a = []; for (;;) a.push({ n: a.length, list: [1, 2, 3] }); };',
        /Code error: the code used more memory than its limit/,
      ],
      ["exports.main = () => { throw new TypeError('bad order'); };", /Code error: TypeError: bad order/],
      ['const x = 1;', /the code must define exports.main/],
      ['exports.main = () => ({', /Code error: SyntaxError/],
    ];
    for (const [code, reason] of cases) {
      const { path } = await webhookRecipe(t, [js('bad', code)]);
      const started = Date.now();
      const job = await fire(t, path, {});
      assert.equal(job.status, 'failed', code);
      assert.match(job.error ?? '', reason, code);
      // Ended by the limit, not by the test's own timeout (generous: a loaded machine schedules the
      // sandbox's thread late).
      assert.ok(Date.now() - started < 20_000, 'bounded');
    }
    // The server answers while a step loops.
    const slow = await webhookRecipe(t, [js('loop', 'exports.main = () => { for (;;) {} };')]);
    const pending = fire(t, slow.path, {});
    const health = await t.app.inject({ method: 'GET', url: '/health' });
    assert.equal(health.statusCode, 200);
    assert.equal((await pending).status, 'failed');
    assert.deepEqual((await fire(t, host.path, {})).status, 'succeeded', 'the sandbox is ready again');
  });
});
