// A custom connector (contract 21) as a Connector of the catalog: its released Ruby source,
// described once by the runtime (title, connection fields, actions), and actions whose steps run
// the source's `execute` lambdas in the Ruby runtime (src/connectors/sdk/). Every HTTP request of a
// lambda goes back through the step's session (`send`: the shared transport, the outbound policy,
// the step's deadline), so the Ruby code applies its own authentication and reads every answer.
// What `acquire` or `refresh` return is kept sealed with the connection's authorization (`extra`).
import type { Hash, Value } from '../recipe/formula/values.ts';
import { fromPlain, toPlain } from '../recipe/formula/values.ts';
import { authStoreFor, emptyAuthState, stepSession, transportFor } from './connections.ts';
import { openSession } from './http/session.ts';
import type { AuthState, ConnectionDefinition, ConnectorSession, SchemaField } from './definition.ts';
import { StepError } from './step-error.ts';
import type { ActionDef, Connector, StepContext, TriggerContext, TriggerDef, TriggerEvent } from './types.ts';
import type { ServiceContext } from '../context.ts';
import { findConnectorByProvider, latestReleasedVersion } from '../api/custom_connectors/custom_connectors.store.ts';
import { standaloneLimits, type TestOutcome } from './connections.ts';
import {
  SdkHttpError,
  type ConnectorFailure,
  type ConnectorHost,
  type ConnectorParams,
  type ConnectorRuntime,
  type SdkHttpRequest,
} from './sdk/runtime.ts';

/** What `ConnectorRuntime.describe` says of a source (the parts the catalog uses). */
export interface DescribedConnector {
  title?: string;
  connection?: { fields?: SchemaField[]; authorization?: { type?: string } } | null;
  actions?: Record<string, { title?: string; description?: string } | undefined>;
  triggers?: Record<string, DescribedTrigger | undefined>;
}

interface DescribedTrigger {
  title?: string;
  description?: string;
  kind?: 'poll' | 'webhook';
  dynamic_webhook?: boolean;
  dedup?: boolean;
  input_fields?: SchemaField[];
  output_fields?: SchemaField[];
}

export interface CustomConnectorSource {
  /** The provider name recipes use (the connector's `name`, or an alias an import recorded). */
  provider: string;
  connectorId: number;
  version: number;
  source: string;
  workspaceId: number;
  described: DescribedConnector;
}

/** The step error a failed lambda becomes: its message names the connector, the path and the line. */
export function stepErrorOf(failure: ConnectorFailure): StepError {
  const type =
    failure.kind === 'http'
      ? failure.status !== null && failure.status >= 500
        ? 'Server error'
        : 'Bad request'
      : failure.kind === 'cpu_time' || failure.kind === 'timeout'
        ? 'Timeout'
        : 'Connector error';
  return new StepError(type, failure.message);
}

/** Settings a lambda sees: the connection's fields and what its authorization keeps. */
function settingsOf(session: ConnectorSession): Record<string, unknown> {
  return { ...session.state.auth.extra, ...session.state.values };
}

/** The host a lambda of a step borrows: the session's raw exchange, the job's log. */
function hostFor(session: ConnectorSession, secrets: string[]): ConnectorHost {
  return {
    async http(req: SdkHttpRequest) {
      if (req.clientCertificate || req.serverCertificates)
        throw new SdkHttpError('client certificates and pinned server certificates are not supported in recipes');
      try {
        const res = await session.send({
          method: req.method,
          url: req.url,
          headers: req.headers,
          ...(req.body ? { body: req.body } : {}),
          followRedirects: req.followRedirects !== false,
          secrets,
        });
        return { status: res.status, headers: res.headers, body: new Uint8Array(res.body), url: res.url };
      } catch (error) {
        if (error instanceof StepError)
          throw new SdkHttpError(error.message, { timeout: error.errorType === 'Timeout' });
        throw error;
      }
    },
  };
}

function secretsOf(settings: Record<string, unknown>): string[] {
  return Object.values(settings).filter((v): v is string => typeof v === 'string' && v.length >= 4);
}

/** Keeps the settings `acquire` or `refresh` changed beside the connection's fields (sealed). */
async function keepSettings(
  sc: StepContext | TriggerContext,
  session: ConnectorSession,
  connectionId: number | null,
  next: Record<string, unknown>,
): Promise<void> {
  const extra: Record<string, string> = { ...session.state.auth.extra };
  let changed = false;
  for (const [key, value] of Object.entries(next)) {
    if (Object.hasOwn(session.state.values, key) && session.state.values[key] === value) continue;
    const text = typeof value === 'string' ? value : JSON.stringify(value);
    if (extra[key] !== text) {
      extra[key] = text;
      changed = true;
    }
  }
  if (!changed || connectionId === null) return;
  const auth: AuthState = { ...session.state.auth, extra };
  const scope = { workspaceId: sc.recipe.workspaceId, environmentId: sc.recipe.environmentId };
  await authStoreFor(sc.ctx, scope, connectionId).save(auth);
  const connection = await sc.connection();
  if (connection) connection.auth = auth;
}

function requiredFields(fields: readonly SchemaField[]): (values: Record<string, unknown>) => string[] {
  return (values) =>
    fields
      .filter((f) => f.optional !== true && typeof f.name === 'string')
      .map((f) => f.name)
      .filter((name) => values[name] === undefined || values[name] === null || values[name] === '');
}

/** A session for a connector that declares no connection: the shared transport, nothing to apply. */
function sessionWithout(sc: StepContext | TriggerContext, connector: Connector): ConnectorSession {
  return openSession({
    definition: connector.connection!,
    connection: { id: null, name: connector.title, provider: connector.provider },
    state: { values: {}, auth: emptyAuthState() },
    transport: transportFor(sc.ctx),
    limits: {
      timeoutMs: sc.limits.httpTimeoutMs,
      maxResponseBytes: sc.limits.httpMaxResponseBytes,
      deadline: Date.now() + (sc.limits.connectorStepMs ?? 120_000),
      sleep: (ms) => sc.sleep(ms),
    },
  });
}

/** The Connector of a custom connector's released source. */
export function customConnector(spec: CustomConnectorSource, runtime: () => ConnectorRuntime): Connector {
  const title = spec.described.title ?? spec.provider;
  const fields = spec.described.connection?.fields ?? [];
  const connection: ConnectionDefinition = {
    fields,
    auth: { type: 'custom', requiredFields: requiredFields(fields) },
    // The Ruby code joins its own base_uri; relative paths of the shared layer are not used.
    baseUrl: () => 'http://connector.invalid/',
    test: async () => null,
  };
  const invoke = async (
    sc: StepContext | TriggerContext,
    path: string,
    params: Omit<ConnectorParams, 'settings'>,
  ): Promise<unknown> => {
    const session = connector.needsConnection ? await stepSession(sc, connector) : sessionWithout(sc, connector);
    const settings = settingsOf(session);
    const outcome = await runtime().invoke(
      {
        source: spec.source,
        sourceKey: `${spec.connectorId}:${spec.version}`,
        connectorName: title,
        workspaceId: spec.workspaceId,
        path,
        params: { settings, ...params },
      },
      hostFor(session, secretsOf(settings)),
    );
    if (outcome.settings) await keepSettings(sc, session, session.connection.id, outcome.settings);
    if (!outcome.ok) throw stepErrorOf(outcome.error);
    return outcome.value ?? null;
  };
  const call = async (sc: StepContext, path: string, input: Value): Promise<Value> =>
    fromPlain((await invoke(sc, path, { input: toPlain(input) })) as never);
  const actions: Record<string, ActionDef> = {};
  for (const [name, def] of Object.entries(spec.described.actions ?? {})) {
    actions[name] = {
      title: def?.title ?? name,
      ...(def?.description ? { description: def.description } : {}),
      run: (input: Hash, sc: StepContext) => call(sc, `actions.${name}.execute`, input),
    };
  }
  const triggers: Record<string, TriggerDef> = {};
  for (const [name, def] of Object.entries(spec.described.triggers ?? {}))
    triggers[name] = customTrigger(name, def ?? {}, invoke);
  const connector: Connector = {
    provider: spec.provider,
    title,
    connection,
    needsConnection: fields.length > 0 || (spec.described.connection?.authorization?.type ?? 'none') !== 'none',
    reachesOutside: true,
    triggers,
    actions,
  };
  return connector;
}

type Invoke = (sc: TriggerContext, path: string, params: Omit<ConnectorParams, 'settings'>) => Promise<unknown>;

function plainHash(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

/**
 * A trigger of a custom connector (contract 21 §5). Polling: `triggers.NAME.poll_events` runs the
 * `poll` lambda once with the closure (`next_poll` of the last poll) and gives each event with its
 * `dedup` key; the engine keeps `next_poll` and polls again at once while `can_poll_more`. Webhook:
 * `webhook_subscribe` with the recipe's webhook URL when it starts, `webhook_unsubscribe` with what
 * that returned when it stops, `webhook_notification` for each request (a hash is one event, a
 * list many), each event's key from `dedup`.
 */
function customTrigger(name: string, def: DescribedTrigger, invoke: Invoke): TriggerDef {
  const base = `triggers.${name}`;
  const trigger: TriggerDef = {
    title: def.title ?? name,
    kind: def.kind === 'webhook' ? 'webhook' : 'poll',
    ...(def.description ? { description: def.description } : {}),
    ...(def.input_fields ? { inputFields: def.input_fields } : {}),
    ...(def.output_fields ? { outputFields: def.output_fields } : {}),
    output: (event) => event,
  };
  if (def.kind !== 'webhook') {
    trigger.poll = async (input, closure, tc) => {
      const page = plainHash(await invoke(tc, `${base}.poll_events`, { input: toPlain(input), closure }));
      const events: TriggerEvent[] = [];
      for (const item of Array.isArray(page.events) ? page.events : []) {
        const entry = plainHash(item);
        events.push({
          event: fromPlain(plainHash(entry.event)) as Hash,
          dedup: typeof entry.dedup === 'string' ? entry.dedup : null,
        });
      }
      return { events, closure: page.next_poll ?? null, canPollMore: page.can_poll_more === true };
    };
    return trigger;
  }
  trigger.webhook = {
    ...(def.dynamic_webhook
      ? {
          subscribe: (input: Hash, url: string, tc: TriggerContext) =>
            invoke(tc, `${base}.webhook_subscribe`, {
              input: toPlain(input),
              webhook_url: url,
              recipe_id: String(tc.recipe.id),
            }),
          unsubscribe: async (_input: Hash, subscription: unknown, tc: TriggerContext) => {
            await invoke(tc, `${base}.webhook_unsubscribe`, { webhook_subscribe_output: subscription ?? {} });
          },
        }
      : {}),
    async notification(input, request, subscription, tc) {
      const output = await invoke(tc, `${base}.webhook_notification`, {
        input: toPlain(input),
        payload: toPlain(request.payload),
        headers: request.headers,
        params: request.query,
        webhook_subscribe_output: subscription ?? {},
      });
      const list = Array.isArray(output) ? output : output === null ? [] : [output];
      const events: TriggerEvent[] = [];
      for (const item of list) {
        const event = plainHash(item);
        const key = def.dedup ? await invoke(tc, `${base}.dedup`, { input: event }) : null;
        events.push({
          event: fromPlain(event) as Hash,
          dedup: key === null || key === undefined ? null : String(key),
        });
      }
      return { events };
    },
  };
  return trigger;
}

export interface LoadedCustomConnector {
  connectorId: number;
  version: number;
  source: string;
  title: string;
  connector: Connector;
}

/**
 * The released version of the custom connector a provider names in an environment, as a
 * Connector; `known` is given back when it is still the released one. Undefined: no such
 * connector, none released, or a source that does not load (logged).
 */
export async function loadCustomConnector(
  ctx: Pick<ServiceContext, 'db' | 'log' | 'rubyConnectors'>,
  environmentId: number,
  workspaceId: number,
  provider: string,
  known?: LoadedCustomConnector,
): Promise<LoadedCustomConnector | undefined> {
  const row = await findConnectorByProvider(ctx.db, environmentId, provider);
  const version = row ? await latestReleasedVersion(ctx.db, row.id) : undefined;
  if (!row || !version) return undefined;
  if (known && known.connectorId === row.id && known.version === version.version) return known;
  const described = await ctx.rubyConnectors.get().describe({
    source: version.code,
    sourceKey: `${row.id}:${version.version}`,
    connectorName: row.title,
    workspaceId,
  });
  if (!described.ok) {
    ctx.log.warn(
      { connector: row.id, version: version.version, error: described.error.message },
      'a custom connector does not load',
    );
    return undefined;
  }
  const connector = customConnector(
    {
      provider,
      connectorId: row.id,
      version: version.version,
      source: version.code,
      workspaceId,
      described: described.value as DescribedConnector,
    },
    () => ctx.rubyConnectors.get(),
  );
  return { connectorId: row.id, version: version.version, source: version.code, title: row.title, connector };
}

/**
 * A connection's test for a custom connector (contract 21 §4): its `test` lambda with the
 * connection's values, through the shared transport. What `acquire` or `refresh` returned is
 * kept in the authorization's `extra` (sealed with it).
 */
export async function testCustomConnection(
  ctx: Pick<ServiceContext, 'outbound' | 'log' | 'config' | 'rubyConnectors'>,
  loaded: LoadedCustomConnector,
  args: {
    connection: { id: number | null; name: string; provider: string };
    values: Record<string, unknown>;
    auth: AuthState;
  },
  workspaceId: number,
): Promise<TestOutcome> {
  const session = openSession({
    definition: loaded.connector.connection!,
    connection: args.connection,
    state: { values: args.values as never, auth: args.auth },
    transport: transportFor(ctx),
    limits: standaloneLimits(),
  });
  const settings = settingsOf(session);
  const outcome = await ctx.rubyConnectors.get().invoke(
    {
      source: loaded.source,
      sourceKey: `${loaded.connectorId}:${loaded.version}`,
      connectorName: loaded.title,
      workspaceId,
      path: 'test',
      params: { settings },
    },
    hostFor(session, secretsOf(settings)),
  );
  const extra: Record<string, string> = { ...args.auth.extra };
  for (const [key, value] of Object.entries(outcome.settings ?? {}))
    if (args.values[key] !== value) extra[key] = typeof value === 'string' ? value : JSON.stringify(value);
  const auth: AuthState = { ...args.auth, extra };
  if (outcome.ok) return { ok: true, auth };
  return { ok: false, error: outcome.error.message.slice(0, 1000), auth };
}
