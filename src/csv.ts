// csv-parse and csv-stringify, loaded at the first CSV a step or a sample parses or writes instead
// of at start: an idle server handles none. Both ship CommonJS builds, so require() gives them
// synchronously where a step's work is synchronous. Take their values from here.
import { createRequire } from 'node:module';
import type * as CsvParse from 'csv-parse/sync';
import type * as CsvStringify from 'csv-stringify/sync';

const load = createRequire(import.meta.url);
let parser: typeof CsvParse | undefined;
let writer: typeof CsvStringify | undefined;

/** csv-parse's synchronous API, loaded at the first call. */
export function csvParse(): typeof CsvParse {
  return (parser ??= load('csv-parse/sync') as typeof CsvParse);
}

/** csv-stringify's synchronous API, loaded at the first call. */
export function csvStringify(): typeof CsvStringify {
  return (writer ??= load('csv-stringify/sync') as typeof CsvStringify);
}
