// Where the pool's answer to a worker's request is (ruby-sandbox.ts writes it, ruby-worker.ts reads it).

/** The answer is in the worker's shared answer buffer; its length in bytes is the signal's second value. */
export const ANSWER_SHARED = 2;
/** The answer is a message on the worker's port (too large for the shared buffer). */
export const ANSWER_POSTED = 1;
