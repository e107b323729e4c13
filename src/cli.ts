// The command line: `npx switchboard <command>` or `npm run switchboard -- <command>`, started by
// src/entry.js, which turns Node's compile cache on before this file is stripped of its types
// (docs/adr/0023). `node src/cli.ts <command>` works too: it turns the cache on here, before loading
// anything else, so a start after the first reads the server's modules already stripped of their
// types and compiled (in the directory NODE_COMPILE_CACHE names, else the system's temporary one;
// NODE_DISABLE_COMPILE_CACHE=1 turns it off), then runs the command (src/cli-main.ts).
import module from 'node:module';

// Absent before Node.js 22.1; main() then says which Node.js to use.
module.enableCompileCache?.();
const { main } = await import('./cli-main.ts');
main(process.argv.slice(2)).then(
  (code) => {
    // serve keeps running (the server holds the event loop); other commands end here.
    if (code !== 0) process.exit(code);
  },
  (error: unknown) => {
    process.stderr.write(`${String(error)}\n`);
    process.exit(1);
  },
);
