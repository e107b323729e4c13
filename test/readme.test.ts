// The README stays a front page: at most 250 lines, and every file it links to exists. Walkthroughs
// live in docs/guides/, figures in docs/performance.md.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { describe, test } from 'node:test';

const root = new URL('../', import.meta.url);
const README = readFileSync(new URL('README.md', root), 'utf8');
const GUIDES = readdirSync(new URL('docs/guides/', root))
  .filter((f) => f.endsWith('.md'))
  .map((f) => f.slice(0, -3));

describe('README.md', () => {
  test('is at most 250 lines', () => {
    const lines = README.split('\n').length - (README.endsWith('\n') ? 1 : 0);
    assert.ok(
      lines <= 250,
      `README.md has ${lines} lines; move walkthroughs to docs/guides/, figures to docs/performance.md`,
    );
  });

  test('links only to files that exist', () => {
    const links = [...README.matchAll(/\]\(([^)#:]+)(#[^)]*)?\)/g)].map((m) => m[1]!);
    assert.ok(links.length > 0);
    for (const link of links)
      assert.ok(existsSync(new URL(link, root)), `README.md links to ${link}, which does not exist`);
  });

  test('links to every guide in docs/guides/', () => {
    for (const guide of GUIDES)
      assert.ok(README.includes(`(docs/guides/${guide}.md)`), `README.md links to docs/guides/${guide}.md`);
  });
});

describe('docs/guides/', () => {
  test('every link in a guide names a file that exists', () => {
    for (const guide of GUIDES) {
      const base = new URL(`docs/guides/${guide}.md`, root);
      const text = readFileSync(base, 'utf8');
      for (const m of text.matchAll(/\]\(([^)#:]+)(#[^)]*)?\)/g))
        assert.ok(existsSync(new URL(m[1]!, base)), `docs/guides/${guide}.md links to ${m[1]}, which does not exist`);
    }
  });
});
