// A test process stopped before its after hooks (a signal from the runner or CI, a process.exit)
// still removes the temporary directories it made with tempDir.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';

const HOLDER = path.join(import.meta.dirname, 'stand-ins', 'temp-dir-holder.ts');

/** The holder's directory once it is made, and its exit. */
function hold(...args: string[]) {
  const child = spawn(process.execPath, [HOLDER, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const dir = new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk) => {
      out += chunk;
      if (out.includes('\n')) resolve(out.trim());
    });
    child.on('exit', () => reject(new Error(`the holder exited before it printed its directory: ${out}`)));
  });
  return { child, dir, exited };
}

describe('tempDir', { concurrency: true }, () => {
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    test(`a test process stopped by ${signal} removes its directories`, async () => {
      const { child, dir, exited } = hold();
      const made = await dir;
      assert.equal(fs.readFileSync(path.join(made, 'data.txt'), 'utf8'), 'held');
      child.kill(signal);
      assert.notEqual(await exited, 0);
      assert.equal(fs.existsSync(made), false);
    });
  }

  test('a test process leaving through process.exit removes its directories', async () => {
    const { dir, exited } = hold('exit');
    const made = await dir;
    assert.equal(await exited, 0);
    assert.equal(fs.existsSync(made), false);
  });
});
