// A batch's line sets travel as one text, not as an array literal (docs/performance.md, A job's
// lines as one text parameter). Each set is a JSON text (lineSets), which holds no raw control
// character: JSON escapes them all, so U+001F (the unit separator) cannot occur in one and joins
// them. PostgreSQL splits that text with string_to_array in one scan; an array literal of the same
// texts, dense with quotes, was escaped by the node and read back character by character.
// switchboard_job_ends_9 is switchboard_job_ends_8 (0083) with its lines so given: a copy, as a
// function calling 8 would cost about as much a job as the split saves; 8 stays, for nodes of the
// older version while an upgrade goes on.
// The lines' text is compressed with lz4 where the server has it (PostgreSQL 14 or later, built
// with it, as Debian's is): a job's lines of a few KB pass the threshold at which PostgreSQL
// compresses a value, and its default, pglz, took several times as long.
import { sql, type Kysely } from 'kysely';
import type { DialectName } from '../dialect.ts';

export async function up(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
  if (dialect !== 'postgres') return;
  // switchboard_job_ends_8 (0083) with the lines split from one text.
  await sql`create function switchboard_job_ends_9(
      sets_job_id bigint[], sets_seq int[], sets_lines text,
      ends_id bigint[], ends_status text[], ends_error text[], ends_error_parts text[], ends_completed_at text[], ends_task_count int[],
      ends_reply text[], ends_recipe_version_no int[],
      counts_recipe_id bigint[], counts_succeeded int[], counts_failed int[], counts_tasks bigint[], counts_last_run_at text[],
      claims_recipe_id bigint[], claims_limit int[], claims_from bigint[], claim_lock int, claim_now text, claim_node text, claim_lease_until text)
    returns setof jobs
    language plpgsql volatile
    -- Every statement here reaches its rows by key; the tables it reads change at every call, and
    -- a planner that deems them small would read their dead versions in a sequential scan.
    set enable_seqscan = off
    -- Planned once per connection, not again at every call (0081).
    set plan_cache_mode = force_generic_plan
    as $body$
    declare
      k int;
      contended jobs;
      handed int[];
      got int;
      lo bigint;
      want int;
      attempt int;
      locked boolean;
      k_got int;
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
      insert into job_line_sets (job_id, seq, lines)
        select s.* from unnest(sets_job_id, sets_seq, string_to_array(sets_lines, chr(31))) as s(job_id, seq, lines)
        where s.job_id in (select id from ended);
      -- Appended, not added to the recipe's row: no lock that the next call would wait for.
      insert into recipe_job_counts (recipe_id, succeeded, failed, task_count, last_run_at)
        select * from unnest(counts_recipe_id, counts_succeeded, counts_failed, counts_tasks, counts_last_run_at);
      for k in 1 .. coalesce(array_length(claims_recipe_id, 1), 0) loop
        -- One claim at a time per recipe across the nodes (the lock claimJobs takes too); the
        -- statement after it counts the running jobs in a snapshot taken once the lock was held.
        -- Without the lock (often the previous call for the recipe holds it until its commit is on
        -- disk), a claim that only hands on the places these ends free leaves the number of running
        -- jobs as it was, whatever the transactions not yet committed: each one that holds no lock
        -- hands on at most what it frees, and the one holding the lock counts what is committed.
        -- So these ends hand on their places (never more than the recipe's concurrency allows in
        -- what this call sees: lowered, it frees them).
        locked := pg_try_advisory_xact_lock(claim_lock, claims_recipe_id[k]::int);
        want := case when locked then claims_limit[k] else least(claims_limit[k], handed[k]) end;
        got := 0;
        -- The queued jobs from claims_from[k] up first: the entries that every claimed job leaves
        -- below it in the queue's index stay there until vacuum, and a scan from the oldest passes
        -- them all. Then, if those cannot fill the places, the whole queue (a job queued again, or
        -- stored after younger ones were claimed).
        lo := claims_from[k];
        for attempt in 1 .. 2 loop
          if attempt = 2 and (lo is null or got >= want) then exit; end if;
          if attempt = 2 then lo := null; end if;
          return query update jobs set status = 'running',
              -- A job queued again after its workflow task keeps its claim's node and the time it started.
              started_at = case when jobs.claimed_by is null then claim_now else jobs.started_at end,
              claimed_by = claim_node, lease_expires_at = claim_lease_until
            where jobs.id in (
              select q.id from jobs q
                where q.recipe_id = claims_recipe_id[k] and q.status = 'queued' and q.id >= coalesce(lo, 0)
                order by q.id
                limit greatest(0, least(want - got,
                  coalesce((select greatest(1, r.concurrency) from recipes r where r.id = claims_recipe_id[k] and r.running = 1), 0)
                  - (select count(*) from jobs j where j.status = 'running' and j.recipe_id = claims_recipe_id[k] and j.is_test = 0)))
                for update skip locked)
            returning jobs.*;
          get diagnostics k_got = row_count;
          got := got + k_got;
        end loop;
        if not locked and got < claims_limit[k] then
          -- A row with no id but the recipe's: contended (the ends that got no job give their
          -- places back to the dispatcher, which tries again shortly).
          contended := null;
          contended.recipe_id := claims_recipe_id[k];
          return next contended;
        end if;
      end loop;
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
