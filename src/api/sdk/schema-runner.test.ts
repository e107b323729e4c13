import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { AppError } from '../../errors.ts';
import { createSchemaRunner } from './schema-runner.ts';

const bigCsv = `a,b\n${Array(400_000).fill('1,"x, y"').join('\n')}\n`;
/** Just under the 10 MB sample limit: far more work than the time limit below allows on any machine. */
const hugeCsv = `a,b\n${Array(1_000_000).fill('1,"x, y"').join('\n')}\n`;

describe('schema runner (the worker behind POST /api/sdk/generate_schema/*)', () => {
  test('a sample over the time limit is refused, and the next sample is analysed by a fresh worker', async () => {
    // 150 ms: a small sample is answered well within it even on a loaded machine.
    const runner = createSchemaRunner({ timeLimitMs: 150 });
    try {
      await assert.rejects(
        runner.generate({ kind: 'csv', input: { sample: hugeCsv } }),
        (error: unknown) => error instanceof AppError && error.code === 'sample_too_complex' && error.status === 400,
      );
      const fields = await runner.generate({ kind: 'json', input: { sample: '{"id": 1}' } });
      assert.deepEqual(
        fields.map((f) => f.name),
        ['id'],
      );
    } finally {
      await runner.close();
    }
  });

  test('more samples than the queue holds: the extra ones get 429 with Retry-After, the queued ones their schema', async () => {
    const runner = createSchemaRunner({ maxQueued: 1 });
    try {
      const first = runner.generate({ kind: 'csv', input: { sample: bigCsv } });
      const second = runner.generate({ kind: 'json', input: { sample: '{"id": 1}' } });
      await assert.rejects(
        runner.generate({ kind: 'json', input: { sample: '{"x": 1}' } }),
        (error: unknown) => error instanceof AppError && error.status === 429 && error.retryAfterSeconds === 1,
      );
      assert.deepEqual(
        (await first).map((f) => f.name),
        ['a', 'b'],
      );
      assert.deepEqual(
        (await second).map((f) => f.name),
        ['id'],
      );
    } finally {
      await runner.close();
    }
  });

  test('errors of the sample come back as the catalog errors; close refuses what is left', async () => {
    const runner = createSchemaRunner();
    await assert.rejects(
      runner.generate({ kind: 'json', input: { sample: '{"a":' } }),
      (error: unknown) =>
        error instanceof AppError && error.code === 'sample_not_json' && Array.isArray(error.errors?.sample),
    );
    await assert.rejects(
      runner.generate({ kind: 'json', input: {} }),
      (error: unknown) => error instanceof AppError && error.code === 'sample_required',
    );
    const pending = assert.rejects(
      runner.generate({ kind: 'csv', input: { sample: bigCsv } }),
      (error: unknown) => error instanceof AppError && error.code === 'samples_shutting_down',
    );
    await runner.close();
    await pending;
    await assert.rejects(
      runner.generate({ kind: 'json', input: { sample: '{}' } }),
      (error: unknown) => error instanceof AppError && error.code === 'samples_shutting_down',
    );
  });
});
