// A node:test reporter printing, once every file has run, each test file's wall time (the runner's
// duration_ms of the file's own test, from its process's start to its end: imports included),
// slowest first, and their sum: where a suite's time goes. `npm test` and `npm run test:postgres`
// use it beside the spec reporter.
import path from 'node:path';

interface CompleteEvent {
  type: 'test:complete';
  data: { file?: string; name: string; nesting: number; details: { duration_ms: number } };
}

/** The slowest files printed; the sum covers all of them. */
const SHOWN = 40;

export default async function* fileDurations(source: AsyncIterable<{ type: string; data: unknown }>) {
  const files: Array<{ file: string; ms: number }> = [];
  for await (const event of source) {
    if (event.type !== 'test:complete') continue;
    // A file's own test: at the top, named by the file's path.
    const { file, name, nesting, details } = (event as CompleteEvent).data;
    if (nesting !== 0 || file === undefined || path.resolve(name) !== file) continue;
    files.push({ file: path.relative(process.cwd(), file), ms: details.duration_ms });
  }
  if (files.length === 0) return;
  files.sort((a, b) => b.ms - a.ms);
  const total = files.reduce((sum, f) => sum + f.ms, 0);
  const seconds = (ms: number) => (ms / 1000).toFixed(1).padStart(7);
  yield `\nfile durations (wall, s): ${files.length} files, ${seconds(total).trim()} s in all; the ${Math.min(SHOWN, files.length)} slowest:\n`;
  for (const f of files.slice(0, SHOWN)) yield `${seconds(f.ms)}  ${f.file}\n`;
}
