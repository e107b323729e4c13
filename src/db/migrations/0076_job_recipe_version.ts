// Each job records the version of its recipe it ran (`recipe_version_no`, the recipe's
// `version_no`; recipe_versions holds that version's steps), so the console shows a job's lines
// with the steps of that version (an IF's condition) after the recipe was edited. A job is stored
// with the version current when its trigger fired; its end writes the version the worker ran
// (the same unless the recipe was edited while the job waited in the queue). Null for the jobs
// stored before this migration: readers fall back to the recipe's current version.
// On PostgreSQL, switchboard_job_ends_4 is switchboard_job_ends_3 (0071) with the version of each
// end; a new name, so nodes of the older version keep calling theirs during an upgrade (their
// ends keep the version the job was stored with).
import { sql, type Kysely } from 'kysely';
import type { DialectName } from '../dialect.ts';

export async function up(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
  await db.schema.alterTable('jobs').addColumn('recipe_version_no', 'integer').execute();
  if (dialect !== 'postgres') return;
  await sql`create function switchboard_job_ends_4(
      lines json,
      ends_id bigint[], ends_status text[], ends_error text[], ends_error_parts text[], ends_completed_at text[], ends_task_count int[],
      ends_reply text[], ends_recipe_version_no int[],
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
        update jobs set status = e.status, error = e.error, error_parts = e.error_parts, completed_at = e.completed_at,
            task_count = e.task_count, reply = e.reply,
            recipe_version_no = coalesce(e.recipe_version_no, jobs.recipe_version_no)
          from unnest(ends_id, ends_status, ends_error, ends_error_parts, ends_completed_at, ends_task_count, ends_reply, ends_recipe_version_no)
            as e(id, status, error, error_parts, completed_at, task_count, reply, recipe_version_no)
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
          return query update jobs set status = 'running',
              -- A job queued again after its workflow task keeps its claim's node and the time it started.
              started_at = case when jobs.claimed_by is null then claim_now else jobs.started_at end,
              claimed_by = claim_node, lease_expires_at = claim_lease_until
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
}
