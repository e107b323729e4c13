// What real recipes rely on: skipped steps left unfinished, project properties, an empty "=",
// and the encode formula method.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestApp, type TestApp } from '../../test/helpers.ts';
import { action, dp, fire, log, webhookRecipe, type StepDoc } from '../../test/recipes.ts';

let t: TestApp;
before(async () => {
  t = await createTestApp();
});
after(() => t.close());

describe('skipped steps', () => {
  test('a skipped step may be broken (unknown connector, bad formula, an if with broken steps inside): the recipe starts and runs, pills to it are nil', async () => {
    const broken: StepDoc[] = [
      { ...action('salesforce', 'search_sobjects', 'sf', { sobject_name: '=1 +', limit: '#{unclosed' }), skip: true },
      {
        keyword: 'if',
        skip: true,
        input: { operand: 'and', conditions: 'not a list' },
        block: [action('no_such_connector', 'x', 'inner', { v: '=nope(' })],
      },
      log('after', `[#{${dp('salesforce', 'sf', 'records')}}][#{${dp('no_such_connector', 'inner', 'v')}}]`),
    ];
    const { path } = await webhookRecipe(t, broken);
    const job = await fire(t, path, {});
    assert.equal(job.status, 'succeeded', JSON.stringify(job.lines));
    assert.equal(job.ran(1), false);
    assert.equal(job.ran(2), false);
    assert.deepEqual(job.output(4), { message: '[][]' });
  });
});

describe('properties and formulas', () => {
  test("project_property pills read the recipe's project properties (over the environment's)", async () => {
    const project = await t.createProject('Props');
    assert.equal(
      (await t.call('POST', '/api/properties', { body: { properties: { region: 'env-wide', tier: 'gold' } } })).status,
      200,
    );
    assert.equal(
      (
        await t.call('POST', '/api/properties', {
          body: { project_id: project.projectId, properties: { region: 'eu-west' } },
        })
      ).status,
      200,
    );
    const prop = (name: string, type: string) => `_dp('${JSON.stringify({ pill_type: type, property_name: name })}')`;
    const { path } = await webhookRecipe(
      t,
      [log('say', `#{${prop('region', 'project_property')}} #{${prop('tier', 'account_property')}}`)],
      { folder_id: project.folderId },
    );
    const job = await fire(t, path, {});
    assert.deepEqual(job.output(1), { message: 'eu-west gold' });
  });

  test('a field that is only "=" gives nothing', async () => {
    const { path } = await webhookRecipe(t, [
      action('workato_variable', 'declare_variable', 'v', { name: '=', value: 'x' }),
      log('say', '='),
    ]);
    const job = await fire(t, path, {});
    assert.equal(job.status, 'succeeded', JSON.stringify(job.lines));
    assert.deepEqual(job.input(2), { message: null });
  });

  test('encode: UTF-8 keeps the text; ASCII with replace; a character ASCII lacks fails the step; an unknown encoding fails', async () => {
    const p = (...path: string[]) => dp('workato_webhooks', 'hook', 'payload', ...path);
    const { path } = await webhookRecipe(t, [
      log('utf8', `=${p('name')}.encode('UTF-8')`),
      log('ascii', `=${p('name')}.encode('ASCII', invalid: :replace, undef: :replace, replace: '?')`),
      log('latin', `=${p('name')}.encode('ISO-8859-1')`),
    ]);
    const job = await fire(t, path, { name: 'Zoë Čapek' });
    assert.deepEqual([job.output(1), job.output(2)], [{ message: 'Zoë Čapek' }, { message: 'Zo? ?apek' }]);
    assert.equal(job.status, 'failed');
    assert.match(job.error ?? '', /encode: "Č" cannot be represented in ISO-8859-1/);
    const unknown = await webhookRecipe(t, [log('x', `=${p('name')}.encode('EBCDIC')`)]);
    const failed = await fire(t, unknown.path, { name: 'a' });
    assert.match(failed.error ?? '', /encode: unknown encoding EBCDIC/);
  });
});
