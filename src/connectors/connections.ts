// What connections ask of the connector layer: a connector's connection definition, the state an
// authorization left (sealed at rest in `auth_sealed`), the OAuth app of a connection, the test,
// and a step's session. The connections service (src/api/connections/) and the engine's steps
// call these; the HTTP goes through the transport.
import type { ServiceContext } from '../context.ts';
import type { Db } from '../db/types.ts';
import type { SecretBox } from '../crypto/secret-box.ts';
import { toStored } from '../time.ts';
import { findConnectionAuth, saveConnectionAuth, type ConnectionScope } from '../api/connections/connections.store.ts';
import {
  findProfileSecrets,
  findProfileSecretsForProvider,
} from '../api/custom_oauth_profiles/custom_oauth_profiles.store.ts';
import type { AuthState, ConnectionDefinition, ConnectorSession, FieldValues } from './definition.ts';
import { secretValues, usesRedirect } from './auth/kinds.ts';
import { createTransport, type ExchangeLimits, type Transport } from './http/transport.ts';
import { openSession, type AuthStore } from './http/session.ts';
import { StepError } from './step-error.ts';
import type { Connector, StepContext, TriggerContext } from './types.ts';
import { maskSecrets } from './http/redact.ts';

/** How long a connection's test may take in all. */
const TEST_BUDGET_MS = 60_000;

export interface ConnectionRef {
  id: number | null;
  name: string;
  provider: string;
}

export function emptyAuthState(): AuthState {
  return { extra: {} };
}

export function openAuthState(box: SecretBox, sealed: string | null): AuthState {
  if (sealed === null) return emptyAuthState();
  try {
    const parsed = JSON.parse(box.open(sealed)) as AuthState;
    return typeof parsed === 'object' && parsed !== null
      ? { ...parsed, extra: { ...(parsed.extra ?? {}) } }
      : emptyAuthState();
  } catch {
    return emptyAuthState();
  }
}

export function sealAuthState(box: SecretBox, state: AuthState): string | null {
  const empty = !state.accessToken && !state.refreshToken && Object.keys(state.extra).length === 0;
  return empty ? null : box.seal(JSON.stringify(state));
}

/** The transport every connector request of this context goes through. */
export function transportFor(ctx: Pick<ServiceContext, 'outbound' | 'log' | 'config'>): Transport {
  return createTransport({ outbound: ctx.outbound, log: ctx.log, origins: ctx.config.connectorOrigins, now: Date.now });
}

/** Limits of a request made outside a job (a connection's test, a token exchange). */
export function standaloneLimits(budgetMs = TEST_BUDGET_MS): ExchangeLimits {
  return {
    timeoutMs: 30_000,
    maxResponseBytes: 10 * 1024 * 1024,
    deadline: Date.now() + budgetMs,
    sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  };
}

/**
 * The OAuth app of a connection: the custom OAuth profile it names, else the environment's
 * profile for its provider (contract 05), else its own `client_id` and `client_secret`.
 */
export async function oauthClientFor(
  ctx: Pick<ServiceContext, 'db' | 'secretBox'>,
  scope: ConnectionScope,
  provider: string,
  profileId: number | null,
  values: FieldValues,
  db: Db = ctx.db,
): Promise<{ clientId: string; clientSecret: string; profileId: number | null } | undefined> {
  const profile =
    profileId !== null
      ? await findProfileSecrets(db, scope, profileId).then((p) => p && { ...p, id: profileId })
      : await findProfileSecretsForProvider(db, scope, provider);
  if (profile) {
    return {
      clientId: profile.client_id,
      clientSecret: ctx.secretBox.open(profile.client_secret_sealed),
      profileId: profile.id,
    };
  }
  const clientId = values.client_id;
  const clientSecret = values.client_secret;
  if (typeof clientId === 'string' && clientId !== '' && typeof clientSecret === 'string' && clientSecret !== '')
    return { clientId, clientSecret, profileId: null };
  return undefined;
}

/** Stores a session's refreshed tokens, and marks the connection lost when its grant is refused. */
export function authStoreFor(
  ctx: Pick<ServiceContext, 'db' | 'secretBox' | 'clock'>,
  scope: ConnectionScope,
  id: number,
): AuthStore {
  return {
    load: async () => openAuthState(ctx.secretBox, await findConnectionAuth(ctx.db, scope, id)),
    save: (next) => saveConnectionAuth(ctx.db, scope, id, { auth_sealed: sealAuthState(ctx.secretBox, next) }),
    lost: async (reason) => {
      const now = toStored(ctx.clock.now());
      await saveConnectionAuth(ctx.db, scope, id, {
        authorization_status: 'failed',
        authorization_error: reason.slice(0, 1000),
        connection_lost_at: now,
        connection_lost_reason: reason.slice(0, 1000),
        updated_at: now,
      });
    },
  };
}

export type TestOutcome = { ok: true; auth: AuthState } | { ok: false; error: string; auth: AuthState };

/**
 * Runs a connection's test (contract 21 §4): a session over its values and what its authorization
 * left, then the definition's test call. Client-credentials connections get their first token
 * here. The error is what the user must fix, with no secret in it.
 */
export async function testConnection(
  ctx: Pick<ServiceContext, 'outbound' | 'log' | 'config'>,
  args: {
    definition: ConnectionDefinition;
    connection: ConnectionRef;
    values: FieldValues;
    auth: AuthState;
    oauthClient?: () => Promise<{ clientId: string; clientSecret: string } | undefined>;
    /** Just authorized: first learn what the connector keeps from it (Jira's cloud id), then test. */
    afterAuthorize?: boolean;
  },
): Promise<TestOutcome> {
  const open = (auth: AuthState) =>
    openSession({
      definition: args.definition,
      connection: args.connection,
      state: { values: args.values, auth },
      transport: transportFor(ctx),
      limits: standaloneLimits(),
      oauthClient: args.oauthClient,
    });
  let session: ConnectorSession | null = null;
  let auth = args.auth;
  try {
    if (usesRedirect(args.definition, args.values) && !args.auth.accessToken)
      return { ok: false, error: 'not connected yet: connect it through the provider (Connect)', auth: args.auth };
    if (args.afterAuthorize && args.definition.afterAuthorize) {
      session = open(auth);
      const extra = await args.definition.afterAuthorize(session);
      auth = { ...session.state.auth, extra: { ...session.state.auth.extra, ...extra } };
    }
    session = open(auth);
    await args.definition.test(session);
    return { ok: true, auth: session.state.auth };
  } catch (error) {
    if (error instanceof StepError) {
      const state = session?.state ?? { values: args.values, auth };
      const message = maskSecrets(error.message, secretValues(args.definition, state));
      return { ok: false, error: message.slice(0, 1000), auth: state.auth };
    }
    throw error;
  }
}

/** The session of a step's connection: its values, its tokens, refreshes stored as they happen. */
/** A step's session (a trigger's code, outside a job, passes its TriggerContext). */
export async function stepSession(sc: StepContext | TriggerContext, connector: Connector): Promise<ConnectorSession> {
  const definition = connector.connection;
  if (!definition) throw new StepError('Bad request', `${connector.provider} has no connection definition`);
  const connection = await sc.connection();
  if (connection === null)
    throw new StepError(
      'Connection error',
      `this step needs a ${connector.provider} connection in the recipe's config`,
    );
  const values = connection.values as FieldValues;
  const scope = { workspaceId: sc.recipe.workspaceId, environmentId: sc.recipe.environmentId };
  const now = Date.now();
  return openSession({
    definition,
    connection: { id: connection.id, name: connection.name ?? String(connection.id), provider: connector.provider },
    state: { values, auth: connection.auth ?? emptyAuthState() },
    transport: transportFor(sc.ctx),
    limits: {
      timeoutMs: sc.limits.httpTimeoutMs,
      maxResponseBytes: sc.limits.httpMaxResponseBytes,
      deadline: now + (sc.limits.connectorStepMs ?? 120_000),
      sleep: (ms) => sc.sleep(ms),
    },
    oauthClient: async () =>
      oauthClientFor(sc.ctx, scope, connector.provider, connection.oauthProfileId ?? null, values),
    store: authStoreFor(sc.ctx, scope, connection.id),
    onState: (state) => {
      connection.auth = state;
    },
  });
}
