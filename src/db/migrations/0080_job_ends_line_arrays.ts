// switchboard_job_ends_6 is switchboard_job_ends_5 (0079) with the lines as one array per column
// instead of one JSON document. PostgreSQL read the document twice (the json type's check of the
// parameter, then json_to_recordset) and built each line's record from it by name; the arrays are
// read once and unnested by position: the statement that ends the jobs and inserts their lines
// took about a fifth less of the server's time (docs/performance.md, Where a job's time goes on
// PostgreSQL).
// A new name, so nodes of the older version keep calling theirs during an upgrade.
import { sql, type Kysely } from 'kysely';
import type { DialectName } from '../dialect.ts';

export async function up(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
  if (dialect !== 'postgres') return;
  await sql`create function switchboard_job_ends_6(
      lines_job_id bigint[], lines_seq int[], lines_recipe_line_number int[], lines_adapter_name text[], lines_adapter_operation text[],
      lines_pass int[], lines_input text[], lines_output text[], lines_error text[], lines_mask_data int[], lines_started_at text[],
      lines_completed_at text[],
      ends_id bigint[], ends_status text[], ends_error text[], ends_error_parts text[], ends_completed_at text[], ends_task_count int[],
      ends_reply text[], ends_recipe_version_no int[],
      counts_recipe_id bigint[], counts_succeeded int[], counts_failed int[], counts_tasks bigint[], counts_last_run_at text[],
      claims_recipe_id bigint[], claims_limit int[], claim_lock int, claim_now text, claim_node text, claim_lease_until text)
    returns setof jobs
    language plpgsql volatile
    -- Every statement here reaches its rows by key; the tables it reads change at every call, and
    -- a planner that deems them small would read their dead versions in a sequential scan.
    set enable_seqscan = off
    as $body$
    declare
      k int;
      contended jobs;
      handed int[];
      got int;
    begin
      -- The places each recipe's ends free: its ended jobs that were running and not test cases,
      -- read before this call ends them.
      handed := array(
        select (select count(*) from jobs j
                  where j.id = any(ends_id) and j.recipe_id = c.id and j.status = 'running' and j.is_test = 0)::int
          from unnest(claims_recipe_id) with ordinality as c(id, n)
          order by c.n);
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
        select l.* from unnest(lines_job_id, lines_seq, lines_recipe_line_number, lines_adapter_name, lines_adapter_operation,
            lines_pass, lines_input, lines_output, lines_error, lines_mask_data, lines_started_at, lines_completed_at)
          as l(job_id, seq, recipe_line_number, adapter_name, adapter_operation, pass, input, output, error, mask_data, started_at, completed_at)
        where l.job_id in (select id from ended);
      -- Appended, not added to the recipe's row: no lock that the next call would wait for.
      insert into recipe_job_counts (recipe_id, succeeded, failed, task_count, last_run_at)
        select * from unnest(counts_recipe_id, counts_succeeded, counts_failed, counts_tasks, counts_last_run_at);
      for k in 1 .. coalesce(array_length(claims_recipe_id, 1), 0) loop
        -- One claim at a time per recipe across the nodes (the lock claimJobs takes too); the
        -- statement after it counts the running jobs in a snapshot taken once the lock was held.
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
          -- Another transaction holds the lock (often the previous call for the recipe, until its
          -- commit is on disk). A claim that only hands on the places these ends free leaves the
          -- number of running jobs as it was, whatever the transactions not yet committed: each
          -- one that holds no lock hands on at most what it frees, and the one holding the lock
          -- counts what is committed. So these ends hand on their places (never more than the
          -- recipe's concurrency allows in what this call sees: lowered, it frees them).
          return query update jobs set status = 'running',
              started_at = case when jobs.claimed_by is null then claim_now else jobs.started_at end,
              claimed_by = claim_node, lease_expires_at = claim_lease_until
            where jobs.id in (
              select q.id from jobs q where q.recipe_id = claims_recipe_id[k] and q.status = 'queued' order by q.id
              limit greatest(0, least(claims_limit[k], handed[k],
                coalesce((select greatest(1, r.concurrency) from recipes r where r.id = claims_recipe_id[k] and r.running = 1), 0)
                - (select count(*) from jobs j where j.status = 'running' and j.recipe_id = claims_recipe_id[k] and j.is_test = 0)))
              for update skip locked)
            returning jobs.*;
          get diagnostics got = row_count;
          if got < claims_limit[k] then
            -- A row with no id but the recipe's: contended (the ends that got no job give their
            -- places back to the dispatcher, which tries again shortly).
            contended := null;
            contended.recipe_id := claims_recipe_id[k];
            return next contended;
          end if;
        end if;
      end loop;
    end
    $body$`.execute(db);
}
