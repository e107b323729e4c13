import assert from 'node:assert/strict';
import fs from 'node:fs';
import { test } from 'node:test';
import { ERROR_CATALOG } from '../src/errors.ts';

test('docs/errors.md lists exactly the codes of the catalog, with their status and message', () => {
  const doc = fs.readFileSync(new URL('../docs/errors.md', import.meta.url), 'utf8');
  const rows = [...doc.matchAll(/^\| `([a-z_]+)` \| (\d{3}) \| ([^|]+) \|/gm)].map((m) => [m[1], Number(m[2]), m[3]!.trim()]);
  const catalog = Object.entries(ERROR_CATALOG).map(([code, e]) => [code, e.status, e.message]);
  assert.deepEqual(rows, catalog);
});
