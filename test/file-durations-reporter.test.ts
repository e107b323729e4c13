// The file durations reporter: from the runner's events, each file's own test (at the top, named
// by its path), slowest first, with their number and sum; nested tests and other events ignored.
import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, test } from 'node:test';
import fileDurations from './file-durations-reporter.ts';

function fileDone(relative: string, ms: number) {
  return {
    type: 'test:complete',
    data: { file: path.resolve(relative), name: relative, nesting: 0, details: { duration_ms: ms } },
  };
}

async function report(events: Array<{ type: string; data: unknown }>): Promise<string> {
  async function* source() {
    yield* events;
  }
  let out = '';
  for await (const chunk of fileDurations(source())) out += chunk;
  return out;
}

describe('test/file-durations-reporter.ts', () => {
  test("each file's wall time, slowest first, with the number of files and their sum", async () => {
    const out = await report([
      fileDone('src/a.test.ts', 1_250),
      // A test inside a file, and a top-level test of a file: not the file's own test.
      {
        type: 'test:complete',
        data: { file: path.resolve('src/a.test.ts'), name: 'a test', nesting: 1, details: { duration_ms: 9e6 } },
      },
      {
        type: 'test:complete',
        data: { file: path.resolve('src/a.test.ts'), name: 'a suite', nesting: 0, details: { duration_ms: 9e6 } },
      },
      { type: 'test:summary', data: { file: undefined, duration_ms: 9e6, success: true } },
      fileDone('test/b.test.ts', 61_040),
      fileDone('src/c.test.ts', 300),
    ]);
    assert.equal(
      out,
      [
        '',
        'file durations (wall, s): 3 files, 62.6 s in all; the 3 slowest:',
        '   61.0  test/b.test.ts',
        '    1.3  src/a.test.ts',
        '    0.3  src/c.test.ts',
        '',
      ].join('\n'),
    );
  });

  test('prints nothing when no file ran', async () => {
    assert.equal(await report([{ type: 'test:summary', data: { duration_ms: 1, success: true } }]), '');
  });
});
