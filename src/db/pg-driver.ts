// The PostgreSQL driver (`pg`), loaded the first time a PostgreSQL database or notifier is opened:
// a server on SQLite never loads it (about 10 MB and a few hundred milliseconds of start-up).
import { createRequire } from 'node:module';
import type pg from 'pg';

let driver: typeof pg | undefined;

export function loadPg(): typeof pg {
  driver ??= createRequire(import.meta.url)('pg') as typeof pg;
  return driver;
}
