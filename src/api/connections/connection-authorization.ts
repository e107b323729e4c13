// A connection's test when it is created or updated (contract 21 §4): its authorization status
// and what the authorization left, for the connections service to store.
import type { ServiceContext } from '../../context.ts';
import type { AuthorizationStatus, ConnectionRow } from '../../db/types.ts';
import { SecretResolutionError } from '../secrets_management/secret-resolver.ts';
import {
  IncompleteCredentialsError,
  modelRequestSettings,
  resolveInput,
  restRequestSettings,
  type ConnectionInput,
  type ResolvedInput,
} from './connection-input.ts';
import type { ConnectionScope } from './connections.store.ts';
import { isModelProvider, isRestProvider } from './providers.ts';
import { connectionDefinitionOf } from '../../connectors/connection-rules.ts';
import { loadCustomConnector } from '../../connectors/custom.ts';
import { testCustomConnection } from '../../connectors/custom-connection.ts';
import { oauthClientFor, testConnection } from '../../connectors/connections.ts';
import type { AuthState, FieldValues } from '../../connectors/definition.ts';

/**
 * The test of a connection (contract 21 §4): resolve every secret, then for a connector of the
 * catalog run its test against the service (outside any transaction); for the built-in `rest`
 * connection check what it needs. The result is the connection's authorization status, and what
 * the authorization left (a client-credentials token).
 */
export async function authorize(
  ctx: ServiceContext,
  scope: ConnectionScope,
  connection: { id: number | null; name: string; provider: string },
  input: ConnectionInput,
  auth: AuthState,
  profileId: number | null,
  now: string,
): Promise<{
  authorization: Pick<ConnectionRow, 'authorization_status' | 'authorization_error' | 'authorized_at'>;
  auth: AuthState;
}> {
  const failed = (error: string, state: AuthState = auth) => ({
    authorization: {
      authorization_status: 'failed' as AuthorizationStatus,
      authorization_error: error,
      authorized_at: null,
    },
    auth: state,
  });
  let values: ResolvedInput;
  try {
    values = await resolveInput(ctx.db, ctx.secrets, scope, input);
  } catch (error) {
    if (error instanceof SecretResolutionError) return failed(error.message);
    throw error;
  }
  const success = (state: AuthState) => ({
    authorization: {
      authorization_status: 'success' as AuthorizationStatus,
      authorization_error: null,
      authorized_at: now,
    },
    auth: state,
  });
  const definition = connectionDefinitionOf(connection.provider);
  if (definition) {
    const outcome = await testConnection(ctx, {
      definition,
      connection,
      values,
      auth,
      oauthClient: () => oauthClientFor(ctx, scope, connection.provider, profileId, values),
    });
    return outcome.ok ? success(outcome.auth) : failed(outcome.error, outcome.auth);
  }
  if (isModelProvider(connection.provider)) {
    try {
      modelRequestSettings(values);
    } catch (error) {
      if (error instanceof IncompleteCredentialsError) return failed(error.message);
      throw error;
    }
    return success(auth);
  }
  const custom = isRestProvider(connection.provider)
    ? undefined
    : await loadCustomConnector(ctx, scope.environmentId, scope.workspaceId, connection.provider);
  if (custom) {
    const missing =
      custom.connector.connection?.auth.type === 'custom'
        ? custom.connector.connection.auth.requiredFields(values as FieldValues)
        : [];
    if (missing.length > 0) return failed(`${missing.join(', ')} can't be blank`);
    const app = await oauthClientFor(ctx, scope, connection.provider, profileId, values as FieldValues);
    // An update's test starts from what the connection has stored: its refreshes are its jobs'.
    const shared =
      connection.id === null ? undefined : { workspaceId: scope.workspaceId, environmentId: scope.environmentId };
    const outcome = await testCustomConnection(
      ctx,
      custom,
      { connection, values, auth, app, shared },
      scope.workspaceId,
    );
    return outcome.ok ? success(outcome.auth) : failed(outcome.error, outcome.auth);
  }
  if (!isRestProvider(connection.provider))
    return failed(
      `No connector for provider "${connection.provider}" on this server: the connection is stored but cannot run here`,
    );
  try {
    restRequestSettings(values);
  } catch (error) {
    if (error instanceof IncompleteCredentialsError) return failed(error.message);
    throw error;
  }
  return success(auth);
}
