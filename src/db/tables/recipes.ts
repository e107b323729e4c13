// Row types of recipes at rest and at run time: recipes, versions, jobs and their lines, workflow tasks, test cases and run requests.
import type { Generated } from 'kysely';
import type { Flag } from './workspaces.ts';

export interface RecipesTable {
  id: Generated<number>;
  workspace_id: number;
  environment_id: number;
  folder_id: number;
  name: string;
  description: string;
  /** The step tree exactly as the client sent it. */
  code: string;
  /** The config array, JSON text. */
  config: string;
  trigger_application: string | null;
  /** JSON list of providers used by actions, in first-use order. */
  action_applications: string;
  /** Event name of a webhook trigger (its URL's last segment); null for other triggers. */
  webhook_event: string | null;
  concurrency: number;
  running: Flag;
  version_no: number;
  copy_count: number;
  job_succeeded_count: number;
  job_failed_count: number;
  lifetime_task_count: number;
  last_run_at: string | null;
  stopped_at: string | null;
  stop_cause: string | null;
  trigger_closure: string | null;
  webhook_key: string;
  author_name: string;
  author_email: string;
  created_at: string;
  updated_at: string;
}

/**
 * Job counters appended by records of job ends, not yet folded into the recipe's columns; a
 * recipe's counts are its columns plus its rows here (src/api/jobs/job-counts.ts).
 */
export interface RecipeJobCountsTable {
  id: Generated<number>;
  recipe_id: number;
  succeeded: number;
  failed: number;
  task_count: number;
  last_run_at: string | null;
}

export interface RecipeVersionsTable {
  id: Generated<number>;
  recipe_id: number;
  version_no: number;
  name: string;
  description: string;
  code: string;
  config: string;
  comment: string | null;
  author_name: string;
  author_email: string;
  created_at: string;
  updated_at: string;
}

/** Engine states; the API shows queued and running as `pending`, canceled as `failed`. */
/** `waiting`: stopped at a workflow task until it ends (API: pending). */
export type JobState = 'queued' | 'running' | 'waiting' | 'succeeded' | 'failed' | 'canceled';

export type WorkflowTaskStatus = 'open' | 'completed' | 'expired' | 'canceled';

export interface WorkflowTasksTable {
  id: Generated<number>;
  workspace_id: number;
  environment_id: number;
  recipe_id: number;
  job_id: number;
  step_number: number;
  name: string;
  assignee: string | null;
  record_id: string | null;
  status: WorkflowTaskStatus;
  task_type: 'approval' | 'form';
  form_fields: string;
  checkpoint: string;
  result: string | null;
  completed_by: string | null;
  created_at: string;
  expires_at: string | null;
  completed_at: string | null;
}

export interface JobsTable {
  id: Generated<number>;
  recipe_id: number;
  handle: string;
  status: JobState;
  title: string;
  trigger_output: string;
  error: string | null;
  error_parts: string | null;
  is_poll_error: Flag;
  is_repeat: Flag;
  is_test: Flag;
  master_job_handle: string | null;
  calling_recipe_id: number | null;
  calling_job_handle: string | null;
  root_recipe_id: number | null;
  root_job_handle: string | null;
  task_count: number;
  created_at: string;
  started_at: string;
  completed_at: string | null;
  /** The node that claimed the job (ServiceContext.nodeId); null while queued. */
  claimed_by: string | null;
  /** Until when the claim holds unless renewed (several nodes: a job past it was left by a dead node). */
  lease_expires_at: string | null;
  /** What the job returned (return_response / return_result) as JSON `{kind, value}`, written with its end. */
  reply: string | null;
  /** 1 when a caller waits for the job's answer (on any node): its end is announced (job.ended). */
  awaited: Generated<Flag>;
  /** The recipe's version_no the job ran (stored with the job, written again at its end); null before migration 0076. */
  recipe_version_no: number | null;
}

/**
 * A line of a job: in the view job_line_rows (every line, one row each), and in the table
 * job_lines, which keeps the lines recorded before migration 0083.
 */
export interface JobLinesTable {
  job_id: number;
  seq: number;
  recipe_line_number: number;
  adapter_name: string;
  adapter_operation: string;
  pass: number | null;
  input: string | null;
  output: string | null;
  error: string | null;
  mask_data: Flag;
  started_at: string;
  completed_at: string;
}

/**
 * The lines a job recorded at once (its end, or its stop at a workflow task), as one row (0083):
 * `lines` is a JSON array of arrays in the order of LINE_SET_FIELDS (src/api/jobs/queue.store.ts);
 * `seq` is the first line's.
 */
export interface JobLineSetsTable {
  job_id: number;
  seq: number;
  lines: string;
}

/** A step line's input or output too large for the line itself, kept whole (0075). */
export interface JobLineValuesTable {
  job_id: number;
  seq: number;
  field: 'input' | 'output';
  value: string;
}

/** A started recipe's static webhook key: its trigger's `webhook_key` for its custom connector (0077). */
export interface StaticWebhookKeysTable {
  recipe_id: number;
  connector_id: number;
  /** SHA-256 (hex) of the key. */
  key_hash: string;
  created_at: string;
}

export interface TestCasesTable {
  id: string;
  recipe_id: number;
  name: string;
  description: string;
  /** JSON: { trigger_output, mocks, expectations, allow_external }. */
  body: string;
  /** Order within the recipe: created or imported later, higher. */
  position: Generated<number>;
  created_at: string;
  updated_at: string;
}

export interface TestRunRequestsTable {
  id: string;
  workspace_id: number;
  environment_id: number;
  client_id: number;
  status: 'running' | 'completed';
  /** JSON array of results. */
  results: string;
  coverage: number | null;
  created_at: string;
  updated_at: string;
}
