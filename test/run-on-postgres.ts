// `npm run test:postgres`: the whole test suite on PostgreSQL. With TEST_DATABASE_URL set (the
// maintenance database of a server the tests may create databases on), on that server; otherwise
// on a throwaway server started here from the installed PostgreSQL (postgres-cluster.ts) and
// removed at the end. Extra arguments replace the test files (e.g. one file while working).
import { spawn } from 'node:child_process';
import { globSync } from 'node:fs';
import { startPostgresCluster, type PostgresCluster } from './postgres-cluster.ts';

const files = process.argv.slice(2);
// The console's browser tests (`*-browser.test.ts`, Chromium) run in the SQLite suite only: what
// they add to the console's HTTP tests (src/console/*.test.ts, run here too) is the pages in a
// browser, which do not change with the database. Named as arguments, they run here as well.
const patterns =
  files.length > 0
    ? files
    : globSync(['src/**/*.test.ts', 'test/**/*.test.ts'])
        .filter((file) => !file.endsWith('-browser.test.ts'))
        .sort();

let cluster: PostgresCluster | undefined;
let url = process.env.TEST_DATABASE_URL?.trim();
if (!url) {
  // Its data is thrown away: no fsync (a test never stops the machine).
  cluster = await startPostgresCluster({ fsync: 'off', full_page_writes: 'off' });
  url = cluster.url;
  process.stdout.write(`PostgreSQL for the tests on 127.0.0.1:${cluster.port}\n`);
}
const removeCluster = () => {
  try {
    cluster?.remove();
  } catch (error) {
    process.stderr.write(`could not remove the test PostgreSQL: ${String(error)}\n`);
  }
  cluster = undefined;
};

const reporters = ['spec', './test/file-durations-reporter.ts'].flatMap((reporter) => [
  `--test-reporter=${reporter}`,
  '--test-reporter-destination=stdout',
]);
// Two test files at a time (node:test's default is one fewer than the cores: one on CI's two, where
// this suite is the longer of the two run side by side): a file waiting on real time (a lease, a
// schedule, a restart) leaves the core to the other, and once the SQLite suite has ended this one
// uses both cores. test/README.md, where the time goes, has the figures.
const child = spawn(process.execPath, ['--test', '--test-concurrency=2', ...reporters, ...patterns], {
  stdio: 'inherit',
  env: { ...process.env, TEST_DATABASE_URL: url },
});
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => child.kill(signal));
}
const code = await new Promise<number>((resolve) =>
  child.on('exit', (status, signal) => resolve(status ?? (signal ? 1 : 0))),
);
removeCluster();
process.exit(code);
