// Smart list queries run off the event loop and out of the server's process: a child process per
// query (sql-worker.ts), given the lists' rows and the SQL over IPC, killed (SIGKILL) when it does
// not answer by the deadline, since a query inside SQLite cannot be interrupted otherwise.
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { SqlReply, SqlRequest } from './sql-worker.ts';

const WORKER_PATH = fileURLToPath(new URL('./sql-worker.ts', import.meta.url));

export function runSqlQuery(
  request: SqlRequest,
  timeoutMs: number,
): Promise<SqlReply | { ok: false; timeout: true; message: string }> {
  return new Promise((resolve) => {
    const child = fork(WORKER_PATH, [], {
      execPath: process.execPath,
      execArgv: ['--max-old-space-size=256'],
      serialization: 'advanced',
      stdio: ['ignore', 'ignore', 'ignore', 'ipc'],
      env: {},
    });
    let settled = false;
    const finish = (reply: SqlReply | { ok: false; timeout: true; message: string }) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      resolve(reply);
    };
    const timer = setTimeout(
      () => finish({ ok: false, timeout: true, message: `the query did not end within ${timeoutMs} ms` }),
      timeoutMs,
    );
    child.once('message', (reply: SqlReply) => finish(reply));
    child.once('error', (error) => finish({ ok: false, message: error.message.slice(0, 500) }));
    child.once('exit', () => finish({ ok: false, message: 'the query process stopped' }));
    child.send(request);
  });
}
