// A custom connector's lambdas run with a stored or offered connection, outside any job: the
// connection's test (contract 21 §4) and its pick lists (contract 04 §1.8). Requests go through the
// shared transport; a stored connection's refreshes go through its refresh gate, as a job's.
import type { ServiceContext } from '../context.ts';
import type { AuthState } from './definition.ts';
import { openSession } from './http/session.ts';
import { standaloneLimits, transportFor, type TestOutcome } from './connections.ts';
import { authWith, hostFor, secretsOf, settingsOf, type OAuthApp } from './custom-host.ts';
import { connectionTestHost } from './custom-test-host.ts';
import { stepErrorOf, usesRedirectFor, whoOf, type LoadedCustomConnector } from './custom.ts';
import type { ConnectorOutcome } from './sdk/runtime.ts';

/** A connection of a custom connector: what it holds, and how its refreshes are shared. */
export interface CustomConnectionArgs {
  connection: { id: number | null; name: string; provider: string };
  values: Record<string, unknown>;
  auth: AuthState;
  /** The OAuth app of an `oauth2` connector's connection (to refresh its token). */
  app?: OAuthApp | undefined;
  /** The connection's scope when `auth` is what it has stored: refreshes are shared with its jobs. */
  shared?: { workspaceId: number; environmentId: number } | undefined;
}

type CustomConnectionOutcome =
  { ok: true; value: unknown; auth: AuthState } | { ok: false; error: string; auth: AuthState; notConnected?: true };

/**
 * One lambda of a custom connector run with a connection's values, through the shared transport
 * (the test, a pick list). What `acquire` or `refresh` returned is kept in the authorization's
 * `extra` (sealed with it). `shared` (a stored connection, with what is stored): its refreshes go
 * through the connection's refresh gate as a job's (custom-refresh.ts), their values stored at once.
 */
async function runWithConnection(
  ctx: Pick<ServiceContext, 'outbound' | 'log' | 'config' | 'rubyConnectors' | 'db' | 'secretBox' | 'clock' | 'nodeId'>,
  loaded: LoadedCustomConnector,
  args: CustomConnectionArgs,
  workspaceId: number,
  path: string,
  params: Record<string, unknown> = {},
): Promise<CustomConnectionOutcome> {
  const limits = standaloneLimits();
  const session = openSession({
    definition: loaded.connector.connection!,
    connection: args.connection,
    state: { values: args.values as never, auth: args.auth },
    transport: transportFor(ctx),
    limits,
  });
  if (loaded.connector.connection && (await usesRedirectFor(loaded, args.values)) && !args.auth.accessToken)
    return {
      ok: false,
      error: 'not connected yet: connect it through the provider (Connect)',
      auth: args.auth,
      notConnected: true,
    };
  const settings = settingsOf(session, args.app);
  const gated =
    args.shared && args.connection.id !== null
      ? connectionTestHost(ctx, args.shared, args.connection.id, session, settings, limits.deadline)
      : null;
  let outcome: ConnectorOutcome;
  try {
    outcome = await ctx.rubyConnectors.get().invoke(
      {
        source: loaded.source,
        sourceKey: `${loaded.connectorId}:${loaded.version}`,
        connectorName: loaded.title,
        workspaceId,
        path,
        params: { ...params, settings },
      },
      gated?.host ?? hostFor(session, secretsOf(settings)),
    );
  } finally {
    await gated?.done();
  }
  const auth = authWith(gated?.kept() ?? args.auth, args.values, outcome.settings ?? {});
  if (outcome.ok) return { ok: true, value: outcome.value, auth };
  const error = stepErrorOf(outcome.error, whoOf(args.connection, loaded.title)).message;
  return { ok: false, error: error.slice(0, 1000), auth };
}

/** A connection's test for a custom connector (contract 21 §4): its `test` lambda with the connection's values. */
export async function testCustomConnection(
  ctx: Pick<ServiceContext, 'outbound' | 'log' | 'config' | 'rubyConnectors' | 'db' | 'secretBox' | 'clock' | 'nodeId'>,
  loaded: LoadedCustomConnector,
  args: CustomConnectionArgs,
  workspaceId: number,
): Promise<TestOutcome> {
  const outcome = await runWithConnection(ctx, loaded, args, workspaceId, 'test');
  return outcome.ok ? { ok: true, auth: outcome.auth } : { ok: false, error: outcome.error, auth: outcome.auth };
}

/**
 * A pick list of a custom connector read through a connection (`pick_lists.<name>` with the
 * connection's values and `params` as its keyword arguments).
 */
export async function customPickList(
  ctx: Pick<ServiceContext, 'outbound' | 'log' | 'config' | 'rubyConnectors' | 'db' | 'secretBox' | 'clock' | 'nodeId'>,
  loaded: LoadedCustomConnector,
  args: CustomConnectionArgs,
  workspaceId: number,
  name: string,
  params: Record<string, unknown>,
): Promise<CustomConnectionOutcome> {
  return runWithConnection(ctx, loaded, args, workspaceId, `pick_lists.${name}`, { args: params });
}
