import assert from 'node:assert/strict';
import fs from 'node:fs';
import { describe, test } from 'node:test';
import { AppError, ERROR_CATALOG, invalid } from '../src/errors.ts';
import { GATEWAY_ERRORS } from '../src/http/gateway-errors.ts';
import { OAUTH_ERRORS, OAuthError } from '../src/oauth2/errors.ts';
import { WEBHOOK_ERRORS } from '../src/engine/webhook-errors.ts';
import { MAX_EVENT_DEPTH } from '../src/recipe/formula/values.ts';

const doc = fs.readFileSync(new URL('../docs/errors.md', import.meta.url), 'utf8');

/** The rows of the table under `## <heading>`: the code, then each cell but the last (the "when"). */
function tableRows(heading: string): Array<Array<string | number>> {
  const start = doc.indexOf(`\n## ${heading}\n`);
  assert.ok(start >= 0, `docs/errors.md has a "${heading}" section`);
  const end = doc.indexOf('\n## ', start + 1);
  const section = doc.slice(start, end < 0 ? undefined : end);
  return [...section.matchAll(/^\| `([a-z0-9_]+)` \|(.*)\|$/gm)].map((m) => {
    const cells = m[2]!.split(' | ').map((cell) => cell.trim());
    return [m[1]!, Number(cells[0]), ...cells.slice(1, -1)];
  });
}

describe('docs/errors.md', () => {
  test('lists exactly the codes of the management API catalog, with their status and message', () => {
    const catalog = Object.entries(ERROR_CATALOG).map(([code, e]) => [code, e.status, e.message]);
    assert.deepEqual(tableRows('Management API'), catalog);
  });

  test('lists exactly the codes of the gateway catalog, with their status and error', () => {
    const catalog = Object.entries(GATEWAY_ERRORS).map(([code, e]) => [code, e.status, e.error]);
    assert.deepEqual(tableRows('Gateway'), catalog);
  });

  test('lists exactly the codes of the inbound webhooks catalog, with their status and error', () => {
    const catalog = Object.entries(WEBHOOK_ERRORS).map(([code, e]) => [code, e.status, e.error]);
    assert.deepEqual(tableRows('Inbound webhooks'), catalog);
    assert.ok(
      WEBHOOK_ERRORS.payload_too_deep.error.includes(` ${MAX_EVENT_DEPTH} levels`),
      'the text names the depth the engine enforces',
    );
  });

  test('lists exactly the codes of the token endpoint catalog, with their status, error and description', () => {
    const catalog = Object.entries(OAUTH_ERRORS).map(([code, e]) => [code, e.status, e.error, e.description]);
    assert.deepEqual(tableRows('Token endpoint'), catalog);
  });
});

describe('the catalogs', () => {
  test('every code is raised somewhere in src/: the tables list no error a client cannot meet', () => {
    // Every source file but the tests, less the catalogs' own entries.
    const sources = fs
      .readdirSync(new URL('../src', import.meta.url), { recursive: true, encoding: 'utf8' })
      .filter((file) => file.endsWith('.ts') && !file.endsWith('.test.ts'))
      .map((file) => fs.readFileSync(new URL(`../src/${file}`, import.meta.url), 'utf8'))
      .join('\n')
      .replace(/^ +[a-z0-9_]+: \{ status: .*$/gm, '');
    const unused = [
      ...Object.keys(ERROR_CATALOG),
      ...Object.keys(GATEWAY_ERRORS),
      ...Object.keys(OAUTH_ERRORS),
      ...Object.keys(WEBHOOK_ERRORS),
    ].filter((code) => !sources.includes(`'${code}'`) && !sources.includes(`.${code}.`));
    // validation_failed is raised by invalid(), which lives beside the catalog.
    assert.deepEqual(
      unused.filter((code) => code !== 'validation_failed'),
      [],
    );
  });

  test('texts hold only {placeholders} of lower-case names', () => {
    const texts = [
      ...Object.values(ERROR_CATALOG).map((e) => e.message),
      ...Object.values(GATEWAY_ERRORS).map((e) => e.error),
      ...Object.values(OAUTH_ERRORS).map((e) => e.description),
    ];
    for (const text of texts) assert.equal(text.replace(/\{[a-z_]+\}/g, '').match(/[{}]/), null, text);
  });
});

describe('AppError', () => {
  test('takes its status and message from the catalog', () => {
    const error = new AppError('recipe_already_running');
    assert.equal(error.status, 400);
    assert.equal(error.message, "Can't change the recipe state: invalid state running");
  });

  test('fills the placeholders of the message with the values given', () => {
    assert.equal(
      new AppError('folders_out_of_scope', { params: { folders: '3, 4' } }).message,
      'Forbidden: projects outside your scope: 3, 4',
    );
    assert.equal(
      new AppError('too_many_properties', { params: { max: 1000, level: 'project' } }).message,
      'Too many properties: at most 1000 per project',
    );
  });

  test('refuses a text of its own and a code without its values (the type checker says so; at run time the catalog wins)', () => {
    // @ts-expect-error the catalog owns the message
    assert.equal(new AppError('not_found', { message: 'Gone' }).message, 'Not found');
    assert.throws(() => {
      // @ts-expect-error this message needs {folders}
      throw new AppError('folders_out_of_scope');
    }, AppError);
    // @ts-expect-error not_found has no placeholders
    assert.equal(new AppError('not_found', { params: { id: 1 } }).message, 'Not found');
  });

  test('invalid(errors) reads as its first field error', () => {
    const error = invalid({ name: ["can't be blank"], description: ['is too long'] });
    assert.equal(error.code, 'validation_failed');
    assert.equal(error.status, 400);
    assert.equal(error.message, "Name can't be blank");
    assert.deepEqual(error.errors, { name: ["can't be blank"], description: ['is too long'] });
    assert.equal(invalid({}).message, 'Validation failed');
  });
});

describe('OAuthError', () => {
  test('takes its status, RFC 6749 error and description from the catalog', () => {
    const error = new OAuthError('parameter_repeated', { params: { name: 'client_id' } });
    assert.deepEqual(
      [error.status, error.error, error.message],
      [400, 'invalid_request', 'The client_id parameter is repeated.'],
    );
    assert.equal(
      // @ts-expect-error the catalog owns the description
      new OAuthError('grant_type_missing', 'Something else').message,
      'The grant_type parameter is missing.',
    );
  });
});
