// A custom connector (contract 21) as a Connector of the catalog: its released Ruby source,
// described once by the runtime (title, connection fields, actions), and actions whose steps run
// the source's `execute` lambdas in the Ruby runtime (src/connectors/sdk/). Every HTTP request of a
// lambda is an exchange of the step's session (`send`: the shared transport, the outbound policy,
// the step's deadline; made by the runtime's request thread from `portable()`, docs/adr/0022), so
// the Ruby code applies its own authentication and reads every answer.
// What `acquire` or `refresh` return is kept sealed with the connection's authorization (`extra`).
import { createHash } from 'node:crypto';
import type { Hash, Value } from '../recipe/formula/values.ts';
import { fromPlain, toPlain } from '../recipe/formula/values.ts';
import { emptyAuthState, oauthClientFor, standaloneLimits, stepSession, transportFor } from './connections.ts';
import { openSession } from './http/session.ts';
import type { Transport } from './http/transport.ts';
import type {
  ConnectionDefinition,
  ConnectorSession,
  FieldValues,
  OAuthCodeClient,
  SchemaField,
} from './definition.ts';
import { connectionDefinitionOf } from './connection-rules.ts';
import { AuthorizationError } from './auth/oauth2.ts';
import { StepError } from './step-error.ts';
import { authWith, hostFor, keepSettings, secretsOf, settingsOf, stepHost, type OAuthApp } from './custom-host.ts';
import type {
  ActionDef,
  Connector,
  StepContext,
  TriggerContext,
  TriggerDef,
  TriggerEvent,
  WebhookRequest,
} from './types.ts';
import type { ServiceContext } from '../context.ts';
import { findReleasedVersion, releasedVersionOfProvider } from '../api/custom_connectors/custom_connectors.store.ts';
import {
  type ConnectorFailure,
  type ConnectorOutcome,
  type ConnectorParams,
  type ConnectorRuntime,
} from './sdk/runtime.ts';

/** What `ConnectorRuntime.describe` says of a source (the parts the catalog uses). */
export interface DescribedConnector {
  title?: string;
  connection?: {
    fields?: SchemaField[];
    /** `authorization_code`: an `oauth2` authorization with an `authorization_url` (connected through the redirect). */
    authorization?: DescribedAuthorization;
  } | null;
  actions?: Record<string, { title?: string; description?: string } | undefined>;
  triggers?: Record<string, DescribedTrigger | undefined>;
  /** The names of its `pick_lists`. */
  pick_lists?: string[];
}

interface DescribedAuthorization {
  type?: string;
  authorization_code?: boolean;
  pkce?: boolean;
  /** `multi`: each option's own authorization. */
  options?: Record<string, { authorization?: DescribedAuthorization } | undefined>;
}

interface DescribedTrigger {
  title?: string;
  description?: string;
  kind?: 'poll' | 'webhook';
  dynamic_webhook?: boolean;
  /** A `webhook_key` lambda beside the connector's `webhook_keys`: served through the connector's static URL. */
  static_webhook?: boolean;
  /** Both `poll` and `webhook_notification`: polled and served, one `dedup` across both. */
  hybrid?: boolean;
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

/** How an error names a connection: `the Acme CRM connection "Acme" (id 3)`. */
export function whoOf(connection: { id: number | null; name: string }, title: string): string {
  return `the ${title} connection "${connection.name}"${connection.id === null ? '' : ` (id ${connection.id})`}`;
}

/**
 * The step error a failed lambda becomes: its message names the connector, the path and the line;
 * a failed refresh (after a request asked for new credentials) also names the connection.
 */
export function stepErrorOf(failure: ConnectorFailure, who?: string): StepError {
  if (failure.kind === 'refresh' && who) return new StepError('Connection error', `${who}: ${failure.message}`);
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

function requiredFields(fields: readonly SchemaField[]): (values: Record<string, unknown>) => string[] {
  return (values) =>
    fields
      .filter((f) => f.optional !== true && typeof f.name === 'string')
      .map((f) => f.name)
      .filter((name) => values[name] === undefined || values[name] === null || values[name] === '');
}

/** The OAuth app of a step's connection: its custom OAuth profile, the environment's for the provider, its own fields. */
async function stepApp(sc: StepContext | TriggerContext, provider: string): Promise<OAuthApp | undefined> {
  const connection = await sc.connection();
  if (!connection) return undefined;
  const scope = { workspaceId: sc.recipe.workspaceId, environmentId: sc.recipe.environmentId };
  const app = await oauthClientFor(
    sc.ctx,
    scope,
    provider,
    connection.oauthProfileId ?? null,
    connection.values as FieldValues,
  );
  return app ? { clientId: app.clientId, clientSecret: app.clientSecret } : undefined;
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

/**
 * The provider side of the OAuth 2.0 redirect of a connector whose authorization is `oauth2` with an
 * `authorization_url` (contract 21 §4): the URL is the lambda's, with the client id, the redirect
 * URI and the state added as the vendor does; the code is exchanged by `acquire` (or the standard
 * exchange at `token_url`) in the runtime, with the OAuth app given as the connection's
 * `client_id`/`client_secret` (a custom OAuth profile's, when the environment has one).
 */
function customOAuthClient(spec: CustomConnectorSource, title: string, deps: CustomConnectorDeps): OAuthCodeClient {
  const transport = deps.transport;
  const run = async (path: string, values: FieldValues, params: Record<string, unknown>, app?: OAuthApp) => {
    if (!transport) throw new AuthorizationError('this process cannot make requests for a connector', false);
    const session = openSession({
      definition: {
        fields: [],
        auth: { type: 'none' },
        baseUrl: () => 'http://connector.invalid/',
        test: async () => null,
      },
      connection: { id: null, name: title, provider: spec.provider },
      state: { values, auth: emptyAuthState() },
      transport: transport(),
      limits: standaloneLimits(),
    });
    const settings = settingsOf(session, app);
    return deps.runtime().invoke(
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
  };
  // `pkce: lambda do |verifier, challenge|` (D-sdk): given the verifier and its S256 challenge made
  // for this redirect, it answers the verifier, the challenge and the method to send.
  const pkce = async (values: FieldValues, verifier: string) => {
    const challenge = createHash('sha256').update(verifier).digest('base64url');
    const outcome = await run('connection.authorization.pkce', values, { verifier, challenge });
    if (!outcome.ok) throw new AuthorizationError(outcome.error.message, false);
    // No `pkce` on the selected option of a `multi` (another option has one): no PKCE for this redirect.
    if (outcome.value === null || outcome.value === undefined) return null;
    const answer = plainHash(outcome.value);
    const text = (v: unknown) => (typeof v === 'string' && v !== '' ? v : null);
    const method = text(answer.challenge_method);
    return {
      verifier: text(answer.verifier) ?? verifier,
      challenge: text(answer.challenge) ?? challenge,
      ...(method ? { method } : {}),
    };
  };
  const multi = spec.described.connection?.authorization?.type === 'multi';
  const selected = async (values: FieldValues) => {
    const outcome = await run('connection.authorization.authorization_code', values, {});
    return outcome.ok && outcome.value;
  };
  return {
    // A `multi`'s options share the flag: any option with `pkce` sends a challenge when it is selected.
    pkce:
      spec.described.connection?.authorization?.pkce === true ||
      multiOptions(spec.described).some((o) => o.authorization_code === true && o.pkce === true),
    ...(multi ? { selects: async (values: FieldValues) => (await selected(values)) === true } : {}),
    async defaultApp(values) {
      const id = await run('connection.authorization.client_id', values, {});
      const secret = await run('connection.authorization.client_secret', values, {});
      const text = (o: typeof id) => (o.ok && typeof o.value === 'string' && o.value !== '' ? o.value : null);
      const clientId = text(id) ?? (typeof values.client_id === 'string' ? values.client_id : null);
      const clientSecret = text(secret) ?? (typeof values.client_secret === 'string' ? values.client_secret : null);
      return clientId && clientSecret ? { clientId, clientSecret } : undefined;
    },
    async authorizationUrl({ clientId, redirectUri, state, codeVerifier, values }) {
      const outcome = await run('connection.authorization.authorization_url', values, {});
      if (!outcome.ok) throw new AuthorizationError(outcome.error.message, false);
      let url: URL;
      try {
        url = new URL(String(outcome.value));
      } catch {
        throw new AuthorizationError(`${title}: authorization_url is not a URL`, false);
      }
      if (!url.searchParams.has('response_type')) url.searchParams.set('response_type', 'code');
      url.searchParams.set('client_id', clientId);
      url.searchParams.set('redirect_uri', redirectUri);
      url.searchParams.set('state', state);
      if (codeVerifier !== null) {
        const sent = await pkce(values, codeVerifier);
        if (sent) {
          url.searchParams.set('code_challenge', sent.challenge);
          if (sent.method) url.searchParams.set('code_challenge_method', sent.method);
        }
      }
      return url.toString();
    },
    async exchange({ code, codeVerifier, redirectUri, clientId, clientSecret, values }) {
      const verifier = codeVerifier === null ? null : ((await pkce(values, codeVerifier))?.verifier ?? null);
      const outcome = await run(
        'connection.authorization.acquire',
        values,
        { oauth2_code: code, redirect_url: redirectUri, ...(verifier === null ? {} : { code_verifier: verifier }) },
        { clientId, clientSecret },
      );
      if (!outcome.ok) throw new AuthorizationError(outcome.error.message, false);
      const auth = authWith(emptyAuthState(), values, outcome.settings ?? {});
      if (!auth.accessToken) throw new AuthorizationError(`${title}: acquire gave no access_token`, false);
      return auth;
    },
  };
}

export interface CustomConnectorDeps {
  runtime: () => ConnectorRuntime;
  /** The transport of the OAuth 2.0 redirect's requests (authorization URL, code exchange). */
  transport?: () => Transport;
}

/** The options of a `multi` authorization (none for another type). */
function multiOptions(described: DescribedConnector): DescribedAuthorization[] {
  const auth = described.connection?.authorization;
  if (auth?.type !== 'multi') return [];
  return Object.values(auth.options ?? {}).flatMap((o) => (o?.authorization ? [o.authorization] : []));
}

/** Whether a connection may connect through the OAuth 2.0 redirect (a `multi`: when its selected option does, `selects`). */
function authorizationCode(described: DescribedConnector): boolean {
  return (
    described.connection?.authorization?.authorization_code === true ||
    multiOptions(described).some((o) => o.authorization_code === true)
  );
}

/** Whether the connector's authorization (or one option of its `multi`) is `oauth2` (its app is the connection's, or a custom OAuth profile's). */
function isOAuth2(described: DescribedConnector): boolean {
  const oauth2 = (a: DescribedAuthorization | undefined) => /oauth2/i.test(a?.type ?? '');
  return oauth2(described.connection?.authorization) || multiOptions(described).some(oauth2);
}

/** The Connector of a custom connector's released source. */
export function customConnector(spec: CustomConnectorSource, deps: CustomConnectorDeps): Connector {
  const runtime = deps.runtime;
  const title = spec.described.title ?? spec.provider;
  const fields = spec.described.connection?.fields ?? [];
  const connection: ConnectionDefinition = {
    fields,
    auth: {
      type: 'custom',
      requiredFields: requiredFields(fields),
      ...(authorizationCode(spec.described) ? { oauth: customOAuthClient(spec, title, deps) } : {}),
    },
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
    const app = isOAuth2(spec.described) ? await stepApp(sc, spec.provider) : undefined;
    const settings = settingsOf(session, app);
    const call = stepHost(sc, session, settings);
    let outcome: ConnectorOutcome;
    try {
      outcome = await runtime().invoke(
        {
          source: spec.source,
          sourceKey: `${spec.connectorId}:${spec.version}`,
          connectorName: title,
          workspaceId: spec.workspaceId,
          path,
          params: { settings, ...params },
        },
        call.host,
      );
    } finally {
      await call.done();
    }
    if (outcome.settings)
      await keepSettings(sc, call.kept(), session.state.values, session.connection.id, outcome.settings);
    if (!outcome.ok) {
      const error = stepErrorOf(outcome.error, whoOf(session.connection, title));
      if (call.lost() && outcome.error.kind === 'refresh')
        throw new StepError(error.errorType, `${error.message} (the connection is marked lost: connect it again)`);
      throw error;
    }
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
    triggers[name] = customTrigger(name, def ?? {}, invoke, spec.connectorId);
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
 * list many), each event's key from `dedup`. Hybrid (both `poll` and `webhook_notification`): polled
 * and served, the `dedup` keys seen kept in one list for both paths, so an event that came by one
 * is dropped when it comes by the other. Static webhook (`webhook_key` with the connector's
 * `webhook_keys`): served through the connector's URL (receiveStaticWebhook).
 */
function customTrigger(name: string, def: DescribedTrigger, invoke: Invoke, connectorId: number): TriggerDef {
  const base = `triggers.${name}`;
  const trigger: TriggerDef = {
    title: def.title ?? name,
    kind: def.kind === 'webhook' && !def.hybrid ? 'webhook' : 'poll',
    ...(def.description ? { description: def.description } : {}),
    ...(def.input_fields ? { inputFields: def.input_fields } : {}),
    ...(def.output_fields ? { outputFields: def.output_fields } : {}),
    output: (event) => event,
  };
  if (def.kind !== 'webhook' || def.hybrid) {
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
    if (!def.hybrid) return trigger;
  }
  const keyOf = (value: unknown): string | null =>
    value === null || value === undefined || value === ''
      ? null
      : typeof value === 'object'
        ? JSON.stringify(value)
        : String(value);
  trigger.webhook = {
    ...(def.static_webhook
      ? {
          static: {
            connectorId,
            requestKey: async (request: WebhookRequest, tc: TriggerContext) =>
              keyOf(
                await invoke(tc, 'webhook_keys', {
                  payload: toPlain(request.payload),
                  headers: request.headers,
                  params: request.query,
                }),
              ),
            recipeKey: async (input: Hash, tc: TriggerContext) =>
              keyOf(await invoke(tc, `${base}.webhook_key`, { input: toPlain(input) })),
          },
        }
      : {}),
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
  /** The names of its `pick_lists`. */
  pickLists: readonly string[];
}

/**
 * The released version of the custom connector a provider names in an environment, as a
 * Connector; `known` is given back when it is still the released one. Undefined: no such
 * connector, none released, or a source that does not load (logged).
 */
export async function loadCustomConnector(
  ctx: Pick<ServiceContext, 'db' | 'log' | 'rubyConnectors' | 'outbound' | 'config'>,
  environmentId: number,
  workspaceId: number,
  provider: string,
  known?: LoadedCustomConnector,
): Promise<LoadedCustomConnector | undefined> {
  const released = await releasedVersionOfProvider(ctx.db, environmentId, provider);
  if (!released) return undefined;
  if (known && known.connectorId === released.connectorId && known.version === released.version) return known;
  const row = { id: released.connectorId, title: released.title };
  const version = await findReleasedVersion(ctx.db, released.connectorId, released.version);
  if (!version) return undefined;
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
    { runtime: () => ctx.rubyConnectors.get(), transport: () => transportFor(ctx) },
  );
  const pickLists = (described.value as DescribedConnector).pick_lists ?? [];
  return {
    connectorId: row.id,
    version: version.version,
    source: version.code,
    title: row.title,
    connector,
    pickLists: Array.isArray(pickLists) ? pickLists.filter((n) => typeof n === 'string') : [],
  };
}

/**
 * Whether a connection of a loaded custom connector with these values connects through the
 * provider's OAuth 2.0 redirect (a `multi` asks its `selected` lambda).
 */
export async function usesRedirectFor(
  loaded: LoadedCustomConnector,
  values: Record<string, unknown>,
): Promise<boolean> {
  const auth = loaded.connector.connection?.auth;
  if (auth?.type !== 'custom' || auth.oauth === undefined) return false;
  return auth.oauth.selects ? auth.oauth.selects(values as FieldValues) : true;
}

/**
 * The connection definition of a provider: a SaaS service's, or the released custom connector's
 * of the environment (then `custom` is it).
 */
export async function connectionTargetOf(
  ctx: Pick<ServiceContext, 'db' | 'log' | 'rubyConnectors' | 'outbound' | 'config'>,
  scope: { workspaceId: number; environmentId: number },
  provider: string,
): Promise<{ definition: ConnectionDefinition; custom?: LoadedCustomConnector } | undefined> {
  const saas = connectionDefinitionOf(provider);
  if (saas) return { definition: saas };
  const custom = await loadCustomConnector(ctx, scope.environmentId, scope.workspaceId, provider);
  return custom?.connector.connection ? { definition: custom.connector.connection, custom } : undefined;
}
