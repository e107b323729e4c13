// Access policies at the gateway (03 §6, §9.5): a rate limit over a short window and a quota
// over a long one, both fixed windows counted per access profile in the database, so a
// restart does not reset a monthly quota.
import type { ServiceContext } from '../context.ts';
import type { ApiPolicyRow } from '../db/types.ts';
import {
  countPolicyRequest,
  deleteEndedPolicyWindows,
  findPolicyById,
  uncountPolicyRequest,
} from '../api/api_clients/api_clients.store.ts';

export type PolicyVerdict =
  | { ok: true; headers: Record<string, string> }
  | { ok: false; error: 'Rate limit exceeded' | 'Quota exceeded'; retryAfter: number };

export function createPolicyEnforcer(ctx: ServiceContext) {
  const policies = new Map<number, ApiPolicyRow | null>();
  ctx.notifier.subscribe('api_client.changed', () => policies.clear());
  ctx.notifier.subscribe('everything.changed', () => policies.clear());

  async function policy(id: number): Promise<ApiPolicyRow | null> {
    if (!policies.has(id)) policies.set(id, (await findPolicyById(ctx.db, id)) ?? null);
    return policies.get(id) ?? null;
  }

  /** Count one request against the profile's policy; refuse when a window is already full. */
  async function admit(profileId: number, policyId: number | null): Promise<PolicyVerdict> {
    if (policyId === null) return { ok: true, headers: {} };
    const p = await policy(policyId);
    if (!p) return { ok: true, headers: {} };
    const now = ctx.clock.now().getTime();
    const windows = [
      {
        kind: 'rate' as const,
        limit: p.rate_limit_requests,
        seconds: p.rate_limit_interval_seconds,
        error: 'Rate limit exceeded' as const,
      },
      {
        kind: 'quota' as const,
        limit: p.quota_requests,
        seconds: p.quota_interval_seconds,
        error: 'Quota exceeded' as const,
      },
    ].filter((w) => w.limit !== null && w.seconds !== null && w.seconds > 0);
    // Counted in the server's group commit: concurrent calls share one transaction and one sync
    // of the log. The work touches only `trx`, as group commit requires (it may run twice).
    return ctx.groupCommit.run(async (trx) => {
      const counted: Array<{
        count: number;
        limit: number;
        reset: number;
        error: 'Rate limit exceeded' | 'Quota exceeded';
      }> = [];
      for (const w of windows) {
        const size = (w.seconds as number) * 1000;
        const start = Math.floor(now / size) * size;
        const count = await countPolicyRequest(trx, { profileId, kind: w.kind, windowStart: start });
        counted.push({
          count,
          limit: w.limit as number,
          reset: Math.ceil((start + size - now) / 1000),
          error: w.error,
        });
        // Windows that have ended are of no more use.
        await deleteEndedPolicyWindows(trx, { profileId, kind: w.kind, windowStart: start });
      }
      const over = counted.find((c) => c.count > c.limit);
      if (over) {
        // A refused request does not use up the window: undo the counts of this call.
        for (const w of windows) {
          const size = (w.seconds as number) * 1000;
          await uncountPolicyRequest(trx, { profileId, kind: w.kind, windowStart: Math.floor(now / size) * size });
        }
        return { ok: false as const, error: over.error, retryAfter: Math.max(1, over.reset) };
      }
      const headers: Record<string, string> = {};
      const rate = counted[0];
      if (rate) {
        headers['x-ratelimit-limit'] = String(rate.limit);
        headers['x-ratelimit-remaining'] = String(Math.max(0, rate.limit - rate.count));
        headers['x-ratelimit-reset'] = String(rate.reset);
      }
      return { ok: true as const, headers };
    });
  }

  return { admit };
}
