// GET /api/members (contract 23 §6, 05 §6.2): the workspace's collaborators, then the invitations
// made to people who have not joined, as one list: `{"data": [...], "total": n}`.
import type { ServiceContext } from '../../context.ts';
import type { EnvironmentType, MemberInvitationRow } from '../../db/types.ts';
import type { Page } from '../../http/pagination.ts';
import { toApiTimestamp } from '../../time.ts';
import { latestActivityOfWorkspace } from '../activity_logs/activity_logs.store.ts';
import { emailKey, rolesOf } from '../member_invitations/member_invitations.store.ts';
import { countOpenInvitations, listOpenInvitations, listWorkspaceUsers, type UserRow } from './members.store.ts';

export interface MemberApi {
  /** The user's id; null for an invitation (not a member yet: its id is `invitation.id`). */
  id: number | null;
  name: string;
  email: string;
  external_id: string | null;
  time_zone: string;
  created_at: string;
  /** `owner` for the workspace's owner, `invitation` for someone invited who has not joined. */
  grant_type: string;
  status: 'active' | 'invited';
  roles: Array<{ environment_type: EnvironmentType; role_name: string }>;
  invitation: { id: number; status: string; invited_at: string; sent_at: string | null } | null;
  last_activity_log: { id: number; event_type: string; created_at: string } | null;
}

const ENVIRONMENTS: readonly EnvironmentType[] = ['dev', 'test', 'prod'];

export async function listMembers(
  ctx: ServiceContext,
  caller: { workspaceId: number },
  query: { email?: string },
  page: Page,
): Promise<{ data: MemberApi[]; total: number }> {
  const key = query.email === undefined || query.email.trim() === '' ? undefined : emailKey(query.email);
  const users = await listWorkspaceUsers(ctx.db, caller.workspaceId, key);
  const invitationCount = await countOpenInvitations(ctx.db, caller.workspaceId, key);
  const total = users.length + invitationCount;
  // Users first, then invitations, both by id; a page may straddle the two.
  const userPage = users.slice(page.offset, page.offset + page.perPage);
  const invitationOffset = Math.max(0, page.offset - users.length);
  const invitations = await listOpenInvitations(ctx.db, caller.workspaceId, key, {
    offset: invitationOffset,
    limit: page.perPage - userPage.length,
  });
  const latest = userPage.length > 0 ? await latestActivityOfWorkspace(ctx.db, caller.workspaceId) : undefined;
  return {
    data: [...userPage.map((u) => userToMember(u, latest)), ...invitations.map(invitationToMember)],
    total,
  };
}

function userToMember(
  user: UserRow,
  latest: { id: number; event_type: string; occurred_at: string } | undefined,
): MemberApi {
  const roleName = user.role === 'owner' ? 'Admin' : user.role;
  return {
    id: user.id,
    name: user.name,
    email: user.email,
    external_id: null,
    time_zone: 'UTC',
    created_at: toApiTimestamp(user.created_at),
    grant_type: user.role,
    status: 'active',
    roles: ENVIRONMENTS.map((environment_type) => ({ environment_type, role_name: roleName })),
    invitation: null,
    // Every developer API client acts for the owner: the workspace's latest change is theirs.
    last_activity_log:
      user.role === 'owner' && latest
        ? { id: latest.id, event_type: latest.event_type, created_at: toApiTimestamp(latest.occurred_at) }
        : null,
  };
}

function invitationToMember(row: MemberInvitationRow): MemberApi {
  return {
    id: null,
    name: row.name,
    email: row.email,
    external_id: null,
    time_zone: 'UTC',
    created_at: toApiTimestamp(row.created_at),
    grant_type: 'invitation',
    status: 'invited',
    roles: rolesOf(row).map((r) => ({ environment_type: r.environment_type, role_name: r.role_name })),
    invitation: {
      id: row.id,
      status: row.status,
      invited_at: toApiTimestamp(row.invited_at),
      sent_at: toApiTimestamp(row.sent_at),
    },
    last_activity_log: null,
  };
}
