// switchboard_job_ends_6 (0080) runs its statements on generic plans. PostgreSQL plans a PL/pgSQL
// statement with its parameters' values (a custom plan) until a generic plan looks as cheap; the
// count of the places each recipe's ends free (`handed`) never got there, so every call planned
// it again: 140 µs of the server's time a call of ten ends, on the path of every job of a busy
// recipe (docs/performance.md, Where a job's time goes on PostgreSQL). The function's other
// statements were on generic plans already. Altered rather than replaced by a new name: the plans
// change, not what the function does, so nodes of the older version calling it are unaffected.
import { sql, type Kysely } from 'kysely';
import type { DialectName } from '../dialect.ts';

export async function up(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
  if (dialect !== 'postgres') return;
  await sql`alter function switchboard_job_ends_6(
      bigint[], int[], int[], text[], text[], int[], text[], text[], text[], int[], text[], text[],
      bigint[], text[], text[], text[], text[], int[], text[], int[],
      bigint[], int[], int[], bigint[], text[],
      bigint[], int[], int, text, text, text)
    set plan_cache_mode = force_generic_plan`.execute(db);
}
