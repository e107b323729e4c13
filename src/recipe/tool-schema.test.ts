// A recipe as a tool: its kind, description and the JSON Schema of its parameters, read from the
// trigger; bounded on huge or deep schemas; arguments checked at the top level.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { argumentProblems, recipeTool, toolNameOf, uniqueNames } from './tool-schema.ts';

const skill = (input: Record<string, unknown>) => ({
  trigger_application: 'workato_skill',
  code: JSON.stringify({ provider: 'workato_skill', name: 'start_workflow', input }),
});

describe('recipeTool', () => {
  test('skill parameters, endpoint request schemas and other triggers', () => {
    const tool = recipeTool(
      skill({
        description: 'Find orders.',
        parameters_schema_json: JSON.stringify([
          { name: 'since', type: 'date_time', optional: false, label: 'Since', hint: 'ISO 8601' },
          { name: 'ids', type: 'array', of: 'integer' },
          { name: 'filter', type: 'object', properties: [{ name: 'status', type: 'string', optional: false }] },
          { name: 'rows', type: 'array', of: 'object', properties: [{ name: 'sku' }] },
          { name: 'flag', type: 'boolean', optional: 'false' },
          { name: '' },
          'junk',
        ]),
      }),
    );
    assert.equal(tool?.kind, 'skill');
    assert.equal(tool?.description, 'Find orders.');
    assert.deepEqual(tool?.inputSchema, {
      type: 'object',
      properties: {
        since: { type: 'string', format: 'date-time', description: 'Since: ISO 8601' },
        ids: { type: 'array', items: { type: 'integer' } },
        filter: { type: 'object', properties: { status: { type: 'string' } }, required: ['status'] },
        rows: { type: 'array', items: { type: 'object', properties: { sku: { type: 'string' } } } },
        flag: { type: 'boolean' },
      },
      required: ['since', 'flag'],
    });
    const endpoint = recipeTool({
      trigger_application: 'workato_api_platform',
      code: JSON.stringify({ input: { request: { schema: '[{"name":"sku","type":"string","optional":false}]' } } }),
    });
    assert.deepEqual(endpoint, {
      kind: 'endpoint',
      description: '',
      inputSchema: { type: 'object', properties: { sku: { type: 'string' } }, required: ['sku'] },
    });
    assert.equal(recipeTool({ trigger_application: 'clock', code: '{}' }), null);
    assert.deepEqual(recipeTool(skill({ parameters_schema_json: '{not json' }))?.inputSchema, {
      type: 'object',
      properties: {},
    });
  });

  test('100,000 fields and nesting 1,000 deep are cut to 500 fields and depth 8, quickly', () => {
    const many = Array.from({ length: 100_000 }, (_, i) => ({ name: `f${i}`, type: 'string' }));
    let deep: Record<string, unknown> = { name: 'leaf', type: 'string' };
    for (let i = 0; i < 1_000; i++) deep = { name: `n${i}`, type: 'object', properties: [deep] };
    const started = performance.now();
    const wide = recipeTool(skill({ parameters_schema_json: JSON.stringify(many) }));
    const tall = recipeTool(skill({ parameters_schema_json: [deep] }));
    assert.ok(performance.now() - started < 5000);
    assert.equal(Object.keys(wide?.inputSchema.properties ?? {}).length, 500);
    let depth = 0;
    let node = tall?.inputSchema as { properties?: Record<string, unknown> } | undefined;
    while (node?.properties) {
      node = Object.values(node.properties)[0] as typeof node;
      depth += 1;
    }
    assert.ok(depth <= 9, `depth ${depth}`);
  });
});

describe('tool names and arguments', () => {
  test('names are MCP-safe, at most 64 characters, unique in a list', () => {
    assert.equal(toolNameOf('Get order: status (v2)'), 'Get_order_status_v2');
    assert.equal(toolNameOf('Crème brûlée'), 'Creme_brulee');
    assert.equal(toolNameOf('!!!'), 'tool');
    assert.equal(toolNameOf('x'.repeat(100)).length, 64);
    const items = [
      { id: 1, name: 'Same' },
      { id: 2, name: 'Same' },
    ];
    assert.deepEqual(
      [
        ...uniqueNames(
          items,
          (i) => i.name,
          (i) => i.id,
        ).values(),
      ],
      ['Same', 'Same_2'],
    );
  });

  test('required parameters and scalar types', () => {
    const schema = {
      type: 'object',
      properties: { n: { type: 'integer' }, s: { type: 'string' }, l: { type: 'array' } },
      required: ['n'],
    };
    assert.equal(argumentProblems(schema, { n: 1, s: 'x', l: [] }), null);
    assert.equal(argumentProblems(schema, {}), 'parameter "n" is required');
    assert.equal(argumentProblems(schema, { n: 1.5 }), 'parameter "n" must be of type integer');
    assert.equal(argumentProblems(schema, { n: 1, l: {} }), 'parameter "l" must be of type array');
    assert.equal(argumentProblems(schema, { n: 1, extra: { any: 1 } }), null);
  });
});
