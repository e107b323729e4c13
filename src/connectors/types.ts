// The one interface through which the engine runs every connector (docs/adr/0019): a connector
// is data (provider, title, its connection, its actions and triggers with their fields) plus the
// code only it needs. A step receives its evaluated input and returns its output; the worker
// records both as the job's line.
import type { ServiceContext } from '../context.ts';
import type { Hash, Value } from '../recipe/formula/values.ts';
import type { TaskFormField } from '../recipe/document.ts';
import type { EventStreamsRuntime } from '../api/topics/topics.service.ts';
import type { RecordListener } from '../api/data_tables/data_tables.service.ts';
import type { AuthState, ConnectionDefinition, SchemaField } from './definition.ts';
import type { ConnectorOutcome } from './sdk/runtime.ts';

/** An input field a step must have (checked when the recipe starts: "can't be blank"). */
export interface RequiredField {
  /** Dotted path in the step's input, e.g. `request.url`. */
  path: string;
  label: string;
}

export { StepError } from './step-error.ts';

/** Thrown by an action that ends the job successfully (return_response, return_result). */
export class EndJob extends Error {
  override name = 'EndJob';
  readonly kind: 'response' | 'result';
  readonly value: Value;
  constructor(kind: 'response' | 'result', value: Value) {
    super(`job ended by ${kind}`);
    this.kind = kind;
    this.value = value;
  }
}

/** The task a workflow task step creates. */
export interface TaskSpec {
  name: string;
  assignee: string | null;
  recordId: string | null;
  taskType: 'approval' | 'form';
  formFields: TaskFormField[];
  /** When the task expires (ISO), or null: it waits until completed or canceled. */
  expiresAt: string | null;
}

/**
 * Thrown by a workflow task step: the job stops here and waits for the task (it holds no worker
 * meanwhile); when the task ends, the job runs again from its checkpoint (executor.ts).
 */
export class SuspendJob extends Error {
  override name = 'SuspendJob';
  readonly task: TaskSpec;
  /** The number of the step that stopped the job (set by the executor). */
  step = 0;
  constructor(task: TaskSpec) {
    super('the job waits for a workflow task');
    this.task = task;
  }
}

/** A job another job started (a recipe function call), as `wait_for_async_jobs` reports it. */
export interface CalledJob {
  jobId: string;
  recipeId: number;
  status: 'queued' | 'running' | 'waiting' | 'succeeded' | 'failed' | 'canceled';
  error: string | null;
}

/** What a synchronous recipe-function call gives back. */
export interface CallOutcome {
  recipeId: number;
  jobId: string;
  /** The callee's return_result value; null when it ended without one. */
  result: Value;
}

export interface RecipeRef {
  id: number;
  name: string;
  workspaceId: number;
  environmentId: number;
}

/**
 * Runs a code step's source off the event loop within limits: what a step needs of the engine's
 * JavaScript and Python sandboxes (src/engine/sandbox/), declared here so connectors stay below the engine.
 */
export interface CodeSandbox {
  /** `tenant`: a recipe of a workspace; a sandbox that keeps state runs only its steps on a worker. */
  run(
    code: string,
    input: unknown,
    limits: { timeoutMs: number; memoryBytes: number },
    /** Whose code this is (`workspace/recipe`): a Python worker runs one tenant's steps only. */
    tenant?: string,
  ): Promise<{ ok: true; output: unknown } | { ok: false; type: string; message: string }>;
}

/** A Ruby code step (workato_custom_code), as the engine's Ruby runner takes it (src/engine/sandbox/ruby-code.ts). */
export interface RubyStepCall {
  code: string;
  input: Record<string, unknown>;
  workspaceId: number;
  /** Narrower than the workspace: the recipe. */
  scope: string;
  /** CPU time and wall time of the step (waits for answers included in the wall time). */
  timeoutMs: number;
  /** The recipe's environment, lent to the code. */
  accountProperty(name: string): Promise<string | null>;
  lookup(table: string, conditions: Record<string, unknown>): Promise<Record<string, unknown> | null>;
}

export interface RubyStepRunner {
  run(call: RubyStepCall): Promise<ConnectorOutcome>;
  /** Start loading an interpreter now (a recipe with a Ruby step starts). */
  warm(): void;
  close(): Promise<void>;
}

/**
 * The image threads of the process (transform_image, charts; bounded, with a queue: IMAGE_WORKERS).
 * Their jobs and replies are the engine's images folder's own types, which it reads back.
 */
export interface ImageRunner {
  run(job: never): Promise<unknown>;
}

/** The sandboxes of code steps (JavaScript, Python and Ruby) and the image threads, each in worker threads. */
export interface CodeSandboxes {
  js: CodeSandbox;
  py: CodeSandbox;
  ruby: RubyStepRunner;
  images: ImageRunner;
}

export interface StepContext {
  readonly ctx: ServiceContext;
  readonly recipe: RecipeRef;
  readonly jobHandle: string;
  /** Outputs of the steps that ran, by their `as`; variables actions change their declare step's entry. */
  readonly outputs: Map<string, Value>;
  /** The connection of this provider's config slot, resolved, or null when the slot is empty. */
  connection(): Promise<ConnectionValues | null>;
  /** Waits, unless the job is being shut down. */
  sleep(ms: number): Promise<void>;
  /** Run a job of the recipe function `flow` (an id or a {name, folder} reference) with these parameters. */
  callRecipe(flow: Value, parameters: Value, wait: boolean): Promise<CallOutcome>;
  /**
   * Wait (holding no worker) until every job this job started has ended, or `timeoutMs` passed;
   * the jobs as they are then. Absent where a job cannot wait (a trigger filter).
   */
  waitForCalls?(timeoutMs: number): Promise<CalledJob[]>;
  readonly limits: EngineLimits;
  /** The event streams runtime (topics, group-commit publisher) of this process, when there is one. */
  readonly eventStreams: EventStreamsRuntime | null;
  /** Sandboxes for code steps (worker threads, reused between steps). */
  readonly sandboxes?: CodeSandboxes;
  /** The environment's properties (account_property), for code that reads them. */
  readonly properties?: ReadonlyMap<string, string>;
  /** Told of data table records written by steps (real-time data table triggers). */
  readonly dataTables?: RecordListener;
}

export interface ConnectionValues {
  id: number;
  provider: string;
  /** The connection's name, for errors that must say which connection failed. */
  name?: string;
  values: Record<string, unknown>;
  rest?: { baseUrl: URL; headers: Record<string, string> };
  /**
   * What the connection's authorization left (tokens, expiry, instance URL...), opened; a
   * session that refreshes the tokens replaces it here too, so later steps of the job use them.
   */
  auth?: AuthState;
  /** The custom OAuth profile the connection names (its OAuth app), when it names one. */
  oauthProfileId?: number | null;
}

export interface EngineLimits {
  /** How long a synchronous recipe-function call waits for the callee's job. */
  callTimeoutMs: number;
  httpTimeoutMs: number;
  httpMaxResponseBytes: number;
  maxWaitSeconds: number;
  /** A code step's time and memory. */
  codeTimeoutMs: number;
  codeMemoryBytes: number;
  /** One call of a model connection (AI steps, Genie turns). */
  modelTimeoutMs: number;
  /** Largest answer read from a model. */
  modelMaxResponseBytes: number;
  /**
   * How long one step of a connector may take in all: its requests, and the waits a 429 or 503
   * asks for (`Retry-After`), which are taken only while they fit.
   */
  connectorStepMs: number;
}

export interface ActionDef {
  title: string;
  required?: RequiredField[];
  /** This action reaches outside Switchboard while its connector's others do not (a download): a test case mocks it. */
  reachesOutside?: boolean;
  /** The vendor's description of the action, for the catalog. */
  description?: string;
  /** Its input and output fields as the vendor's schema writes them (the catalog, datapills). */
  inputFields?: readonly SchemaField[];
  outputFields?: readonly SchemaField[];
  /** A task is counted for each run of a task action (control flow is free). */
  run(input: Hash, sc: StepContext): Promise<Value> | Value;
}

export type TriggerKind =
  | 'schedule'
  | 'webhook'
  | 'api_request'
  | 'function_call'
  | 'skill_call'
  | 'topic'
  | 'poll'
  | 'data_table'
  | 'app_function';

export interface TriggerDef {
  title: string;
  kind: TriggerKind;
  required?: RequiredField[];
  description?: string;
  inputFields?: readonly SchemaField[];
  outputFields?: readonly SchemaField[];
  /** Problems with the trigger's (literal) input, as [label, value, message, path]. */
  check?(input: Hash): Array<[string, unknown, string, string]>;
  /** The output of line 0 from the stored event. */
  output(event: Hash): Value;
  /** Up to three label=value pairs for the job title. */
  titleFields?(event: Hash): Array<[string, string]>;
  /**
   * A connector's polling trigger (kind `poll`), run by the engine's poller (src/engine/polls.ts):
   * one page of events after `closure` (null on the first poll and after reset_trigger) and the
   * closure to keep. The engine stores the events as jobs and the closure in one transaction, so
   * a poll is never half applied; events whose `dedup` key was seen recently are dropped; while
   * `canPollMore` is true it polls again at once.
   */
  poll?(input: Hash, closure: unknown, tc: TriggerContext): Promise<PollPage>;
  /** A connector's webhook trigger (kind `webhook`), served on the recipe's webhook URL. */
  webhook?: WebhookTriggerDef;
}

/** What a connector's trigger code may use outside a job: the recipe, its connection, the limits. */
export interface TriggerContext {
  readonly ctx: ServiceContext;
  readonly recipe: RecipeRef;
  /** The connection of the trigger's config slot, resolved, or null when the slot is empty. */
  connection(): Promise<ConnectionValues | null>;
  sleep(ms: number): Promise<void>;
  readonly limits: EngineLimits;
}

/** One event of a trigger; `dedup` identifies it (an id, or id and update time): seen keys are dropped. */
export interface TriggerEvent {
  event: Hash;
  dedup?: string | null;
}

export interface PollPage {
  /** Oldest first: they become jobs in this order. */
  events: TriggerEvent[];
  /** Kept with the jobs (JSON); given back to the next poll. */
  closure: unknown;
  /** More are waiting: poll again at once. */
  canPollMore: boolean;
}

/** A request to the recipe's webhook URL, as a webhook trigger reads it. */
export interface WebhookRequest {
  method: string;
  /** Lower-case names. */
  headers: Record<string, string>;
  query: Record<string, string>;
  /** The parsed body (JSON, form) or its text. */
  payload: Value;
  /** The body as sent (signatures are computed over it). */
  raw: string;
}

export interface WebhookAnswer {
  events: TriggerEvent[];
  /** Answer the caller this way instead of 200 {"status":"ok"} (a URL verification challenge). */
  reply?: { status: number; body: unknown };
}

export interface WebhookTriggerDef {
  /** When the recipe starts: register `url` at the service; what it returns is kept for unsubscribe and notifications. */
  subscribe?(input: Hash, url: string, tc: TriggerContext): Promise<unknown>;
  /** When the recipe stops: undo the subscription. */
  unsubscribe?(input: Hash, subscription: unknown, tc: TriggerContext): Promise<void>;
  /** Each request: its events (none to ignore it). A thrown StepError answers 400 with its message and stores nothing. */
  notification(input: Hash, request: WebhookRequest, subscription: unknown, tc: TriggerContext): Promise<WebhookAnswer>;
  /**
   * A static webhook (a custom connector's `webhook_keys` with the trigger's `webhook_key`): one URL
   * per connector; a request goes to each started recipe of its workspace whose key matches.
   */
  static?: {
    connectorId: number;
    /** The key the connector's `webhook_keys` computes from a request (null: none). */
    requestKey(request: WebhookRequest, tc: TriggerContext): Promise<string | null>;
    /** The key of a recipe: the trigger's `webhook_key` of its connection and input. */
    recipeKey(input: Hash, tc: TriggerContext): Promise<string | null>;
  };
}

export interface Connector {
  /** The provider key exactly as the vendor's exports spell it (`salesforce`, `slack_bot`). */
  provider: string;
  title: string;
  description?: string;
  /** The vendor's categories, for the catalog (`CRM`, `Collaboration`). */
  categories?: readonly string[];
  /**
   * How a connection of this connector authenticates and where its requests go; absent for the
   * built-in connectors whose steps need no connection or use the built-in HTTP one.
   */
  connection?: ConnectionDefinition;
  /** Whether a step of this provider needs a connection in its config slot. */
  needsConnection: boolean;
  /** Its actions reach a system outside Switchboard (HTTP, e-mail, other recipes' jobs): a test case must mock them. */
  reachesOutside: boolean;
  /** Its actions only change the job's memory (variables): a resumed job runs them again rather than replaying their outcome. */
  jobMemoryOnly?: boolean;
  triggers: Record<string, TriggerDef>;
  actions: Record<string, ActionDef>;
}
