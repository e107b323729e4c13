// Skills, Genies and AI steps against a local stand-in of a Chat Completions server: the Genie's
// agent loop calls skills as jobs; each AI by Workato action is one model call; and a model that
// answers nonsense, calls an unknown tool, loops, is slow or spends too much fails the step
// clearly, nothing else.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestApp, type TestApp } from '../../../test/helpers.ts';
import {
  action,
  createRecipe,
  numbered,
  pill,
  readJob,
  skillRecipe,
  startRecipe,
  webhookRecipe,
  type RanJob,
  type StepDoc,
} from '../../../test/recipes.ts';
import {
  startModelStandIn,
  type ChatRequestSeen,
  type ModelStandIn,
} from '../../../test/stand-ins/chat-completions.ts';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- assertions read the stored JSON of lines
type Json = any;

let t: TestApp;
let model: ModelStandIn;

before(async () => {
  model = await startModelStandIn({ apiKey: 'sk-local-test', model: 'llama3.2' });
  t = await createTestApp({ env: { MODEL_TIMEOUT_MS: '2000' } });
});
after(async () => {
  await t.close();
  await model.close();
});

const param = (name: string) => pill('workato_skill', 'start', 'parameters', name);

async function skill(name: string, code: StepDoc): Promise<{ recipeId: number; handle: string }> {
  const recipeId = await createRecipe(t, code, { name });
  await startRecipe(t, recipeId);
  const res = await t.call('POST', '/api/agentic/skills', { body: { recipe_id: recipeId } });
  assert.equal(res.status, 200, res.text);
  return { recipeId, handle: res.body.data.id };
}

async function genieRun(input: StepDoc): Promise<{ job: RanJob; jobId: number; recipeId: number }> {
  const { id, path } = await webhookRecipe(t, [action('workato_genie', 'assign_task_to_genie', 'genie', input)]);
  const res = await t.app.inject({ method: 'POST', url: path, payload: {} });
  assert.equal(res.statusCode, 200, res.body);
  await t.engine.idle();
  const row = await t.ctx.db.selectFrom('jobs').select('id').where('recipe_id', '=', id).executeTakeFirstOrThrow();
  return { job: await readJob(t, row.id), jobId: row.id, recipeId: id };
}

async function aiStep(name: string, input: StepDoc): Promise<RanJob> {
  const { id, path } = await webhookRecipe(t, [action('open_ai_utility', name, 'ai', input)]);
  const res = await t.app.inject({ method: 'POST', url: path, payload: {} });
  assert.equal(res.statusCode, 200, res.body);
  await t.engine.idle();
  const row = await t.ctx.db.selectFrom('jobs').select('id').where('recipe_id', '=', id).executeTakeFirstOrThrow();
  return readJob(t, row.id);
}

const lastUser = (r: ChatRequestSeen) => String(r.messages.filter((m) => m.role === 'user').at(-1)?.content ?? '');
const toolReplies = (r: ChatRequestSeen) => r.messages.filter((m) => m.role === 'tool').map((m) => String(m.content));

describe('model connection', () => {
  test('without a model connection an AI step fails with a clear Connection error', async () => {
    const job = await aiStep('summarize_text', { text: 'Long text.' });
    assert.equal(job.status, 'failed');
    assert.equal(job.errorType, 'Connection error');
    assert.match(job.error ?? '', /no model connection: create a connection of provider openai_compatible/);
    assert.equal(model.requests.length, 0);
  });

  test('POST /api/connections with provider openai_compatible checks base_url and model', async () => {
    const bad = await t.call('POST', '/api/connections', {
      body: { name: 'Bad model', provider: 'openai_compatible', input: { base_url: 'ftp://x', model: 'm' } },
    });
    assert.equal(bad.status, 400, bad.text);
    const missing = await t.call('POST', '/api/connections', {
      body: { name: 'No model', provider: 'openai_compatible', input: { base_url: model.baseUrl } },
    });
    assert.equal(missing.status, 200, missing.text);
    assert.equal(missing.body.authorization_status, 'failed');
    assert.match(missing.body.authorization_error, /model is required/);
    const ok = await t.call('POST', '/api/connections', {
      body: {
        name: 'Local model',
        provider: 'openai_compatible',
        input: { base_url: model.baseUrl, api_key: 'sk-local-test', model: 'llama3.2' },
      },
    });
    assert.equal(ok.status, 200, ok.text);
    assert.equal(ok.body.authorization_status, 'success');
    assert.ok(!ok.text.includes('sk-local-test'), 'the key is never shown');
  });
});

describe('workato_genie assign_task_to_genie', () => {
  test('a Genie answers a question by calling two skills, each a job, every turn in the line', async () => {
    const order = await skill(
      'Get order status',
      skillRecipe(
        'Look up the status of an order by its number.',
        [{ name: 'order_id', label: 'Order number', type: 'string', optional: false, hint: 'e.g. 42' }],
        { status: 'shipped', order: `#{${param('order_id').slice(2, -1)}}` },
      ),
    );
    const eta = await skill(
      'Shipping ETA',
      skillRecipe(
        'Days until a carrier delivers.',
        [{ name: 'carrier', label: 'Carrier', type: 'string', optional: false }],
        { days: '2' },
      ),
    );
    model.setScript((request, index) => {
      const replies = toolReplies(request);
      if (replies.length === 0) return { toolCalls: [{ name: 'Get_order_status', arguments: { order_id: '42' } }] };
      if (replies.length === 1) return { toolCalls: [{ name: 'Shipping_ETA', arguments: { carrier: 'DHL' } }] };
      const status = JSON.parse(replies[0] as string) as { status: string; order: string };
      const days = JSON.parse(replies[1] as string) as { days: string };
      return { content: `Order ${status.order} is ${status.status}; it arrives in ${days.days} days. (${index})` };
    });
    const before = model.requests.length;
    const { job, jobId } = await genieRun({
      instructions: 'You are the support desk of an online shop.',
      task_instructions: 'Where is my order 42?',
      skills: [order.handle, String(eta.recipeId)],
    });
    assert.equal(job.status, 'succeeded', job.error ?? '');
    const out = job.output(1) as Record<string, Json>;
    assert.match(out.response, /^Order 42 is shipped; it arrives in 2 days\./);
    assert.equal(out.turn_count, 3);
    assert.equal(out.model, 'llama3.2');
    assert.equal(out.turns.length, 3);
    assert.deepEqual(
      out.turns.map((turn: Json) => turn.tool_calls.map((c: Json) => c.name)),
      [['Get_order_status'], ['Shipping_ETA'], []],
    );
    assert.equal(out.usage.total_tokens, 90);
    // Each skill call was a job of the skill's recipe, called by the Genie's job.
    const genieHandle = (
      await t.ctx.db.selectFrom('jobs').select('handle').where('id', '=', jobId).executeTakeFirstOrThrow()
    ).handle;
    for (const [turn, recipeId] of [
      [0, order.recipeId],
      [1, eta.recipeId],
    ] as const) {
      const call = out.turns[turn].tool_calls[0];
      assert.equal(call.ok, true);
      const skillJob = await t.ctx.db
        .selectFrom('jobs')
        .selectAll()
        .where('handle', '=', call.job_id)
        .executeTakeFirstOrThrow();
      assert.equal(skillJob.recipe_id, recipeId);
      assert.equal(skillJob.status, 'succeeded');
      assert.equal(skillJob.calling_job_handle, genieHandle);
    }
    // What the model was sent: the instructions, the task, the skills with their JSON Schema.
    const first = model.requests[before] as ChatRequestSeen;
    assert.equal(first.authorization, 'Bearer sk-local-test');
    assert.equal(first.stream, true);
    assert.deepEqual(first.messages.slice(0, 2), [
      { role: 'system', content: 'You are the support desk of an online shop.' },
      { role: 'user', content: 'Where is my order 42?' },
    ]);
    assert.deepEqual(first.tools?.[0], {
      type: 'function',
      function: {
        name: 'Get_order_status',
        description: 'Look up the status of an order by its number.',
        parameters: {
          type: 'object',
          properties: { order_id: { type: 'string', description: 'Order number: e.g. 42' } },
          required: ['order_id'],
        },
      },
    });
  });

  test('a call of an unknown tool or with bad arguments goes back to the model, which can recover', async () => {
    const echo = await skill(
      'Echo',
      skillRecipe('Echo a word.', [{ name: 'word', type: 'string', optional: false }], { said: 'yes' }),
    );
    model.setScript((request) => {
      const replies = toolReplies(request);
      if (replies.length === 0) return { toolCalls: [{ name: 'delete_everything', arguments: {} }] };
      if (replies.length === 1) return { toolCalls: [{ name: 'Echo', arguments: '{"word": ' }] };
      if (replies.length === 2) return { toolCalls: [{ name: 'Echo', arguments: {} }] };
      return { content: `Recovered after: ${replies.join(' | ')}` };
    });
    const { job } = await genieRun({ task_instructions: 'Say hi', skills: [echo.handle] });
    assert.equal(job.status, 'succeeded', job.error ?? '');
    const out = job.output(1) as Record<string, Json>;
    assert.match(out.response, /there is no tool named "delete_everything". Available tools: Echo/);
    assert.match(out.response, /must be a JSON object/);
    assert.match(out.response, /parameter "word" is required/);
    assert.deepEqual(
      out.turns.slice(0, 3).map((turn: Json) => turn.tool_calls[0].ok),
      [false, false, false],
    );
  });

  test('a model that loops stops at max_turns; one over budget at max_tokens; nonsense, errors and slowness fail clearly', async () => {
    const echo = await skill('Loop', skillRecipe('Loops.', [], { again: 'yes' }));
    model.setScript(() => ({ toolCalls: [{ name: 'Loop', arguments: {} }] }));
    let run = await genieRun({ task_instructions: 'Go', skills: [echo.handle], max_turns: '3' });
    assert.equal(run.job.status, 'failed');
    assert.equal(run.job.errorType, 'Turn limit exceeded');
    assert.match(run.job.error ?? '', /did not answer within 3 turns/);

    model.setScript(() => ({ content: 'Long answer', usage: { prompt_tokens: 900, completion_tokens: 200 } }));
    run = await genieRun({ task_instructions: 'Go', max_tokens: '1000' });
    assert.equal(run.job.errorType, 'Token budget exceeded');
    assert.match(run.job.error ?? '', /used 1100 tokens, more than its budget of 1000/);
    // The budget's remainder is what the model may still write.
    assert.equal(model.requests.at(-1)?.max_tokens, 1000);

    model.setScript(() => ({ raw: 'I am not JSON at all' }));
    run = await genieRun({ task_instructions: 'Go' });
    assert.equal(run.job.errorType, 'Model error');
    assert.match(run.job.error ?? '', /not Chat Completions JSON/);

    model.setScript(() => ({ content: '' }));
    run = await genieRun({ task_instructions: 'Go' });
    assert.equal(run.job.errorType, 'Model error');
    assert.match(run.job.error ?? '', /neither text nor a tool call/);

    model.setScript(() => ({ status: 500 }));
    run = await genieRun({ task_instructions: 'Go' });
    assert.equal(run.job.errorType, 'Model error');
    assert.match(run.job.error ?? '', /HTTP 500: The server had an error/);

    model.setScript(() => ({ content: 'late', delayMs: 6000 }));
    run = await genieRun({ task_instructions: 'Go' });
    assert.equal(run.job.errorType, 'Timeout');
    assert.match(run.job.error ?? '', /did not answer within 2000 ms/);
  });

  test('bad step input: a recipe that is not a skill, unknown skills, bounds out of range', async () => {
    const plain = await createRecipe(
      t,
      numbered({ keyword: 'trigger', provider: 'clock', name: 'scheduled_event', as: 's', input: {}, block: [] }),
    );
    for (const [input, pattern] of [
      [{ task_instructions: 'x', skills: [String(plain)] }, /is not a skill/],
      [{ task_instructions: 'x', skills: ['skill-nope'] }, /does not exist in this environment/],
      [{ task_instructions: 'x', max_turns: '0' }, /max_turns must be an integer from 1 to 50/],
      [{ task_instructions: 'x', conversation: 'hello' }, /conversation must be a list/],
      [{ task_instructions: 'x', genie_handle: { name: 'Support' } }, /Genie assets \(genie_handle\) are not kept/],
    ] as const) {
      const { job } = await genieRun(input as StepDoc);
      assert.equal(job.status, 'failed');
      assert.equal(job.errorType, 'Bad request');
      assert.match(job.error ?? '', pattern);
    }
  });
});

describe('open_ai_utility', () => {
  test('each AI action is one model call and gives its output', async () => {
    const answers: Record<string, string> = {
      Analyze: 'The customer is angry.',
      Classify: 'Billing',
      Draft: 'Sure: {"subject": "Welcome", "body": "Hello Ada"}',
      Extract: '```json\n{"name": "Ada", "age": 36, "extra": 1}\n```',
      Summarize: 'Short.',
      Translate: 'Bonjour',
      image: 'A cat.',
    };
    model.setScript((request) => {
      const system = String(request.messages[0]?.content ?? '');
      const key = Object.keys(answers).find((k) => system.includes(k) || JSON.stringify(request.messages).includes(k));
      return { content: key ? answers[key] : 'unexpected', noStream: system.startsWith('Summarize') };
    });
    const cases: Array<[string, StepDoc, Record<string, unknown>]> = [
      [
        'analyse_document',
        { text: 'I was charged twice!', question: 'Analyze the mood' },
        { analysis_result: 'The customer is angry.' },
      ],
      [
        'analyse_image',
        { image: 'https://example.com/cat.png', question: 'What is in the image?' },
        { analysis_result: 'A cat.' },
      ],
      [
        'categorise_text',
        {
          text: 'My invoice is wrong',
          categories: [{ key: 'Billing', rule: 'Classify money matters' }, { key: 'Shipping' }],
        },
        { category: 'Billing' },
      ],
      ['draft_email', { email_description: 'Draft a welcome mail to Ada' }, { subject: 'Welcome', body: 'Hello Ada' }],
      [
        'parse_text_v2',
        {
          text: 'Ada is 36.',
          fields: JSON.stringify([
            { name: 'name', type: 'string' },
            { name: 'age', type: 'integer' },
            { name: 'city' },
          ]),
        },
        { name: 'Ada', age: 36, city: null },
      ],
      ['summarize_text', { text: 'A long text.', max_words: '5' }, { summary: 'Short.' }],
      ['translate_text', { text: 'Hello', to_language: 'French' }, { translation: 'Bonjour' }],
    ];
    for (const [name, input, expected] of cases) {
      const job = await aiStep(name, input);
      assert.equal(job.status, 'succeeded', `${name}: ${job.error}`);
      assert.deepEqual(job.output(1), expected, name);
    }
    const image = model.requests.find((r) => JSON.stringify(r.messages).includes('cat.png'));
    assert.deepEqual((image?.messages[1]?.content as Json[])[1], {
      type: 'image_url',
      image_url: { url: 'https://example.com/cat.png' },
    });
    assert.match(
      lastUser(model.requests.find((r) => lastUser(r).includes('charged twice')) as ChatRequestSeen),
      /Instruction:\nAnalyze the mood/,
    );
  });

  test('bad input fails the step before any model call; a category the model invents is nil', async () => {
    const count = model.requests.length;
    let job = await aiStep('summarize_text', { text: 'x', max_words: 'many' });
    assert.equal(job.errorType, 'Bad request');
    job = await aiStep('categorise_text', { text: 'x', categories: [] });
    assert.match(job.error ?? '', /categories must name 1 to 100 categories/);
    job = await aiStep('parse_text_v2', { text: 'x', fields: '[]' });
    assert.match(job.error ?? '', /fields must list the fields/);
    assert.equal(model.requests.length, count);
    model.setScript(() => ({ content: 'Gardening' }));
    job = await aiStep('categorise_text', { text: 'x', categories: 'Billing, Shipping' });
    assert.equal(job.status, 'succeeded');
    assert.deepEqual(job.output(1), { category: null });
  });
});
