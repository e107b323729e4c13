// The worker thread that generates schemas (see schema-runner.ts): one request at a time, so a
// large or hostile sample uses this thread's time and never the server's event loop.
import { parentPort } from 'node:worker_threads';
import { AppError, type PlainErrorCode } from '../../errors.ts';
import { generateSchemaFromCsv, generateSchemaFromJson } from './sdk.service.ts';
import type { SchemaRequest, SchemaReply } from './schema-runner.ts';

parentPort?.on('message', (request: SchemaRequest) => {
  let reply: SchemaReply;
  try {
    const fields =
      request.kind === 'json' ? generateSchemaFromJson(request.input) : generateSchemaFromCsv(request.input);
    reply = { ok: true, fields };
  } catch (error) {
    // Inference raises only codes whose message has no placeholders (the sample_* codes and
    // validation_failed), so code and field errors rebuild the same error on the other side.
    reply =
      error instanceof AppError
        ? { ok: false, code: error.code as PlainErrorCode, errors: error.errors }
        : { ok: false, code: 'sample_too_complex', errors: { sample: ['could not be analysed'] } };
  }
  parentPort?.postMessage(reply);
});
const ready: SchemaReply = { ready: true };
parentPort?.postMessage(ready);
