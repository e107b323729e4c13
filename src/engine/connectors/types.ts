// What a built-in connector is: its triggers and actions, each with the inputs it requires and
// what it does. A step receives its evaluated input and returns its output; the worker records
// both as the job's line.
import type { JsSandbox } from '../sandbox/js-sandbox.ts';
import type { PySandbox } from '../sandbox/py-sandbox.ts';
import type { ServiceContext } from '../../context.ts';
import type { Hash, Value } from '../../recipe/formula/values.ts';
import type { EventStreamsRuntime } from '../../api/topics/topics.service.ts';
import type { RecordListener } from '../../api/data_tables/data_tables.service.ts';
import type { TaskFormField } from '../../recipe/document.ts';

/** An input field a step must have (checked when the recipe starts: "can't be blank"). */
export interface RequiredField {
  /** Dotted path in the step's input, e.g. `request.url`. */
  path: string;
  label: string;
}

/** A step failure with the class the job shows in `error_parts.error_type`. */
export class StepError extends Error {
  override name = 'StepError';
  readonly errorType: string;
  readonly innerMessage: string | null;
  constructor(errorType: string, message: string, innerMessage: string | null = null) {
    super(message);
    this.errorType = errorType;
    this.innerMessage = innerMessage;
  }
}

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
  readonly limits: EngineLimits;
  /** The event streams runtime (topics, group-commit publisher) of this process, when there is one. */
  readonly eventStreams: EventStreamsRuntime | null;
  /** Sandboxes for code steps (worker threads, reused between steps). */
  readonly sandboxes?: { js: JsSandbox; py: PySandbox };
  /** Told of data table records written by steps (real-time data table triggers). */
  readonly dataTables?: RecordListener;
}

export interface ConnectionValues {
  id: number;
  provider: string;
  values: Record<string, unknown>;
  rest?: { baseUrl: URL; headers: Record<string, string> };
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
}

export interface ActionDef {
  title: string;
  required?: RequiredField[];
  /** A task is counted for each run of a task action (control flow is free). */
  run(input: Hash, sc: StepContext): Promise<Value> | Value;
}

export type TriggerKind = 'schedule' | 'webhook' | 'api_request' | 'function_call' | 'topic' | 'poll' | 'data_table';

export interface TriggerDef {
  title: string;
  kind: TriggerKind;
  required?: RequiredField[];
  /** Problems with the trigger's (literal) input, as [label, value, message, path]. */
  check?(input: Hash): Array<[string, unknown, string, string]>;
  /** The output of line 0 from the stored event. */
  output(event: Hash): Value;
  /** Up to three label=value pairs for the job title. */
  titleFields?(event: Hash): Array<[string, string]>;
}

export interface Connector {
  provider: string;
  title: string;
  /** Whether a step of this provider needs a connection in its config slot. */
  needsConnection: boolean;
  /** Its actions reach a system outside Switchboard (HTTP, e-mail, other recipes' jobs): a test case must mock them. */
  reachesOutside: boolean;
  /** Its actions only change the job's memory (variables): a resumed job runs them again rather than replaying their outcome. */
  jobMemoryOnly?: boolean;
  triggers: Record<string, TriggerDef>;
  actions: Record<string, ActionDef>;
}
