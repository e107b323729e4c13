// Ajv and ajv-formats, loaded when the first schema is compiled instead of at start: route schemas
// compile at a route's first request and topic schemas when a topic is used, so an idle server
// compiles none and needs neither. Both ship CommonJS builds, so require() gives them synchronously
// where a compile is synchronous. Make Ajv instances here.
import { createRequire } from 'node:module';
import type * as AjvModule from 'ajv';
import type { Ajv, Options } from 'ajv';

const load = createRequire(import.meta.url);

/** A new Ajv instance with ajv-formats' formats (all of them, or the ones named). */
export function ajvWithFormats(options: Options, formats?: string[]): Ajv {
  const { Ajv: AjvClass } = load('ajv') as typeof AjvModule;
  const addFormats = load('ajv-formats') as (ajv: Ajv, formats?: string[]) => Ajv;
  const ajv = new AjvClass(options);
  return formats === undefined ? addFormats(ajv) : addFormats(ajv, formats);
}
