// The OAuth 2.0 authorization-code redirect of a connection (contract 21 §4, docs/adr/0019):
// Connect stores a state (single use, ten minutes, bound to the connection, the developer API
// client that asked and a cookie of the browser that asked; the PKCE verifier sealed) and sends
// the browser to the provider; the provider sends it back to GET /oauth/callback on
// PUBLIC_BASE_URL, where the state is taken, checked, the code exchanged for tokens, the
// connection tested and its tokens stored sealed.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { ServiceContext } from '../../context.ts';
import { AppError, assertFound } from '../../errors.ts';
import { toStored } from '../../time.ts';
import { openInput, resolveInput } from '../../api/connections/connection-input.ts';
import { findConnection, saveConnectionAuth, type ConnectionScope } from '../../api/connections/connections.store.ts';
import { authenticateTokenHash } from '../../auth/credentials.ts';
import { findClient } from '../../api/developer_api_clients/developer_api_clients.store.ts';
import { SecretResolutionError } from '../../api/secrets_management/secret-resolver.ts';
import { connectionTargetOf } from '../custom.ts';
import { testCustomConnection } from '../custom-connection.ts';
import { oauthClientFor, sealAuthState, standaloneLimits, testConnection, transportFor } from '../connections.ts';
import { applyOrigins } from '../http/transport.ts';
import type { ConnectionDefinition, FieldValues, OAuthCodeClient } from '../definition.ts';
import { selectAuth, usesRedirect } from './kinds.ts';
import { AuthorizationError, codeClientFor, newPkce } from './oauth2.ts';
import { deleteExpiredOauthStates, insertOauthState, takeOauthState } from './oauth-states.store.ts';

/** How long a redirect may take, from Connect to the callback. */
export const OAUTH_STATE_TTL_MS = 10 * 60_000;

export const CALLBACK_PATH = '/oauth/callback';

/** The cookie holding the browser's proof that it started the redirect (Path=/oauth/callback). */
export const OAUTH_COOKIE = 'sb_oauth';

export interface FlowCaller extends ConnectionScope {
  readonly clientId: number;
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** The redirect URI providers must know: GET /oauth/callback on PUBLIC_BASE_URL. */
export function redirectUriOf(ctx: Pick<ServiceContext, 'config'>): string {
  return `${ctx.config.publicBaseUrl.replace(/\/+$/, '')}${CALLBACK_PATH}`;
}

function oauthClientOf(ctx: ServiceContext, definition: ConnectionDefinition, values: FieldValues): OAuthCodeClient {
  const { auth } = selectAuth(definition, values);
  if (auth.type === 'oauth2_authorization_code')
    return codeClientFor(auth, transportFor(ctx), () => standaloneLimits());
  if (auth.type === 'custom' && auth.oauth) return auth.oauth;
  throw new AppError('connection_not_oauth');
}

/**
 * Starts connecting: the provider's authorization URL to send the browser to, and the nonce the
 * browser must keep in a cookie until the callback.
 */
export async function startAuthorization(
  ctx: ServiceContext,
  caller: FlowCaller,
  connectionId: number,
): Promise<{ url: string; browserNonce: string }> {
  const row = assertFound(await findConnection(ctx.db, caller, connectionId));
  const definition = (await connectionTargetOf(ctx, caller, row.provider))?.definition;
  if (!definition) throw new AppError('connection_not_oauth');
  let values: FieldValues;
  try {
    values = await resolveInput(ctx.db, ctx.secrets, caller, openInput(ctx.secretBox, row.input_sealed));
  } catch (error) {
    if (error instanceof SecretResolutionError)
      throw new AppError('validation_failed', { errors: { input: [error.message] } });
    throw error;
  }
  if (!usesRedirect(definition, values)) throw new AppError('connection_not_oauth');
  const client = oauthClientOf(ctx, definition, values);
  // A custom connector's `multi` connects through the redirect only when its selected option is OAuth 2.0 code.
  if (client.selects && !(await client.selects(values))) throw new AppError('connection_not_oauth');
  const app =
    (await oauthClientFor(ctx, caller, row.provider, row.custom_oauth_profile_id, values)) ??
    (await client.defaultApp?.(values));
  if (!app) throw new AppError('oauth_app_missing', { params: { provider: row.provider } });
  const starter = assertFound(await findClient(ctx.db, caller.workspaceId, caller.clientId));
  const state = randomBytes(32).toString('base64url');
  const browserNonce = randomBytes(32).toString('base64url');
  const pkce = client.pkce ? newPkce() : null;
  const now = ctx.clock.now();
  await deleteExpiredOauthStates(ctx.db, toStored(now));
  await insertOauthState(ctx.db, {
    state_hash: sha256(state),
    workspace_id: caller.workspaceId,
    environment_id: caller.environmentId,
    connection_id: row.id,
    client_id: caller.clientId,
    token_hash: starter.token_hash,
    browser_hash: sha256(browserNonce),
    code_verifier_sealed: pkce ? ctx.secretBox.seal(pkce.verifier) : null,
    created_at: toStored(now),
    expires_at: toStored(new Date(now.getTime() + OAUTH_STATE_TTL_MS)),
  });
  let url: string;
  try {
    url = await client.authorizationUrl({
      clientId: app.clientId,
      redirectUri: redirectUriOf(ctx),
      state,
      codeChallenge: pkce?.challenge ?? null,
      codeVerifier: pkce?.verifier ?? null,
      values,
    });
  } catch (error) {
    if (error instanceof AuthorizationError)
      throw new AppError('oauth_authorization_url_failed', { params: { reason: error.message.slice(0, 500) } });
    throw error;
  }
  // The browser goes where the connector's requests go (CONNECTOR_ORIGINS: a stand-in of the service).
  return { url: applyOrigins(url, ctx.config.connectorOrigins), browserNonce };
}

export interface CallbackOutcome {
  connectionId: number;
  status: 'success' | 'failed';
  error: string | null;
}

/**
 * The provider sent the browser back: take the state (once), check it came back in time, to the
 * browser that asked, for a client that may still change connections; exchange the code; test.
 * A refusal by the provider (`error=access_denied`) or a failed exchange is the connection's
 * `authorization_error`; a bad state is an AppError and changes nothing.
 */
export async function finishAuthorization(
  ctx: ServiceContext,
  query: Readonly<Record<string, string>>,
  browserNonce: string | undefined,
): Promise<CallbackOutcome> {
  const stateText = query.state ?? '';
  if (stateText === '' || stateText.length > 200) throw new AppError('oauth_state_invalid');
  const row = await takeOauthState(ctx.db, sha256(stateText));
  if (!row) throw new AppError('oauth_state_invalid');
  const expected = Buffer.from(row.browser_hash, 'hex');
  const given = Buffer.from(sha256(browserNonce ?? ''), 'hex');
  if (browserNonce === undefined || !timingSafeEqual(expected, given)) throw new AppError('oauth_state_invalid');
  const now = ctx.clock.now();
  if (row.expires_at <= toStored(now)) throw new AppError('oauth_state_expired');
  const auth = await authenticateTokenHash(ctx.db, ctx.clock, row.token_hash);
  if (
    auth === null ||
    auth.clientId !== Number(row.client_id) ||
    auth.environmentId !== Number(row.environment_id) ||
    !auth.privileges.has('connections:write')
  )
    throw new AppError('oauth_caller_changed');
  const scope = { workspaceId: Number(row.workspace_id), environmentId: Number(row.environment_id) };
  const connection = assertFound(await findConnection(ctx.db, scope, Number(row.connection_id)));
  const target = await connectionTargetOf(ctx, scope, connection.provider);
  if (!target) throw new AppError('connection_not_oauth');
  const definition = target.definition;
  const record = async (status: 'success' | 'failed', error: string | null, sealed: string | null) => {
    const at = toStored(ctx.clock.now());
    await saveConnectionAuth(ctx.db, scope, connection.id, {
      auth_sealed: sealed,
      authorization_status: status,
      authorization_error: error,
      authorized_at: status === 'success' ? at : null,
      ...(status === 'success' ? { connection_lost_at: null, connection_lost_reason: null } : {}),
      updated_at: at,
    });
    ctx.notifier.publish('connections.changed', { workspaceId: scope.workspaceId });
    ctx.notifier.publish('connection.credentials_changed', { connectionId: connection.id, ...scope });
    return { connectionId: connection.id, status, error };
  };
  const previous = connection.auth_sealed;
  if (query.error !== undefined) {
    const description = query.error_description ? ` (${query.error_description.slice(0, 300)})` : '';
    return record(
      'failed',
      `the provider refused the authorization: ${query.error.slice(0, 100)}${description}`,
      previous,
    );
  }
  const code = query.code ?? '';
  if (code === '' || code.length > 4096) return record('failed', 'the provider sent no authorization code', previous);
  let values: FieldValues;
  try {
    values = await resolveInput(ctx.db, ctx.secrets, scope, openInput(ctx.secretBox, connection.input_sealed));
  } catch (error) {
    if (error instanceof SecretResolutionError) return record('failed', error.message, previous);
    throw error;
  }
  const client = oauthClientOf(ctx, definition, values);
  const app =
    (await oauthClientFor(ctx, scope, connection.provider, connection.custom_oauth_profile_id, values)) ??
    (await client.defaultApp?.(values));
  if (!app) return record('failed', `no OAuth app for ${connection.provider}`, previous);
  let tokens;
  try {
    tokens = await client.exchange({
      code,
      codeVerifier: row.code_verifier_sealed === null ? null : ctx.secretBox.open(row.code_verifier_sealed),
      redirectUri: redirectUriOf(ctx),
      clientId: app.clientId,
      clientSecret: app.clientSecret,
      values,
      callback: query,
    });
  } catch (error) {
    if (error instanceof AuthorizationError)
      return record('failed', `the code exchange failed: ${error.message}`, previous);
    if (error instanceof Error && error.name === 'StepError') return record('failed', error.message, previous);
    throw error;
  }
  const ref = { id: connection.id, name: connection.name, provider: connection.provider };
  const outcome = target.custom
    ? await testCustomConnection(ctx, target.custom, { connection: ref, values, auth: tokens, app }, scope.workspaceId)
    : await testConnection(ctx, {
        definition,
        connection: { id: connection.id, name: connection.name, provider: connection.provider },
        values,
        auth: tokens,
        oauthClient: async () => app,
        afterAuthorize: true,
      });
  const sealed = sealAuthState(ctx.secretBox, outcome.auth);
  return outcome.ok ? record('success', null, sealed) : record('failed', outcome.error, sealed);
}
