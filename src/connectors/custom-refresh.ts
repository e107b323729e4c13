// One refresh at a time per connection of a custom connector, across the jobs of a node and across
// nodes: a call whose request `refresh_on` matched asks first. It leads (it holds the lease
// `connection-refresh:<id>` in the leases table and runs the connector's `refresh` or `acquire`),
// or it waits for the refresh another call leads and takes what that one stored (re-read from the
// database, so a call on another node sees it too). Services that rotate refresh tokens accept each
// one once: without this, two jobs meeting a 401 together would both spend it and one would fail.
// A leader whose refresh the service refused marks the connection lost; its waiters, and every
// later refresh until the connection is connected or updated again, then fail without a request.
import { randomUUID } from 'node:crypto';
import type { ServiceContext } from '../context.ts';
import { toStored } from '../time.ts';
import { releaseLease, takeLease } from '../leases.store.ts';
import { findConnectionLoss, type ConnectionScope } from '../api/connections/connections.store.ts';
import { authStoreFor } from './connections.ts';
import type { AuthState } from './definition.ts';

/** How long a leader's claim holds: a node that died mid-refresh delays the others this long at most. */
const LEASE_MS = 60_000;
/** Waits between looks at the stored values while another call refreshes (growing to the last). */
const FIRST_WAIT_MS = 20;
const LAST_WAIT_MS = 250;

/** `failed`: the connection was lost meanwhile (`lost`), or the wait outlasted the step. */
export type GateTurn = { lead: true } | { stored: AuthState } | { failed: string; lost: boolean };

export interface RefreshGate {
  /** Before a refresh of `current` (what this call holds): lead, take the stored values, or fail. */
  begin(current: AuthState): Promise<GateTurn>;
  /** The refresh this call led ended (its values already stored when `ok`); true when the connection is now lost. */
  end(outcome: { ok: boolean; refused: boolean; reason: string }): Promise<boolean>;
  /** Gives the lease up if this call still holds it (the call ended, however). */
  release(): Promise<void>;
}

/** Same authorization: tokens and kept values, key order aside. */
function sameAuth(a: AuthState, b: AuthState): boolean {
  const canon = (s: AuthState) =>
    JSON.stringify([
      s.accessToken ?? null,
      s.refreshToken ?? null,
      Object.entries(s.extra ?? {}).sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0)),
    ]);
  return canon(a) === canon(b);
}

export function refreshGate(
  ctx: Pick<ServiceContext, 'db' | 'secretBox' | 'clock' | 'nodeId'>,
  scope: ConnectionScope,
  connectionId: number,
  deadline: number,
  /** A connection's test refreshes even when the connection is marked lost (its new input may mend it). */
  options: { ignoreLoss?: boolean } = {},
): RefreshGate {
  const name = `connection-refresh:${connectionId}`;
  const holder = `${ctx.nodeId}:${randomUUID()}`;
  const store = authStoreFor(ctx, scope, connectionId);
  let held = false;

  const take = async () => {
    const now = ctx.clock.now();
    held = await takeLease(ctx.db, name, holder, toStored(now), toStored(new Date(now.getTime() + LEASE_MS)));
    return held;
  };
  const release = async () => {
    if (!held) return;
    held = false;
    await releaseLease(ctx.db, name, holder);
  };

  return {
    async begin(current) {
      let wait = FIRST_WAIT_MS;
      for (;;) {
        const leading = await take();
        // What is stored now: another call (here or on another node) may have refreshed already.
        const stored = await store.load();
        if (!sameAuth(stored, current)) {
          await release();
          return { stored };
        }
        const lost = options.ignoreLoss ? null : await findConnectionLoss(ctx.db, scope, connectionId);
        if (lost !== null) {
          await release();
          return { failed: `the connection is lost (${lost})`, lost: true };
        }
        if (leading) return { lead: true };
        if (Date.now() + wait > deadline)
          return {
            failed: 'could not get new credentials: timed out waiting for another job to refresh them',
            lost: false,
          };
        await new Promise((resolve) => setTimeout(resolve, wait));
        wait = Math.min(LAST_WAIT_MS, Math.ceil(wait * 1.5));
      }
    },
    async end({ ok, refused, reason }) {
      try {
        if (!ok && refused) {
          await store.lost(reason);
          return true;
        }
        return false;
      } finally {
        await release();
      }
    },
    release,
  };
}
