// A job's lines as one row (job_line_sets), not one row each: a job of a few steps wrote a dozen
// rows and as many index entries, most of what its end wrote (docs/performance.md, Where a run's
// time goes). A row holds the lines a job recorded at once (its end, or its stop at a workflow task)
// as a JSON array of arrays, in the order of LINE_SET_FIELDS (src/api/jobs/queue.store.ts); `seq`
// is its first line's. The view job_line_rows reads them as rows, with those of job_lines, which
// keeps the lines recorded before this migration (and by nodes of the older version while an
// upgrade goes on: job_lines stays, and switchboard_job_ends_7 with it).
// PostgreSQL: no foreign key, as job_lines (0024): the inserts lock the jobs they write lines for,
// and the trigger that deletes the lines of deleted jobs deletes these too. SQLite: a foreign key.
import { sql, type Kysely } from 'kysely';
import type { DialectName } from '../dialect.ts';

export async function up(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
  await db.schema
    .createTable('job_line_sets')
    .addColumn('job_id', 'bigint', (c) =>
      dialect === 'postgres' ? c.notNull() : c.notNull().references('jobs.id').onDelete('cascade'),
    )
    .addColumn('seq', 'integer', (c) => c.notNull())
    .addColumn('lines', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('job_line_sets_pk', ['job_id', 'seq'])
    .execute();
  const columns = sql`job_id, seq, recipe_line_number, adapter_name, adapter_operation, pass, input, output, error, mask_data, started_at, completed_at`;
  if (dialect !== 'postgres') {
    await sql`create view job_line_rows as
      select s.job_id as job_id, json_extract(e.value, '$[0]') as seq, json_extract(e.value, '$[1]') as recipe_line_number,
          json_extract(e.value, '$[2]') as adapter_name, json_extract(e.value, '$[3]') as adapter_operation,
          json_extract(e.value, '$[4]') as pass, json_extract(e.value, '$[5]') as input, json_extract(e.value, '$[6]') as output,
          json_extract(e.value, '$[7]') as error, json_extract(e.value, '$[8]') as mask_data,
          json_extract(e.value, '$[9]') as started_at, json_extract(e.value, '$[10]') as completed_at
        from job_line_sets s, json_each(s.lines) e
      union all
      select ${columns} from job_lines`.execute(db);
    return;
  }
  await sql`create view job_line_rows as
    select s.job_id, (e.v ->> 0)::int as seq, (e.v ->> 1)::int as recipe_line_number, e.v ->> 2 as adapter_name,
        e.v ->> 3 as adapter_operation, (e.v ->> 4)::int as pass, e.v ->> 5 as input, e.v ->> 6 as output, e.v ->> 7 as error,
        (e.v ->> 8)::int as mask_data, e.v ->> 9 as started_at, e.v ->> 10 as completed_at
      from job_line_sets s cross join lateral json_array_elements(s.lines::json) as e(v)
    union all
    select ${columns} from job_lines`.execute(db);
  await sql`create function switchboard_delete_lines_of_jobs_2() returns trigger
    language plpgsql
    as $body$
    begin
      delete from job_line_sets where job_id in (select id from deleted_jobs);
      delete from job_lines where job_id in (select id from deleted_jobs);
      return null;
    end
    $body$`.execute(db);
  await sql`drop trigger jobs_delete_their_lines on jobs`.execute(db);
  await sql`create trigger jobs_delete_their_lines after delete on jobs referencing old table as deleted_jobs
    for each statement execute function switchboard_delete_lines_of_jobs_2()`.execute(db);
  // switchboard_job_ends_7 (0082) with each job's lines as one row.
  await sql`create function switchboard_job_ends_8(
      sets_job_id bigint[], sets_seq int[], sets_lines text[],
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
        select s.* from unnest(sets_job_id, sets_seq, sets_lines) as s(job_id, seq, lines)
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
}
