// The host a custom connector's call borrows (src/connectors/sdk/runtime.ts `ConnectorHost`): the
// session's exchanges, the settings the Ruby sees (the connection's fields, what its authorization
// kept, the OAuth app), new values stored sealed as soon as `acquire` or `refresh` give them, and,
// in a step, refreshes through the connection's refresh gate (custom-refresh.ts).
import type { AuthState, ConnectorSession } from './definition.ts';
import { authStoreFor } from './connections.ts';
import { maskSecrets } from './http/redact.ts';
import { tlsOf } from './http/transport.ts';
import { refreshGate } from './custom-refresh.ts';
import { StepError } from './step-error.ts';
import type { StepContext, TriggerContext } from './types.ts';
import { SdkHttpError, type ConnectorHost, type SdkHttpRequest } from './sdk/runtime.ts';

/** The settings key through which the OAuth app (a custom OAuth profile's) reaches the Ruby. */
export const OAUTH_APP = '__oauth_client';

export type OAuthApp = { clientId: string; clientSecret: string };

/** Settings a lambda sees: the connection's fields and what its authorization keeps (and the OAuth app). */
export function settingsOf(session: ConnectorSession, app?: OAuthApp): Record<string, unknown> {
  const settings: Record<string, unknown> = { ...session.state.auth.extra, ...session.state.values };
  if (app) settings[OAUTH_APP] = { client_id: app.clientId, client_secret: app.clientSecret };
  return settings;
}

/** What a call's new settings add to the authorization: values that are not the connection's fields. */
export function authWith(auth: AuthState, values: Record<string, unknown>, next: Record<string, unknown>): AuthState {
  const extra: Record<string, string> = { ...auth.extra };
  for (const [key, value] of Object.entries(next)) {
    if (key === OAUTH_APP || value === undefined || value === null) continue;
    if (Object.hasOwn(values, key) && values[key] === value) continue;
    extra[key] = typeof value === 'string' ? value : JSON.stringify(value);
  }
  const out: AuthState = { ...auth, extra };
  if (extra.access_token) out.accessToken = extra.access_token;
  if (extra.refresh_token) out.refreshToken = extra.refresh_token;
  return out;
}

/**
 * The host a lambda of a step borrows: the session's raw exchange, the job's log. When the session's
 * exchange can be made in another thread (`portable`), the runtime's request thread makes the
 * requests with the same transport settings, limits and masked values; the waits and log lines
 * stay here.
 */
export function hostFor(session: ConnectorSession, secrets: string[]): ConnectorHost {
  const portable = session.portable?.() ?? null;
  return {
    ...(portable
      ? {
          direct: {
            exchange: { ...portable.settings, secrets },
            sleep: portable.sleep,
            log: portable.log,
          },
        }
      : {}),
    async http(req: SdkHttpRequest) {
      try {
        const res = await session.send({
          method: req.method,
          url: req.url,
          headers: req.headers,
          ...(req.body ? { body: req.body } : {}),
          followRedirects: req.followRedirects !== false,
          secrets,
          ...tlsOf(req),
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

export function secretsOf(settings: Record<string, unknown>): string[] {
  const app = settings[OAUTH_APP] as { client_secret?: unknown } | undefined;
  return [...Object.values(settings), app?.client_secret].filter(
    (v): v is string => typeof v === 'string' && v.length >= 4,
  );
}

/** Keeps the settings `acquire` or `refresh` changed beside the connection's fields (sealed); the authorization now. */
export async function keepSettings(
  sc: StepContext | TriggerContext,
  kept: AuthState,
  values: Record<string, unknown>,
  connectionId: number | null,
  next: Record<string, unknown>,
): Promise<AuthState> {
  const auth = authWith(kept, values, next);
  const changed = JSON.stringify(auth) !== JSON.stringify(kept);
  if (!changed || connectionId === null) return kept;
  const scope = { workspaceId: sc.recipe.workspaceId, environmentId: sc.recipe.environmentId };
  await authStoreFor(sc.ctx, scope, connectionId).save(auth);
  await followConnection(sc, auth);
  sc.ctx.notifier.publish('connection.credentials_changed', { connectionId, ...scope });
  return auth;
}

/** The job's cached connection follows what is stored. */
async function followConnection(sc: StepContext | TriggerContext, auth: AuthState): Promise<void> {
  const connection = await sc.connection();
  if (connection) connection.auth = auth;
}

/**
 * The host of a step's call: the session's exchanges, new values stored as soon as the Ruby has
 * them, and refreshes through the connection's refresh gate (one at a time per connection).
 */
export function stepHost(
  sc: StepContext | TriggerContext,
  session: ConnectorSession,
  settings: Record<string, unknown>,
): { host: ConnectorHost; kept: () => AuthState; lost: () => boolean; done: () => Promise<void> } {
  const connectionId = session.connection.id;
  const values = session.state.values as Record<string, unknown>;
  const secrets = secretsOf(settings);
  let kept = session.state.auth;
  let lost = false;
  const scope = { workspaceId: sc.recipe.workspaceId, environmentId: sc.recipe.environmentId };
  const gate =
    connectionId === null
      ? null
      : refreshGate(sc.ctx, scope, connectionId, Date.now() + (sc.limits.connectorStepMs ?? 120_000));
  const host: ConnectorHost = {
    ...hostFor(session, secrets),
    async connectionUpdated(next) {
      kept = await keepSettings(sc, kept, values, connectionId, next);
    },
  };
  if (gate) {
    host.refreshBegin = async () => {
      const turn = await gate.begin(kept);
      if ('lead' in turn) return turn;
      if ('failed' in turn) {
        lost ||= turn.lost;
        return { failed: turn.failed };
      }
      kept = turn.stored;
      await followConnection(sc, kept);
      return { settings: { ...kept.extra, ...values } };
    };
    host.refreshEnd = async ({ ok, refused, message }) => {
      const reason = maskSecrets(message ?? 'the refresh failed', secrets);
      if (await gate.end({ ok, refused, reason })) lost = true;
    };
  }
  return { host, kept: () => kept, lost: () => lost, done: async () => gate?.release() };
}
