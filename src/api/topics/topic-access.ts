// Who may publish to or consume from a topic (contract 13 §1):
// - a developer API client token whose role holds event_streams (read to consume, write to
//   publish), for topics of its environment inside its project scope;
// - an API platform credential of an access profile granted the topic for that right: an OAuth
//   access token from POST /oauth2/token (Bearer), an auth token (API-TOKEN header), or a
//   caller's JWT for a jwt profile. The profile state comes from the gateway's resolver, whose
//   cache the notifier empties on every profile change, so a revoked token stops at once.
// No credential or a bad one: 401. A right missing: 403. A topic the caller cannot see: 404.
import type { IncomingHttpHeaders } from 'node:http';
import type { ServiceContext } from '../../context.ts';
import { AppError } from '../../errors.ts';
import { authenticateCached, ipAllowed, type AuthContext } from '../../auth/credentials.ts';
import type { Privilege } from '../../auth/privileges.ts';
import { findFolderInScope } from '../folders/folder-scope.store.ts';
import { ipPasses, type AccessResolver, type ProfileState } from '../../auth/access.ts';
import { POLICY_ERROR_CODES } from '../../http/gateway-errors.ts';
import { createPolicyEnforcer } from '../../auth/policies.ts';
import type { TopicState } from './topic-cache.ts';

export type TopicRight = 'publish' | 'consume';

export type EventStreamsCaller = { kind: 'developer'; auth: AuthContext } | { kind: 'profile'; profile: ProfileState };

const PRIVILEGE: Record<TopicRight, Privilege> = { consume: 'event_streams:read', publish: 'event_streams:write' };

export function createTopicAccess(ctx: ServiceContext, resolver: AccessResolver) {
  const policies = createPolicyEnforcer(ctx);

  return {
    /** The caller, before anything is read from the body: 401 for a missing or bad credential. */
    async authenticate(
      request: { headers: IncomingHttpHeaders; ip: string },
      right: TopicRight,
    ): Promise<EventStreamsCaller> {
      const authorization = request.headers.authorization;
      const bearer = typeof authorization === 'string' ? /^bearer\s+(\S+)\s*$/i.exec(authorization)?.[1] : undefined;
      // A developer API client token is opaque (wrk<env>-<hex>); our access tokens and callers' JWTs have three parts.
      if (bearer !== undefined && request.headers['api-token'] === undefined && bearer.split('.').length !== 3) {
        const auth = await authenticateCached(ctx, bearer);
        if (auth === null) throw new AppError('unauthorized');
        if (!ipAllowed(auth.ipAllowList, request.ip)) throw new AppError('ip_not_allowed');
        if (!auth.privileges.has(PRIVILEGE[right]))
          throw new AppError('privilege_missing', { params: { privilege: PRIVILEGE[right] } });
        return { kind: 'developer', auth };
      }
      // Tokens in the query string are not taken here: URLs end up in logs.
      const outcome = await resolver.resolve({ headers: request.headers, query: {} });
      if (outcome.kind !== 'profile' || !outcome.profile.usable) throw new AppError('unauthorized');
      if (!ipPasses(outcome.profile, request.ip)) throw new AppError('ip_not_allowed');
      return { kind: 'profile', profile: outcome.profile };
    },

    /** 404 when the caller cannot see the topic, 403 without the right, 429 over the profile's policy. */
    async authorize(caller: EventStreamsCaller, topic: TopicState, right: TopicRight): Promise<void> {
      if (caller.kind === 'developer') {
        const { auth } = caller;
        if (topic.environmentId !== auth.environmentId) throw new AppError('topic_not_found');
        if (
          !auth.allFolders &&
          (await findFolderInScope(ctx.db, auth.environmentId, auth, topic.folderId)) === undefined
        )
          throw new AppError('topic_not_found');
        return;
      }
      const { profile } = caller;
      if (topic.environmentId !== profile.environmentId) throw new AppError('topic_not_found');
      const granted = right === 'publish' ? profile.publishTopicIds : profile.consumeTopicIds;
      if (!granted.has(topic.id))
        throw new AppError(right === 'publish' ? 'topic_publish_not_granted' : 'topic_consume_not_granted');
      const verdict = await policies.admit(profile.id, profile.policyId);
      if (!verdict.ok) throw new AppError(POLICY_ERROR_CODES[verdict.error], { retryAfterSeconds: verdict.retryAfter });
    },
  };
}

export type TopicAccess = ReturnType<typeof createTopicAccess>;
