// The image threads of a process: each image (a transform, a chart) is decoded, drawn and encoded in
// a worker thread of its own (image-worker.ts), ended with its answer. Each can hold a hundred MB
// or more, so at most `workers` run at once (IMAGE_WORKERS); the images beyond them wait in order of
// arrival, at most `queueMax` of them (IMAGE_QUEUE_MAX); one more is refused at once, its step
// failing `Too many images` rather than the process holding every waiting image's bytes.
import { Worker } from 'node:worker_threads';
import { StepError, type ImageRunner, type StepContext } from '../types.ts';
import type { ImageJob, ImageReply } from './image-worker.ts';

const WORKER_URL = new URL('./image-worker.ts', import.meta.url);
/** Time an image may take in its thread: a last guard, the pixel bounds keep real work well under it. */
const IMAGE_TIMEOUT_MS = 60_000;

export interface ImageThreads extends ImageRunner {
  /** Runs the job in a thread of its own once one of the `workers` places is free. */
  run(job: ImageJob): Promise<ImageReply>;
  /** Threads running now, and images waiting for a place. */
  load(): { running: number; waiting: number };
  /** Refuses the images waiting; those running finish. */
  close(): Promise<void>;
}

export function createImageThreads(options: { workers: number; queueMax: number }): ImageThreads {
  let running = 0;
  let closed = false;
  const waiting: Array<{ start: () => void; refuse: (error: Error) => void }> = [];

  function next(): void {
    running -= 1;
    const waiter = waiting.shift();
    if (waiter) {
      running += 1;
      waiter.start();
    }
  }

  return {
    run(job) {
      if (closed) return Promise.reject(new StepError('Image error', 'the server is shutting down'));
      if (running < options.workers) {
        running += 1;
        return inThread(job).finally(next);
      }
      if (waiting.length >= options.queueMax)
        return Promise.reject(
          new StepError(
            'Too many images',
            `${running} images are being processed and ${waiting.length} wait (IMAGE_WORKERS, IMAGE_QUEUE_MAX); try again later`,
          ),
        );
      return new Promise<ImageReply>((resolve, reject) => {
        waiting.push({
          start: () => inThread(job).finally(next).then(resolve, reject),
          refuse: reject,
        });
      });
    },
    load() {
      return { running, waiting: waiting.length };
    },
    async close() {
      closed = true;
      for (const waiter of waiting.splice(0))
        waiter.refuse(new StepError('Image error', 'the server is shutting down'));
    },
  };
}

function inThread(job: ImageJob): Promise<ImageReply> {
  return new Promise((resolve, reject) => {
    const transfer = job.kind === 'transform' ? [job.bytes.buffer as ArrayBuffer] : [];
    const worker = new Worker(WORKER_URL, {
      workerData: job,
      transferList: transfer,
      resourceLimits: { maxOldGenerationSizeMb: 256 },
    });
    let settled = false;
    const settle = (fn: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      fn();
      void worker.terminate();
    };
    const timer = setTimeout(
      () => settle(() => reject(new StepError('Timeout', `the image was not made within ${IMAGE_TIMEOUT_MS} ms`))),
      IMAGE_TIMEOUT_MS,
    );
    worker.once('message', (reply: ImageReply) => settle(() => resolve(reply)));
    worker.once('error', (error: Error) =>
      settle(() => reject(new StepError('Image error', `the image could not be made: ${error.message}`))),
    );
    worker.once('exit', () => settle(() => reject(new StepError('Image error', 'the image codec stopped'))));
  });
}

/** The process's image threads, as a step sees them. */
export function imageThreadsOf(sc: StepContext): Pick<ImageThreads, 'run'> {
  const images: ImageRunner | undefined = sc.sandboxes?.images;
  if (!images) throw new StepError('Image error', 'images are not processed here');
  // The engine gives steps the threads of createImageThreads.
  return images as Pick<ImageThreads, 'run'>;
}
