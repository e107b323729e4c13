// workato_template/create_document through recipe runs: Mustache with the step's data, bounded.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestApp, type TestApp } from '../../../test/helpers.ts';
import { action, CURRENT, dp, fire, webhookRecipe } from '../../../test/recipes.ts';
import Mustache from 'mustache';
import { renderTemplate, TEMPLATE_LIMITS } from './workato_template.ts';

let t: TestApp;
before(async () => {
  t = await createTestApp();
});
after(async () => {
  await t.close();
});

function doc(input: Record<string, unknown>) {
  return action('workato_template', 'create_document', 'doc', input);
}

describe('workato_template/create_document', () => {
  test('renders variables (escaped and raw), sections over lists and objects, inverted sections and comments', async () => {
    const template =
      '<p>{{name}}</p><p>{{{bio}}}</p>{{! a comment }}<ul>{{#items}}<li>{{sku}} x{{qty}} for {{name}}</li>{{/items}}</ul>{{#address}}{{city}}{{/address}}{{^notes}}no notes{{/notes}}{{#missing}}never{{/missing}}';
    const { path } = await webhookRecipe(t, [
      doc({
        template,
        template_input: {
          name: `#{${dp('workato_webhooks', 'hook', 'payload', 'name')}}`,
          bio: '<b>Debate</b>',
          items: {
            ____source: `#{${dp('workato_webhooks', 'hook', 'payload', 'lines')}}`,
            sku: `#{${dp('workato_webhooks', 'hook', 'payload', 'lines', CURRENT, 'sku')}}`,
            qty: `=${dp('workato_webhooks', 'hook', 'payload', 'lines', CURRENT, 'qty')}`,
          },
          address: { city: 'Lyon' },
          notes: [],
        },
      }),
    ]);
    const job = await fire(t, path, {
      name: 'Fiona & Co',
      lines: [
        { sku: 'A', qty: 2 },
        { sku: 'B', qty: 5 },
      ],
    });
    assert.equal(job.status, 'succeeded', job.error ?? '');
    assert.deepEqual(job.output(1), {
      document:
        '<p>Fiona &amp; Co</p><p><b>Debate</b></p><ul><li>A x2 for Fiona &amp; Co</li><li>B x5 for Fiona &amp; Co</li></ul>Lyonno notes',
    });
  });

  test('a broken template, a missing body and a template that multiplies past the limits fail the step', async () => {
    const { path } = await webhookRecipe(t, [doc({ template: '{{#open}} never closed', template_input: {} })]);
    const broken = await fire(t, path, {});
    assert.equal(broken.status, 'failed');
    assert.equal(broken.errorType, 'Template error');
    assert.match(broken.error ?? '', /Unclosed section "open"/);
    const { path: p2 } = await webhookRecipe(t, [doc({ template_id: '4747', template_input: {} })]);
    const missing = await fire(t, p2, {});
    assert.equal(missing.errorType, 'Not found');
    assert.equal(missing.error, 'Not found: no message template "4747" in this environment');
    const { path: p3 } = await webhookRecipe(t, [
      doc({
        template: '{{#a}}{{#a}}{{#a}}{{#a}}x{{/a}}{{/a}}{{/a}}{{/a}}',
        template_input: { a: `=${dp('workato_webhooks', 'hook', 'payload', 'a')}` },
      }),
    ]);
    const big = await fire(t, p3, { a: Array.from({ length: 100 }, (_, i) => i) });
    assert.equal(big.status, 'failed');
    assert.match(big.error ?? '', /Template error: the template took more than 1000000 rendering steps/);
  });

  test('bounds: a long template, deep sections, no code and no prototype lookups', () => {
    assert.throws(() => renderTemplate('x'.repeat(TEMPLATE_LIMITS.templateChars + 1), {}), /longer than/);
    const deep = '{{#a}}'.repeat(60) + '{{/a}}'.repeat(60);
    assert.throws(() => renderTemplate(deep, { a: { a: true } }), /nested more than 50 deep/);
    assert.equal(renderTemplate('{{constructor}}{{toString}}{{a.__proto__}}{{> partial}}', { a: {} }), '');
    assert.equal(
      renderTemplate('{{a.b.c}}-{{#list}}{{.}},{{/list}}', { a: { b: { c: 7 } }, list: [1, 'two', true] }),
      '7-1,two,true,',
    );
    assert.throws(
      () =>
        renderTemplate('{{#l}}{{{s}}}{{/l}}', { l: Array.from({ length: 2000 }, (_, i) => i), s: 'y'.repeat(3000) }),
      /longer than 5000000 characters/,
    );
  });

  test('templates rendered leave nothing behind: Mustache keeps no cache of them, however many distinct ones run', () => {
    const cache = (Mustache as unknown as { templateCache?: { _cache?: Record<string, unknown> } }).templateCache;
    const before = Object.keys(cache?._cache ?? {}).length;
    for (let i = 0; i < 500; i += 1) assert.equal(renderTemplate(`order ${i}: {{id}}`, { id: i }), `order ${i}: ${i}`);
    assert.equal(Object.keys(cache?._cache ?? {}).length, before);
  });
});

describe('stored message templates: /api/message_templates and template_id', () => {
  test('a step renders a stored template named by id, by name or by an export reference; a change is seen at once', async () => {
    const created = await t.call('POST', '/api/message_templates', {
      body: { name: 'Welcome mail', content_type: 'html', body: '<p>Hello {{name}}</p>', description: 'first mail' },
    });
    assert.equal(created.status, 200, created.text);
    assert.equal(created.body.content_type, 'html');
    const id = created.body.id as number;
    const { path } = await webhookRecipe(t, [
      action('workato_template', 'create_document', 'byId', {
        template_id: String(id),
        template_input: { name: 'Ada' },
      }),
      action('workato_template', 'create_document', 'byName', {
        template_id: 'welcome mail',
        template_input: { name: 'Bo' },
      }),
      action('workato_template', 'create_document', 'byRef', {
        template_id: { zip_name: 'welcome_mail.template.json', name: 'Welcome mail', folder: '' },
        template_input: { name: '<Cy>' },
      }),
    ]);
    const job = await fire(t, path, {});
    assert.equal(job.status, 'succeeded', job.error ?? '');
    assert.deepEqual(job.output(1), { document: '<p>Hello Ada</p>' });
    assert.deepEqual(job.output(2), { document: '<p>Hello Bo</p>' });
    assert.deepEqual(job.output(3), { document: '<p>Hello &lt;Cy&gt;</p>' });
    const changed = await t.call('PUT', `/api/message_templates/${id}`, {
      body: { body: 'Hi {{name}}', content_type: 'text' },
    });
    assert.equal(changed.status, 200, changed.text);
    assert.deepEqual((await fire(t, path, {})).output(1), { document: 'Hi Ada' });
    const list = await t.call('GET', '/api/message_templates');
    assert.deepEqual(
      (list.body.items as Array<{ name: string }>).map((x) => x.name),
      ['Welcome mail'],
    );
    assert.deepEqual((await t.call('DELETE', `/api/message_templates/${id}`)).body, { success: true });
    const gone = await fire(t, path, {});
    assert.equal(gone.errorType, 'Not found');
  });

  test('bad input: no body, a wrong type, a taken name, an oversized body, unknown ids; a step naming nothing', async () => {
    assert.equal((await t.call('POST', '/api/message_templates', { body: { name: 'X' } })).status, 400);
    const type = await t.call('POST', '/api/message_templates', {
      body: { name: 'X', body: 'x', content_type: 'pdf' },
    });
    assert.equal(type.status, 400);
    assert.equal((await t.call('POST', '/api/message_templates', { body: { name: 'Dup', body: '' } })).status, 200);
    assert.equal((await t.call('POST', '/api/message_templates', { body: { name: 'dup', body: 'x' } })).status, 422);
    const big = await t.call('POST', '/api/message_templates', { body: { name: 'Big', body: 'x'.repeat(100_001) } });
    assert.equal(big.status, 400);
    assert.equal((await t.call('GET', '/api/message_templates/999999')).status, 404);
    assert.equal((await t.call('PUT', '/api/message_templates/999999', { body: { body: 'x' } })).status, 404);
    assert.equal((await t.call('DELETE', '/api/message_templates/999999')).status, 404);
    const { path } = await webhookRecipe(t, [doc({ template_input: {} })]);
    const none = await fire(t, path, {});
    assert.equal(none.error, 'Bad request: give the template body in template, or name a stored one in template_id');
  });
});
