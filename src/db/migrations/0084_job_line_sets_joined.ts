// A batch's line sets travel as one text, not as an array literal (docs/performance.md, A job's
// lines as one text parameter). Each set is a JSON text (lineSets), which holds no raw control
// character: JSON escapes them all, so U+001F (the unit separator) cannot occur in one and joins
// them. PostgreSQL splits that text with string_to_array in one scan; an array literal of the same
// texts, dense with quotes, was escaped by the node and read back character by character.
// switchboard_job_ends_9 is switchboard_job_ends_8 (0083) with its lines so given; 8 stays, for
// nodes of the older version while an upgrade goes on.
// The lines' text is compressed with lz4 where the server has it (PostgreSQL 14 or later, built
// with it, as Debian's is): a job's lines of a few KB pass the threshold at which PostgreSQL
// compresses a value, and its default, pglz, took several times as long.
import { sql, type Kysely } from 'kysely';
import type { DialectName } from '../dialect.ts';

export async function up(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
  if (dialect !== 'postgres') return;
  await sql`create function switchboard_job_ends_9(
      sets_job_id bigint[], sets_seq int[], sets_lines text,
      ends_id bigint[], ends_status text[], ends_error text[], ends_error_parts text[], ends_completed_at text[], ends_task_count int[],
      ends_reply text[], ends_recipe_version_no int[],
      counts_recipe_id bigint[], counts_succeeded int[], counts_failed int[], counts_tasks bigint[], counts_last_run_at text[],
      claims_recipe_id bigint[], claims_limit int[], claims_from bigint[], claim_lock int, claim_now text, claim_node text, claim_lease_until text)
    returns setof jobs
    language plpgsql volatile
    as $body$
    begin
      return query select * from switchboard_job_ends_8(sets_job_id, sets_seq, string_to_array(sets_lines, chr(31)),
        ends_id, ends_status, ends_error, ends_error_parts, ends_completed_at, ends_task_count, ends_reply, ends_recipe_version_no,
        counts_recipe_id, counts_succeeded, counts_failed, counts_tasks, counts_last_run_at,
        claims_recipe_id, claims_limit, claims_from, claim_lock, claim_now, claim_node, claim_lease_until);
    end
    $body$`.execute(db);
  await sql`do $lz4$
    begin
      if exists (select 1 from pg_settings where name = 'default_toast_compression' and 'lz4' = any(enumvals)) then
        alter table job_line_sets alter column lines set compression lz4;
      end if;
    end
    $lz4$`.execute(db);
}
