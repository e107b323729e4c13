// The process's entry for `npm start`, `npm run dev` and bin/switchboard: plain JavaScript, so Node
// strips no types before the compile cache is on. It turns the cache on, then loads the command
// line (src/cli.ts). A start after the first then finds every module, src/cli.ts included, already
// stripped and compiled, and Node never loads its TypeScript stripper (docs/adr/0023).
import module from 'node:module';

const major = Number(process.versions.node.split('.')[0]);
if (major < 24) {
  // Older Node.js cannot load TypeScript at all: say which Node.js to use instead of failing on it.
  process.stderr.write(
    `switchboard needs Node.js 24 (this is ${process.version}); run it through npm ("npm start", "npx switchboard") so the project's own Node.js is used\n`,
  );
  process.exit(1);
}
module.enableCompileCache();
await import('./cli.ts');
