// The image threads' bound: at most `workers` images in threads at once, the next ones waiting in
// order up to `queueMax`, one more refused at once (IMAGE_WORKERS, IMAGE_QUEUE_MAX); a close refuses
// the waiting ones.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createImageThreads } from './image-threads.ts';
import type { ImageJob } from './image-worker.ts';

const small = (n: number): ImageJob => ({
  kind: 'chart',
  chart: {
    kind: 'pie',
    width: 100,
    height: 100,
    title: '',
    xAxisTitle: '',
    yAxisTitle: '',
    labels: ['a'],
    values: [n],
  },
});

describe('image threads', () => {
  test('one runs, one waits its turn, a third is refused while both places are taken', async () => {
    const threads = createImageThreads({ workers: 1, queueMax: 1 });
    const first = threads.run(small(1));
    const second = threads.run(small(2));
    assert.deepEqual(threads.load(), { running: 1, waiting: 1 });
    await assert.rejects(threads.run(small(3)), (e: Error & { type?: string }) => {
      assert.equal(
        e.message,
        '1 images are being processed and 1 wait (IMAGE_WORKERS, IMAGE_QUEUE_MAX); try again later',
      );
      return true;
    });
    const [a, b] = await Promise.all([first, second]);
    assert.ok(a.ok && b.ok, 'both drawn');
    assert.deepEqual(threads.load(), { running: 0, waiting: 0 });
    // Places are free again: the next image runs.
    assert.ok((await threads.run(small(4))).ok);
  });

  test('several workers run together; a close refuses the images still waiting', async () => {
    const threads = createImageThreads({ workers: 2, queueMax: 5 });
    const running = [threads.run(small(1)), threads.run(small(2))];
    const waiting = threads.run(small(3));
    assert.deepEqual(threads.load(), { running: 2, waiting: 1 });
    await threads.close();
    await assert.rejects(waiting, /the server is shutting down/);
    assert.ok(
      (await Promise.all(running)).every((r) => r.ok),
      'those running finish',
    );
    await assert.rejects(threads.run(small(4)), /the server is shutting down/);
  });
});
