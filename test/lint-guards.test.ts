// The guards of `npm run lint` stay armed: ESLint, with the repository's own config, is given a
// file that breaks each guard once (under the path where such a file would land) and must report
// it; the same code where the house allows it must pass. Every exception in the config carries a
// reason and still names a file, and every disable comment of a guard says why.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { ESLint } from 'eslint';

const ROOT = path.resolve(import.meta.dirname, '..');
const CONFIG: string = '../eslint.config.js';
const { FUNCTION_LENGTH_EXCEPTIONS } = (await import(CONFIG)) as {
  FUNCTION_LENGTH_EXCEPTIONS: { files: string[]; why: string; max?: number }[];
};
const eslint = new ESLint({ cwd: ROOT });
const GUARDS = ['max-lines', 'max-lines-per-function', 'no-restricted-syntax', 'house/layers'];

/** The guard rules ESLint reports for `code` placed at `file` (a path relative to the repository). */
async function guardsHit(file: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: path.join(ROOT, file) });
  assert.ok(result, `ESLint linted ${file}`);
  const fatal = result.messages.filter((m) => m.fatal);
  assert.deepEqual(fatal, [], `${file} parses`);
  return [...new Set(result.messages.map((m) => m.ruleId ?? ''))].filter((id) => GUARDS.includes(id));
}

const lines = (n: number, make: (i: number) => string) => Array.from({ length: n }, (_, i) => make(i)).join('\n');
const longFile = (n: number) => lines(n, (i) => `export const value${i} = ${i};`) + '\n';
const longFunction = (n: number) =>
  `export function long(): number {\n  let total = 0;\n${lines(n, (i) => `  total += ${i};`)}\n  return total;\n}\n`;
const query =
  "import type { Kysely } from 'kysely';\n" +
  "export const names = (db: Kysely<{ folders: { name: string } }>) => db.selectFrom('folders').select('name').execute();\n";

describe('npm run lint guards', () => {
  test('a 601-line file fails; 600 lines pass', async () => {
    assert.deepEqual(await guardsHit('src/api/folders/lint-probe.ts', longFile(601)), ['max-lines']);
    assert.deepEqual(await guardsHit('src/api/folders/lint-probe.ts', longFile(600)), []);
  });

  test('a 200-line function fails; 150 lines pass', async () => {
    assert.deepEqual(await guardsHit('src/api/folders/lint-probe.ts', longFunction(200)), ['max-lines-per-function']);
    assert.deepEqual(await guardsHit('src/api/folders/lint-probe.ts', longFunction(146)), []);
  });

  test('a query outside a store fails; in a store or src/db/ it passes', async () => {
    assert.deepEqual(await guardsHit('src/api/folders/folders.service-probe.ts', query), ['no-restricted-syntax']);
    assert.deepEqual(await guardsHit('src/engine/lint-probe.ts', query), ['no-restricted-syntax']);
    assert.deepEqual(
      await guardsHit(
        'src/api/folders/lint-probe.ts',
        "import { sql } from 'kysely';\nexport const now = sql`now()`;\n",
      ),
      ['no-restricted-syntax'],
    );
    assert.deepEqual(await guardsHit('src/api/folders/lint-probe.store.ts', query), []);
    assert.deepEqual(await guardsHit('src/db/lint-probe.ts', query), []);
  });

  test('an import across a forbidden layer fails; an allowed one passes', async () => {
    const probe = (spec: string) => `import { thing } from '${spec}';\nexport const again = thing;\n`;
    assert.deepEqual(await guardsHit('src/api/folders/lint-probe.ts', probe('../../engine/engine.ts')), [
      'house/layers',
    ]);
    assert.deepEqual(await guardsHit('src/db/lint-probe.ts', probe('../api/folders/folders.store.ts')), [
      'house/layers',
    ]);
    assert.deepEqual(await guardsHit('src/recipe/lint-probe.ts', probe('../engine/compile.ts')), ['house/layers']);
    assert.deepEqual(await guardsHit('src/api/folders/lint-probe.ts', probe('../../db/dialect.ts')), []);
    assert.deepEqual(await guardsHit('src/engine/lint-probe.ts', probe('../recipe/document.ts')), []);
  });
});

/** Every file of the repository's source folders, relative to the root with `/` separators. */
function sourceFiles(): string[] {
  const out: string[] = [];
  for (const top of ['src', 'test', 'bench', 'soak', 'lint']) {
    for (const entry of readdirSync(path.join(ROOT, top), { recursive: true, withFileTypes: true })) {
      if (!entry.isFile() || !/\.(ts|js)$/.test(entry.name)) continue;
      out.push(path.relative(ROOT, path.join(entry.parentPath, entry.name)).split(path.sep).join('/'));
    }
  }
  return out;
}

describe('exceptions to the guards', () => {
  const files = sourceFiles();

  test('each exception in eslint.config.js gives its reason and still names a file', () => {
    assert.ok(FUNCTION_LENGTH_EXCEPTIONS.length > 0);
    for (const exception of FUNCTION_LENGTH_EXCEPTIONS) {
      assert.ok(exception.why.trim().length >= 20, `exception for ${exception.files.join(', ')} gives a reason`);
      for (const glob of exception.files)
        assert.ok(
          files.some((file) => path.matchesGlob(file, glob)),
          `exception ${glob} names no file any more: remove it from eslint.config.js`,
        );
    }
  });

  test('a comment that turns a guard off says why (`-- reason`)', () => {
    const silent: string[] = [];
    for (const file of files) {
      const text = readFileSync(path.join(ROOT, file), 'utf8');
      for (const match of text.matchAll(/eslint-disable(?:-next-line|-line)?\s+([^\n*]*)/g)) {
        const [rules, reason] = match[1]!.split(' -- ');
        if (GUARDS.some((guard) => rules!.includes(guard)) && !reason?.trim()) silent.push(`${file}: ${match[0]}`);
      }
    }
    assert.deepEqual(silent, []);
  });
});
