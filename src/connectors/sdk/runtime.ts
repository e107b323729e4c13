// Custom connectors' runtime: runs a path of a connector written in the vendor's Ruby SDK
// (`test`, `actions.<name>.execute`, `triggers.<name>.poll`...) in the Ruby sandbox, and answers
// what the connector's code asks of the server through the `ConnectorHost` its caller gives: every
// HTTP request, so the caller's transport applies the outbound rules, timeouts and logging; the
// values `acquire` or `refresh` return, so the caller stores them; account properties, lookups.
import { createHash, randomInt } from 'node:crypto';
import { createRubySandbox, type RubySandbox, type RubySandboxOptions } from './ruby-sandbox.ts';
import type { HostOp } from './ruby-worker.ts';
import { httpAnswerOf, sdkRequestOf, type SdkHttpRequest, type SdkHttpResponse } from './http-op.ts';
import type { ExchangeLogLine } from '../http/transport.ts';
import type { DirectExchange } from './request-thread-client.ts';

export type { SdkHttpRequest, SdkHttpResponse } from './http-op.ts';

/** A request that could not be made (refused, unreachable, timed out): the connector's code sees the message. */
export class SdkHttpError extends Error {
  override name = 'SdkHttpError';
  readonly timeout: boolean;
  constructor(message: string, options: { timeout?: boolean } = {}) {
    super(message);
    this.timeout = options.timeout ?? false;
  }
}

/** What the server lends a running connector. */
export interface ConnectorHost {
  http(request: SdkHttpRequest): Promise<SdkHttpResponse>;
  /**
   * `http` as data, for the runtime's request thread to make the requests as `http` would (the same
   * transport settings, limits and masked values) while this thread runs other work; requests with
   * TLS options of their own still come to `http`. Without it every request comes to `http`.
   */
  direct?: {
    exchange: DirectExchange;
    /** A `Retry-After` wait of the exchange, as `http`'s transport would wait. */
    sleep(ms: number): Promise<void>;
    /** A debug log line of the exchange (already without secrets). */
    log(line: ExchangeLogLine): void;
  };
  /** `account_property(name)`: the workspace's property (environment property), or null. */
  accountProperty?(name: string): Promise<string | null>;
  /** `lookup(table, conditions)`: the first matching row of a lookup table, or null. */
  lookup?(table: string, conditions: Record<string, unknown>): Promise<Record<string, unknown> | null>;
  /** `acquire` or `refresh` gave the connection new values (tokens): store them. */
  connectionUpdated?(settings: Record<string, unknown>): Promise<void>;
  /**
   * Before a refresh (`refresh_on` matched): this call refreshes (`lead`), or another call's refresh
   * already stored new values (`settings`: use them), or the refresh cannot be made (`failed`).
   * Without it, every call refreshes.
   */
  refreshBegin?(): Promise<RefreshTurn>;
  /** The refresh this call led ended: its values stored (`ok`), or it failed (`refused`: by the service). */
  refreshEnd?(end: { ok: boolean; refused: boolean; message: string | null }): Promise<void>;
}

export type RefreshTurn = { lead: true } | { settings: Record<string, unknown> } | { failed: string };

/** Named parameters of a path, as the vendor's `exec` command names them. */
export interface ConnectorParams {
  settings?: Record<string, unknown>;
  input?: unknown;
  args?: unknown;
  closure?: unknown;
  continue?: unknown;
  config_fields?: Record<string, unknown>;
  extended_input_schema?: unknown[];
  extended_output_schema?: unknown[];
  payload?: unknown;
  headers?: Record<string, unknown>;
  params?: Record<string, unknown>;
  webhook_url?: string;
  webhook_subscribe_output?: unknown;
  oauth2_code?: string;
  redirect_url?: string;
  /** `connection.authorization.acquire`: the PKCE verifier the code was asked with. */
  code_verifier?: string;
  /** `connection.authorization.pkce`: the verifier and its S256 challenge the lambda is given. */
  verifier?: string;
  challenge?: string;
  refresh_token?: string;
  recipe_id?: string;
}

export interface ConnectorCall {
  /** The connector's Ruby source. */
  source: string;
  /** Names this version of the source (default: its SHA-256). */
  sourceKey?: string;
  /** Named in error messages (the connector's title or name). */
  connectorName: string;
  /** Whose call this is: a call never sees what a call of another workspace or scope left. */
  workspaceId: number | string;
  /** Narrower than the workspace (a recipe, a connection): calls of other scopes are isolated too. */
  scope?: string;
  path: string;
  params?: ConnectorParams;
  /** CPU time of the call (waits for the server excluded). */
  timeoutMs?: number;
  /** Wall time of the call, waits included. */
  wallTimeoutMs?: number;
}

export interface ConnectorFailure {
  /** `syntax`, `definition`, `http`, `timeout`, `input`, `error` (the connector's `error`), `memory`, `stack`, `cpu_time`, `crashed`, `exception`... */
  kind: string;
  /** The Ruby class of the error, when Ruby raised it. */
  rubyClass: string | null;
  /** What the user reads: names the connector, the path and the line. */
  message: string;
  /** The error's own text. */
  detail: string;
  line: number | null;
  /** The HTTP status of a failed request. */
  status: number | null;
}

export type ConnectorOutcome =
  | { ok: true; value: unknown; settings?: Record<string, unknown>; logs: string }
  | { ok: false; error: ConnectorFailure; settings?: Record<string, unknown>; logs: string };

export interface RubyCodeCall {
  code: string;
  input: Record<string, unknown>;
  workspaceId: number | string;
  scope?: string;
  timeoutMs?: number;
  wallTimeoutMs?: number;
}

export interface ConnectorRuntime {
  /** Run a path of a connector. Never throws for what the connector does: its failures are outcomes. */
  invoke(call: ConnectorCall, host: ConnectorHost): Promise<ConnectorOutcome>;
  /** The connector as data (title, connection fields and authorization, actions, triggers). */
  describe(call: Omit<ConnectorCall, 'path' | 'params'>): Promise<ConnectorOutcome>;
  /** Run Ruby code with `input` at hand (a Ruby code step): the value of its last expression. */
  runCode(call: RubyCodeCall, host: ConnectorHost): Promise<ConnectorOutcome>;
  /** Start loading an interpreter now (a recipe with a custom connector starts). */
  warm(): void;
  workerMemory(): Promise<Array<{ wasmBytes: number; heapBytes: number }>>;
  close(): Promise<void>;
}

export interface ConnectorRuntimeOptions extends RubySandboxOptions {
  /** Defaults of a call's limits. */
  timeoutMs?: number;
  wallTimeoutMs?: number;
  /** Descriptions kept (`describe` of a source already described answers without Ruby). */
  descriptionsKept?: number;
}

const DEFAULT_TIMEOUT_MS = 30_000;
/** Descriptions kept (the latest used first out): a connector version described once per workspace. */
const DESCRIPTIONS_KEPT = 256;
const DEFAULT_WALL_TIMEOUT_MS = 180_000;

export function sourceKeyOf(source: string): string {
  return createHash('sha256').update(source).digest('hex').slice(0, 32);
}

interface RubyAnswer {
  ok: boolean;
  value?: unknown;
  settings?: Record<string, unknown>;
  error?: { class?: string; message?: string; line?: number | null; status?: number; kind?: string };
}

/** The host ops of a running call, answered through the caller's host. */
function hostOps(host: ConnectorHost): (op: HostOp) => Promise<unknown> {
  return async (op) => {
    switch (op.op) {
      case 'http': {
        try {
          return httpAnswerOf(await host.http(sdkRequestOf(op.request)));
        } catch (error) {
          if (error instanceof SdkHttpError && error.timeout) return { timeout: true, message: error.message };
          return { error: error instanceof Error ? error.message : String(error) };
        }
      }
      case 'rate_limit_wait':
        try {
          await host.direct?.sleep(Number(op.ms) || 0);
          return { error: null };
        } catch (error) {
          return { error: error instanceof Error ? error.message : String(error) };
        }
      case 'exchange_log':
        host.direct?.log(op.line as ExchangeLogLine);
        return {};
      case 'account_property':
        return { value: host.accountProperty ? await host.accountProperty(String(op.name ?? '')) : null };
      case 'lookup':
        if (!host.lookup) return { error: 'lookup tables are not available here' };
        return { row: await host.lookup(String(op.table ?? ''), (op.conditions ?? {}) as Record<string, unknown>) };
      case 'connection_update':
        await host.connectionUpdated?.((op.settings ?? {}) as Record<string, unknown>);
        return {};
      case 'refresh_begin':
        return host.refreshBegin ? await host.refreshBegin() : { lead: true };
      case 'refresh_end':
        await host.refreshEnd?.({
          ok: op.ok === true,
          refused: op.refused === true,
          message: typeof op.message === 'string' ? op.message : null,
        });
        return {};
      default:
        return { error: `unknown request ${String(op.op)}` };
    }
  };
}

function failure(
  name: string,
  path: string,
  kind: string,
  detail: string,
  extra: Partial<ConnectorFailure> = {},
): ConnectorFailure {
  const line = extra.line ?? null;
  const where = line === null ? path : `${path}, line ${line}`;
  return {
    kind,
    rubyClass: extra.rubyClass ?? null,
    message: `${name} (${where}): ${detail}`,
    detail,
    line,
    status: extra.status ?? null,
  };
}

export function createConnectorRuntime(options: ConnectorRuntimeOptions): ConnectorRuntime {
  let sandbox: RubySandbox | null = null;
  const getSandbox = () => (sandbox ??= createRubySandbox(options));
  // A description depends only on the source: kept per workspace, scope and source (its key and its
  // hash), the same description asked twice at once runs once; a failure is not kept.
  const descriptions = new Map<string, Promise<ConnectorOutcome>>();

  async function execute(
    name: string,
    path: string,
    key: string,
    call: Record<string, unknown>,
    source: string,
    limits: { timeoutMs?: number; wallTimeoutMs?: number },
    host: ConnectorHost,
  ): Promise<ConnectorOutcome> {
    const run = await getSandbox().run(
      {
        key,
        call: { ...call, seed: randomInt(0, 2 ** 47) },
        source,
        direct: host.direct?.exchange ?? null,
        timeoutMs: limits.timeoutMs ?? options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
        wallTimeoutMs: limits.wallTimeoutMs ?? options.wallTimeoutMs ?? DEFAULT_WALL_TIMEOUT_MS,
      },
      hostOps(host),
    );
    if (!run.ok) {
      const kind = run.reason === 'timeout' ? 'cpu_time' : run.reason;
      return { ok: false, error: failure(name, path, kind, run.message), logs: run.logs };
    }
    const answer = run.result as RubyAnswer;
    const settings = answer.settings ? { settings: answer.settings } : {};
    if (answer.ok) return { ok: true, value: answer.value ?? null, ...settings, logs: run.logs };
    const error = answer.error ?? {};
    return {
      ok: false,
      error: failure(name, path, error.kind ?? 'exception', error.message ?? 'the code failed', {
        rubyClass: error.class ?? null,
        line: typeof error.line === 'number' ? error.line : null,
        status: typeof error.status === 'number' ? error.status : null,
      }),
      ...settings,
      logs: run.logs,
    };
  }

  function keyOf(workspaceId: number | string, scope: string | undefined, sourceKey: string): string {
    return JSON.stringify([String(workspaceId), scope ?? '', sourceKey]);
  }

  const noHost: ConnectorHost = {
    http: () => Promise.reject(new SdkHttpError('no request can be made while describing a connector')),
  };

  return {
    invoke(call, host) {
      const sourceKey = call.sourceKey ?? sourceKeyOf(call.source);
      return execute(
        call.connectorName,
        call.path,
        keyOf(call.workspaceId, call.scope, sourceKey),
        { source_key: sourceKey, path: call.path, params: call.params ?? {} },
        call.source,
        call,
        host,
      );
    },
    async describe(call) {
      const hash = sourceKeyOf(call.source);
      const sourceKey = call.sourceKey ?? hash;
      const key = keyOf(call.workspaceId, call.scope, sourceKey);
      const cacheKey = `${key}\0${hash}\0${call.connectorName}`;
      let described = descriptions.get(cacheKey);
      if (described) {
        descriptions.delete(cacheKey);
        descriptions.set(cacheKey, described);
      } else {
        described = execute(
          call.connectorName,
          'describe',
          key,
          { source_key: sourceKey, path: 'describe', params: {} },
          call.source,
          call,
          noHost,
        );
        descriptions.set(cacheKey, described);
        if (descriptions.size > (options.descriptionsKept ?? DESCRIPTIONS_KEPT))
          descriptions.delete(descriptions.keys().next().value!);
        const kept = described;
        const forget = () => {
          if (descriptions.get(cacheKey) === kept) descriptions.delete(cacheKey);
        };
        void kept.then((outcome) => {
          if (!outcome.ok) forget();
        }, forget);
      }
      // Each caller gets its own copy: what one does with it is not seen by the next.
      return structuredClone(await described);
    },
    runCode(call, host) {
      return execute(
        'Ruby code',
        'code',
        keyOf(call.workspaceId, `code:${call.scope ?? ''}`, sourceKeyOf(call.code)),
        { code: true, input: call.input },
        call.code,
        call,
        host,
      );
    },
    warm() {
      getSandbox().warm();
    },
    workerMemory() {
      return sandbox ? sandbox.workerMemory() : Promise.resolve([]);
    },
    async close() {
      descriptions.clear();
      await sandbox?.close();
      sandbox = null;
    },
  };
}
