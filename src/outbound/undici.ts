// undici, the HTTP client of every request the server makes for a user, loaded at the first such
// request instead of at start: an idle server makes none, and undici's modules (with Node's own
// copy of undici, which undici's fetch part pulls in through the global Headers) hold about 5 MB
// of memory (docs/performance.md, "What idle memory is"). undici is CommonJS, so require() gives
// it synchronously where the first agent or request needs it. Import its types as usual
// (`import type { Dispatcher } from 'undici'`); take its values from here.
import { createRequire } from 'node:module';
import type * as Undici from 'undici';

const load = createRequire(import.meta.url);
let loaded: typeof Undici | undefined;

/** The undici module, loaded at the first call. */
export function undici(): typeof Undici {
  return (loaded ??= load('undici') as typeof Undici);
}
