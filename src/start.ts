// The command line's entry (npm start, bin/switchboard): Node's compile cache first, then
// src/cli.ts. Every start otherwise strips the types of and compiles every module of the server
// again, about a third of its CPU to ready; with the cache, a start after the first (or after
// `npm install`, whose postinstall runs through here) reuses them. Node keys the entries by its
// version and each file's content, so a changed file is compiled again. An unwritable directory
// only leaves the cache off. It must run before the server's modules load, hence this file.
import { enableCompileCache } from 'node:module';
import path from 'node:path';

enableCompileCache(path.resolve(import.meta.dirname, '../node_modules/.cache/switchboard/compile'));
const { runFromCommandLine } = await import('./cli.ts');
runFromCommandLine();
