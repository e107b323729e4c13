// Schema generation from samples (contract 04 Part 3). Nothing is stored: the sample is
// measured, parsed and inferred by the pure functions of schema-inference.ts.
import { AppError } from '../../errors.ts';
import {
  inferCsvSchema,
  inferJsonSchema,
  MAX_SAMPLE_BYTES,
  parseJsonSample,
  resolveColumnSeparator,
  type SchemaField,
} from './schema-inference.ts';

export function generateSchemaFromJson(input: { sample?: unknown }): SchemaField[] {
  const sample = requireSample(input.sample);
  if (typeof sample === 'string') {
    assertSampleSize(sample);
    return inferJsonSchema(parseJsonSample(sample));
  }
  // An already parsed sample is measured after inference, which refuses deep nesting first:
  // JSON.stringify of a deeply nested body would overflow the stack.
  const fields = inferJsonSchema(sample);
  assertSampleSize(JSON.stringify(sample));
  return fields;
}

export function generateSchemaFromCsv(input: {
  sample?: string | null;
  col_sep?: string | null;
  custom_col_sep?: string | null;
}): SchemaField[] {
  const sample = requireSample(input.sample);
  // The separator is checked first: a bad option is a 400 whatever the sample holds.
  const separator = resolveColumnSeparator(input);
  assertSampleSize(sample);
  return inferCsvSchema(sample, separator);
}

function requireSample<T>(sample: T | null | undefined): T {
  if (sample === undefined || sample === null)
    throw new AppError('sample_required', { errors: { sample: ['is required'] } });
  return sample;
}

function assertSampleSize(text: string): void {
  // Cheap bound first: a UTF-8 character takes at most 3 bytes per UTF-16 unit.
  if (text.length * 3 <= MAX_SAMPLE_BYTES) return;
  if (Buffer.byteLength(text, 'utf8') > MAX_SAMPLE_BYTES)
    throw new AppError('sample_too_large', { errors: { sample: [`is over ${MAX_SAMPLE_BYTES / (1024 * 1024)} MB`] } });
}
