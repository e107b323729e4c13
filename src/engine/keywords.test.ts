// Engine keywords, run through real jobs: a webhook event in, the job's lines out.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestApp, type TestApp } from '../../test/helpers.ts';
import {
  action,
  condition,
  createRecipe,
  CURRENT,
  dp,
  fire,
  log,
  pill,
  startRecipe,
  webhookRecipe,
  webhookTrigger,
  type StepDoc,
} from '../../test/recipes.ts';

let t: TestApp;
before(async () => {
  t = await createTestApp();
});
after(() => t.close());

const payload = (...path: string[]) => pill('workato_webhooks', 'hook', 'payload', ...path);
const payloadDp = (...path: string[]) => dp('workato_webhooks', 'hook', 'payload', ...path);
const badJson = (as: string): StepDoc => action('json_parser', 'parse_json_v2', as, { document: '{not json' });

describe('trigger and action', () => {
  test('the trigger line holds the event; an action line holds its input and output', async () => {
    const { path } = await webhookRecipe(t, [
      log('note', `Order ${payload('id')} for #{${payloadDp('qty')} * 2} items`),
    ]);
    const job = await fire(t, path, { id: 'A-1', qty: 3 });
    assert.equal(job.status, 'succeeded');
    assert.deepEqual((job.output(0) as { payload: unknown }).payload, { id: 'A-1', qty: 3 });
    assert.deepEqual(job.input(1), { message: 'Order A-1 for 6 items' });
    assert.deepEqual(job.output(1), { message: 'Order A-1 for 6 items' });
    assert.deepEqual(
      job.lines.map((l) => [l.n, l.adapter, l.operation]),
      [
        [0, 'workato_webhooks', 'new_event'],
        [1, 'logger', 'log_message'],
      ],
    );
  });

  test('a step marked skip does not run; a pill to it is nil', async () => {
    const { path } = await webhookRecipe(t, [
      { ...log('skipped', 'never'), skip: true },
      log('after', `[#{${dp('logger', 'skipped', 'message')}}]`),
    ]);
    const job = await fire(t, path, {});
    assert.equal(job.ran(1), false);
    assert.deepEqual(job.output(2), { message: '[]' });
  });
});

describe('if / elsif / else', () => {
  const branches = (): StepDoc[] => [
    {
      keyword: 'if',
      input: condition('equals_to', payload('kind'), 'a'),
      block: [
        log('a', 'branch a'),
        { keyword: 'elsif', input: condition('greater_than', payload('n'), '10'), block: [log('b', 'branch b')] },
        { keyword: 'else', input: {}, block: [log('c', 'branch c')] },
      ],
    },
    log('after', 'after'),
  ];

  test('runs only the first branch whose condition holds, then continues after the if', async () => {
    const { path } = await webhookRecipe(t, branches());
    const messages = async (p: unknown) =>
      (await fire(t, path, p)).lines
        .filter((l) => l.adapter === 'logger')
        .map((l) => (l.output as { message: string }).message);
    assert.deepEqual(await messages({ kind: 'a', n: 50 }), ['branch a', 'after']);
    assert.deepEqual(await messages({ kind: 'b', n: 50 }), ['branch b', 'after']);
    assert.deepEqual(await messages({ kind: 'b', n: '9' }), ['branch c', 'after']);
  });

  test('operands: contains, starts/ends with, present/blank, is_true, less_than, not_* and or-groups', async () => {
    const check = (operand: string, lhs: string, rhs = ''): StepDoc => ({
      keyword: 'if',
      input: condition(operand, lhs, rhs),
      block: [log(`ok_${operand}`, operand)],
    });
    const { path } = await webhookRecipe(t, [
      check('contains', payload('tags'), 'vip'),
      check('not_contains', payload('name'), 'zzz'),
      check('starts_with', payload('name'), 'Ad'),
      check('not_starts_with', payload('name'), 'x'),
      check('ends_with', payload('name'), 'da'),
      check('not_ends_with', payload('name'), 'x'),
      check('present', payload('name')),
      check('blank', payload('missing')),
      check('is_true', payload('flag')),
      check('is_not_true', payload('off')),
      check('less_than', payload('n'), '10'),
      check('not_equals_to', payload('n'), '3'),
      check('equals_to', payload('n'), '2.0'),
      {
        keyword: 'if',
        input: {
          type: 'compound',
          operand: 'or',
          conditions: [
            { operand: 'equals_to', lhs: payload('n'), rhs: '99' },
            { type: 'compound', operand: 'and', conditions: [{ operand: 'equals', lhs: payload('name'), rhs: 'Ada' }] },
          ],
        },
        block: [log('ok_or', 'or')],
      },
    ]);
    const job = await fire(t, path, { tags: ['vip', 'new'], name: 'Ada', flag: 'yes', off: 'no', n: 2 });
    assert.equal(job.status, 'succeeded', job.error ?? '');
    assert.equal(job.lines.filter((l) => l.adapter === 'logger').length, 14);
  });

  test('greater_than on an empty value is an error on the if step', async () => {
    const { path } = await webhookRecipe(t, [
      { keyword: 'if', input: condition('greater_than', payload('missing'), '1'), block: [log('x', 'x')] },
    ]);
    const job = await fire(t, path, {});
    assert.equal(job.status, 'failed');
    assert.equal(job.lines[1]?.n, 1);
    assert.match(job.lines[1]?.error ?? '', /empty/);
  });
});

describe('foreach', () => {
  test('runs the block once per item; the foreach pill and current_item give the item', async () => {
    const { path } = await webhookRecipe(t, [
      {
        keyword: 'foreach',
        as: 'each',
        source: payload('items'),
        repeat_mode: 'simple',
        block: [log('line', `#{${dp('foreach', 'each', 'sku')}}/#{${payloadDp('items', CURRENT as never, 'qty')}}`)],
      },
      log('first', `first=#{${payloadDp('items', CURRENT as never, 'sku')}}`),
    ]);
    const job = await fire(t, path, {
      items: [
        { sku: 'a', qty: 1 },
        { sku: 'b', qty: 2 },
        { sku: 'c', qty: 3 },
      ],
    });
    assert.deepEqual(
      job.lines.filter((l) => l.n === 2).map((l) => [l.pass, (l.output as { message: string }).message]),
      [
        [0, 'a/1'],
        [1, 'b/2'],
        [2, 'c/3'],
      ],
    );
    // Outside the loop, current_item is the first item.
    assert.deepEqual(job.output(3), { message: 'first=a' });
  });

  test('batch mode hands chunks; a nil source runs nothing; a non-list source fails the step', async () => {
    const { path } = await webhookRecipe(t, [
      {
        keyword: 'foreach',
        as: 'chunk',
        source: payload('items'),
        repeat_mode: 'batch',
        batch_size: '2',
        block: [log('size', `#{${dp('foreach', 'chunk', 'batch')}.size}`)],
      },
    ]);
    const job = await fire(t, path, { items: [1, 2, 3, 4, 5] });
    assert.deepEqual(
      job.lines.filter((l) => l.n === 2).map((l) => (l.output as { message: string }).message),
      ['2', '2', '1'],
    );
    const none = await fire(t, path, {});
    assert.equal(none.status, 'succeeded');
    assert.equal(none.ran(2), false);
    const scalar = await fire(t, path, { items: 'abc' });
    assert.equal(scalar.status, 'failed');
    assert.match(scalar.error ?? '', /must be a list/);
  });

  test('clear_scope drops the outputs of the previous pass', async () => {
    const inner = (clear: string): StepDoc[] => [
      {
        keyword: 'foreach',
        as: 'each',
        source: payload('items'),
        clear_scope: clear,
        block: [
          log('seen', `[#{${dp('logger', 'maybe', 'message')}}]`),
          {
            keyword: 'if',
            input: condition('is_true', dp('foreach', 'each', 'on').replace(/^/, '#{').concat('}')),
            block: [log('maybe', 'set')],
          },
        ],
      },
    ];
    const items = { items: [{ on: true }, { on: false }] };
    const kept = await fire(t, (await webhookRecipe(t, inner('false'))).path, items);
    assert.deepEqual(
      kept.lines.filter((l) => l.n === 2).map((l) => (l.output as { message: string }).message),
      ['[]', '[set]'],
    );
    const cleared = await fire(t, (await webhookRecipe(t, inner('true'))).path, items);
    assert.deepEqual(
      cleared.lines.filter((l) => l.n === 2).map((l) => (l.output as { message: string }).message),
      ['[]', '[]'],
    );
  });
});

describe('repeat / while_condition', () => {
  const counter = (whileFirst: boolean, limit: string): StepDoc[] => {
    const body: StepDoc[] = [
      action('workato_variable', 'update_variables', 'inc', {
        name: 'u:vars:n',
        n: `=${dp('workato_variable', 'vars', 'n')} + 1`,
      }),
    ];
    const wc: StepDoc = {
      keyword: 'while_condition',
      input: condition('less_than', pill('workato_variable', 'vars', 'n'), limit),
    };
    return [
      action('workato_variable', 'declare_variable', 'vars', {
        variables: { schema: JSON.stringify([{ name: 'n', type: 'integer' }]), data: { n: '0' } },
      }),
      { keyword: 'repeat', as: 'loop', block: whileFirst ? [wc, ...body] : [...body, wc] },
      log('done', `n=${pill('workato_variable', 'vars', 'n')} index=#{${dp('repeat', 'loop', 'index')}}`),
    ];
  };

  test('do-while: the body runs, then the condition decides; it may sit first or last', async () => {
    for (const first of [true, false]) {
      const job = await fire(t, (await webhookRecipe(t, counter(first, '3'))).path, {});
      assert.equal(job.status, 'succeeded', job.error ?? '');
      assert.deepEqual(job.output(5), { message: 'n=3 index=2' });
    }
    const once = await fire(t, (await webhookRecipe(t, counter(false, '0'))).path, {});
    assert.deepEqual(once.lines.filter((l) => l.operation === 'update_variables').length, 1);
  });

  test('a loop that never ends stops at 50,000 passes and fails the job', async () => {
    const { path } = await webhookRecipe(t, [
      { keyword: 'repeat', as: 'forever', block: [{ keyword: 'while_condition', input: condition('present', 'x') }] },
    ]);
    const job = await fire(t, path, {});
    assert.equal(job.status, 'failed');
    assert.equal(job.errorType, 'Iteration limit');
  });
});

describe('try / catch', () => {
  test('an error in the monitored steps runs the catch block with the error pills; the job goes on', async () => {
    const { path } = await webhookRecipe(t, [
      {
        keyword: 'try',
        block: [
          badJson('parse'),
          log('not_reached', 'no'),
          {
            keyword: 'catch',
            as: 'oops',
            input: { max_retry_count: '0', retry_interval: '0' },
            block: [
              log(
                'caught',
                `#{${dp('catch', 'oops', 'type')}}: #{${dp('catch', 'oops', 'errored_step_number')}} #{${dp('catch', 'oops', 'errored_app')}}`,
              ),
            ],
          },
        ],
      },
      log('after', 'after'),
    ]);
    const job = await fire(t, path, {});
    assert.equal(job.status, 'succeeded');
    assert.equal(job.ran(3), false);
    assert.deepEqual(job.output(5), { message: 'Bad request: 2 json_parser' });
    assert.equal(job.ran(6), true);
    assert.match(job.lines.find((l) => l.n === 2)?.error ?? '', /not valid JSON/);
  });

  test('retries re-run the monitored steps from the first, then the catch runs', async () => {
    const { path } = await webhookRecipe(t, [
      {
        keyword: 'try',
        block: [
          log('first', 'attempt'),
          badJson('parse'),
          {
            keyword: 'catch',
            as: 'oops',
            input: { max_retry_count: '2', retry_interval: '0' },
            block: [log('caught', `retries=#{${dp('catch', 'oops', 'retry_count')}}`)],
          },
        ],
      },
    ]);
    const job = await fire(t, path, {});
    assert.equal(job.lines.filter((l) => l.n === 2).length, 3);
    assert.equal(job.lines.filter((l) => l.n === 3).length, 3);
    assert.deepEqual(job.output(5), { message: 'retries=2' });
  });

  test('an error inside the catch block fails the job; stop inside try is not caught', async () => {
    const failing = await webhookRecipe(t, [
      { keyword: 'try', block: [badJson('a'), { keyword: 'catch', as: 'c1', input: {}, block: [badJson('b')] }] },
    ]);
    const job = await fire(t, failing.path, {});
    assert.equal(job.status, 'failed');
    assert.equal(job.lines.at(-1)?.n, 4);

    const stopping = await webhookRecipe(t, [
      {
        keyword: 'try',
        block: [
          { keyword: 'stop', input: { stop_with_error: 'true', stop_reason: 'halt' } },
          { keyword: 'catch', as: 'c2', input: {}, block: [log('never', 'x')] },
        ],
      },
    ]);
    const stopped = await fire(t, stopping.path, {});
    assert.equal(stopped.status, 'failed');
    assert.equal(stopped.error, 'halt');
    assert.equal(stopped.ran(4), false);
  });
});

describe('stop', () => {
  test('without error: the job succeeds and no later step runs, not even after a loop', async () => {
    const { path } = await webhookRecipe(t, [
      {
        keyword: 'foreach',
        as: 'each',
        source: payload('items'),
        block: [{ keyword: 'stop', input: { stop_with_error: 'false' } }],
      },
      log('after', 'x'),
    ]);
    const job = await fire(t, path, { items: [1, 2] });
    assert.equal(job.status, 'succeeded');
    assert.equal(job.lines.filter((l) => l.operation === 'stop').length, 1);
    assert.equal(job.ran(3), false);
  });

  test('with error: the job fails with the reason (a template)', async () => {
    const { path } = await webhookRecipe(t, [
      { keyword: 'stop', input: { stop_with_error: 'true', stop_reason: `Rejected ${payload('id')}` } },
    ]);
    const job = await fire(t, path, { id: 7 });
    assert.equal(job.status, 'failed');
    assert.equal(job.error, 'Rejected 7');
    assert.equal(job.errorType, 'Stop job');
  });
});

describe('inputs', () => {
  test('array mapping with ____source builds a list; current_item binds the item being mapped', async () => {
    const { path } = await webhookRecipe(t, [
      action('json_parser', 'parse_json_v2', 'mapped', {
        document: `=${dp('workato_webhooks', 'hook', 'payload')}.to_json`,
      }),
      action('workato_variable', 'declare_list', 'list', {
        name: 'rooms',
        list_items: {
          ____source: payload('rooms'),
          number: `#{${payloadDp('rooms', CURRENT as never, 'no')}}`,
          free: `=${payloadDp('rooms', CURRENT as never, 'status')} == 'vacant'`,
        },
      }),
    ]);
    const job = await fire(t, path, {
      rooms: [
        { no: 101, status: 'vacant' },
        { no: 102, status: 'taken' },
      ],
    });
    assert.deepEqual((job.output(2) as { list_items: unknown }).list_items, [
      { number: 101, free: true },
      { number: 102, free: false },
    ]);
  });

  test('job context and environment property pills; skip drops a field; a formula error fails the step', async () => {
    await t.call('POST', '/api/properties', { body: { properties: { region: 'eu-west' } } });
    const { id, path } = await webhookRecipe(t, [
      log(
        'ctx',
        `#{_dp('{"pill_type":"job_context","path":["recipe_id"]}')} #{_dp('{"pill_type":"account_property","property_name":"region"}')}`,
      ),
      action('json_parser', 'parse_json_v2', 'skipped', { document: '{}', extra: '=skip' }),
      log('bad', `=${payloadDp('n')} + 'x'`),
    ]);
    const job = await fire(t, path, { n: 1 });
    assert.deepEqual(job.output(1), { message: `${id} eu-west` });
    assert.deepEqual(job.input(2), { document: '{}' });
    assert.equal(job.status, 'failed');
    assert.equal(job.errorType, 'Formula error');
    assert.match(job.lines.find((l) => l.n === 3)?.error ?? '', /String can't be coerced|String/);
  });

  test("mask_data keeps a step's data out of the job record", async () => {
    const { path } = await webhookRecipe(t, [{ ...log('secret', `token ${payload('token')}`), mask_data: true }]);
    const job = await fire(t, path, { token: 's3cr3t' });
    const line = job.lines.find((l) => l.n === 1);
    assert.equal(line?.input, undefined);
    assert.equal(line?.output, undefined);
  });
});

describe('trigger filter', () => {
  test('an event the filter rejects makes no job; a filter that cannot be evaluated records a trigger error', async () => {
    const id = await createRecipe(
      t,
      webhookTrigger([log('x', 'x')], { filter: condition('greater_than', payload('amount'), '100') }),
    );
    await startRecipe(t, id);
    const path = new URL((await t.call('GET', `/api/recipes/${id}`)).body.webhook_url).pathname;
    await t.app.inject({ method: 'POST', url: path, payload: { amount: 5 } });
    await t.app.inject({ method: 'POST', url: path, payload: { amount: 500 } });
    await t.app.inject({ method: 'POST', url: path, payload: {} });
    await t.engine.idle();
    const jobs = await t.call('GET', `/api/recipes/${id}/jobs`);
    assert.equal(jobs.body.job_count, 2);
    // Listed by start time: which started first depends on when the worker took the good event.
    const poll = jobs.body.items.find((j: { is_poll_error: boolean }) => j.is_poll_error);
    const ok = jobs.body.items.find((j: { is_poll_error: boolean }) => !j.is_poll_error);
    assert.equal(ok.status, 'succeeded');
    assert.equal(poll.is_poll_error, true);
    assert.match(poll.title, /^Trigger error/);
  });
});
