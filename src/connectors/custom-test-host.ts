// The host of a connection's test of a custom connector (the test when a connection is updated):
// the test's requests, and its refreshes through the connection's refresh gate (custom-refresh.ts),
// as a job's: one refresh at a time per connection, so a test and a job that meet a 401 together
// make one refresh, and new values are stored at once for the jobs waiting on it.
import type { ServiceContext } from '../context.ts';
import type { ConnectionScope } from '../api/connections/connections.store.ts';
import type { AuthState, ConnectorSession } from './definition.ts';
import { authStoreFor } from './connections.ts';
import { maskSecrets } from './http/redact.ts';
import { refreshGate } from './custom-refresh.ts';
import { authWith, hostFor, secretsOf } from './custom-host.ts';
import type { ConnectorHost } from './sdk/runtime.ts';

export function connectionTestHost(
  ctx: Pick<ServiceContext, 'db' | 'secretBox' | 'clock' | 'nodeId'>,
  scope: ConnectionScope,
  connectionId: number,
  session: ConnectorSession,
  settings: Record<string, unknown>,
  deadline: number,
): { host: ConnectorHost; kept: () => AuthState; done: () => Promise<void> } {
  const values = session.state.values as Record<string, unknown>;
  const secrets = secretsOf(settings);
  const store = authStoreFor(ctx, scope, connectionId);
  // A test of a lost connection may mend it (new input): its refresh is not refused for the loss.
  const gate = refreshGate(ctx, scope, connectionId, deadline, { ignoreLoss: true });
  let kept = session.state.auth;
  const host: ConnectorHost = {
    ...hostFor(session, secrets),
    async connectionUpdated(next) {
      const auth = authWith(kept, values, next);
      if (JSON.stringify(auth) === JSON.stringify(kept)) return;
      await store.save(auth);
      kept = auth;
    },
    async refreshBegin() {
      const turn = await gate.begin(kept);
      if ('lead' in turn) return turn;
      if ('failed' in turn) return { failed: turn.failed };
      kept = turn.stored;
      return { settings: { ...kept.extra, ...values } };
    },
    async refreshEnd({ ok, refused, message }) {
      await gate.end({ ok, refused, reason: maskSecrets(message ?? 'the refresh failed', secrets) });
    },
  };
  return { host, kept: () => kept, done: () => gate.release() };
}
