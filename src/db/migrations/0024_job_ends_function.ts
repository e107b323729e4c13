// PostgreSQL: the ends of a batch of jobs and the claims of their successors in one call
// (recordJobEnds in src/api/jobs/jobs.store.ts; docs/adr/0018). A function rather than
// statements sent one by one: each statement is a round trip, and the group commit records one
// batch at a time, so the batch's round trips bound the jobs a node runs a second. Inside the
// function each statement takes a new snapshot, as each statement of a transaction does: the
// claim after the claim lock sees every claim committed before it was taken. Names carry a
// version: a change is a new function in a new migration, so that nodes of the older version keep
// calling theirs during an upgrade.
// A job's lines hold no foreign key to their job on PostgreSQL: one would check each line
// with a query of its own (fourteen for a job of fourteen lines, a seventh of the database's time
// under load). The statements that insert lines insert only those of jobs they hold locked
// (updated, or locked for key share), so no line outlives its job's delete; and a trigger deletes
// the lines of deleted jobs, once per statement, as the cascade did. SQLite keeps the foreign key
// (a check there is a call in the process), and has no functions: there nothing changes.
import { sql, type Kysely } from 'kysely';
import type { DialectName } from '../dialect.ts';

export async function up(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
  if (dialect !== 'postgres') return;
  await sql`create function switchboard_job_ends_1(
      lines json,
      ends_id bigint[], ends_status text[], ends_error text[], ends_error_parts text[], ends_completed_at text[], ends_task_count int[],
      counts_recipe_id bigint[], counts_succeeded int[], counts_failed int[], counts_tasks bigint[], counts_last_run_at text[],
      claims_recipe_id bigint[], claims_limit int[], claim_lock int, claim_now text, claim_node text, claim_lease_until text)
    returns setof jobs
    language plpgsql volatile
    -- Every statement here reaches its rows by key. A recipe's row is updated by every batch, so
    -- its table holds many dead versions of few rows: a planner that deems it small would read
    -- all of them in a sequential scan.
    set enable_seqscan = off
    as $body$
    declare
      k int;
      contended jobs;
    begin
      -- The lines of the jobs this statement updated (and so holds locked until the commit).
      with ended as (
        update jobs set status = e.status, error = e.error, error_parts = e.error_parts, completed_at = e.completed_at, task_count = e.task_count
          from unnest(ends_id, ends_status, ends_error, ends_error_parts, ends_completed_at, ends_task_count) as e(id, status, error, error_parts, completed_at, task_count)
          where jobs.id = e.id
          returning jobs.id
      )
      insert into job_lines (job_id, seq, recipe_line_number, adapter_name, adapter_operation, pass, input, output, error, mask_data, started_at, completed_at)
        select l.* from json_to_recordset(lines) as l(job_id bigint, seq int, recipe_line_number int, adapter_name text, adapter_operation text,
          pass int, input text, output text, error text, mask_data int, started_at text, completed_at text)
        where l.job_id in (select id from ended);
      -- Each recipe's counters by its key, in the order of the ids (the caller sorts them), so
      -- that calls in flight at once lock the rows in one order and never deadlock.
      for k in 1 .. coalesce(array_length(counts_recipe_id, 1), 0) loop
        update recipes set job_succeeded_count = job_succeeded_count + counts_succeeded[k], job_failed_count = job_failed_count + counts_failed[k],
            lifetime_task_count = lifetime_task_count + counts_tasks[k], last_run_at = counts_last_run_at[k]
          where id = counts_recipe_id[k];
      end loop;
      for k in 1 .. coalesce(array_length(claims_recipe_id, 1), 0) loop
        -- One claim at a time per recipe across the nodes (the lock claimJobs takes too); the
        -- statement after it counts the running jobs in a snapshot taken once the lock was held.
        -- Not waited for: while another node claims for the recipe, these ends hand on no slot
        -- (their places go back to the dispatchers of every node, so nodes share a busy recipe).
        if pg_try_advisory_xact_lock(claim_lock, claims_recipe_id[k]::int) then
          return query update jobs set status = 'running', started_at = claim_now, claimed_by = claim_node, lease_expires_at = claim_lease_until
            where jobs.id in (
              select q.id from jobs q where q.recipe_id = claims_recipe_id[k] and q.status = 'queued' order by q.id
              limit greatest(0, least(claims_limit[k],
                coalesce((select greatest(1, r.concurrency) from recipes r where r.id = claims_recipe_id[k] and r.running = 1), 0)
                - (select count(*) from jobs j where j.status = 'running' and j.recipe_id = claims_recipe_id[k] and j.is_test = 0)))
              for update skip locked)
            returning jobs.*;
        else
          -- A row with no id but the recipe's: contended.
          contended := null;
          contended.recipe_id := claims_recipe_id[k];
          return next contended;
        end if;
      end loop;
    end
    $body$`.execute(db);
  await sql`do $body$
    declare
      reference text;
    begin
      select conname into reference from pg_constraint where conrelid = 'job_lines'::regclass and contype = 'f';
      if reference is not null then
        execute format('alter table job_lines drop constraint %I', reference);
      end if;
    end
    $body$`.execute(db);
  await sql`create function switchboard_delete_lines_of_jobs_1() returns trigger
    language plpgsql
    as $body$
    begin
      delete from job_lines where job_id in (select id from deleted_jobs);
      return null;
    end
    $body$`.execute(db);
  await sql`create trigger jobs_delete_their_lines after delete on jobs referencing old table as deleted_jobs
    for each statement execute function switchboard_delete_lines_of_jobs_1()`.execute(db);
}
