// Member invitations: one row per invitee e-mail and workspace; inviting again updates it.
import type { Db, EnvironmentType, InvitationStatus, MemberInvitationRow } from '../../db/types.ts';

export type InvitationRoleType = 'system' | 'privilege_group';

export interface InvitationRole {
  environment_type: EnvironmentType;
  role_name: string;
  role_type: InvitationRoleType;
}

export function emailKey(email: string): string {
  return email.trim().toLowerCase();
}

export function rolesOf(row: Pick<MemberInvitationRow, 'roles'>): InvitationRole[] {
  const parsed: unknown = JSON.parse(row.roles);
  return Array.isArray(parsed) ? (parsed as InvitationRole[]) : [];
}

/**
 * Record an invitation, or renew the one already made for this address when it is older than
 * `renewBefore` or its e-mail failed. Returns undefined when an invitation made since then
 * stands: the database decides, in one statement, so two concurrent requests cannot both pass.
 */
export async function upsertInvitation(
  db: Db,
  input: {
    workspaceId: number;
    email: string;
    name: string;
    roles: readonly InvitationRole[];
    userGroupIds: readonly number[];
    status: InvitationStatus;
    invitedByClientId: number;
    now: string;
    renewBefore: string;
  },
): Promise<MemberInvitationRow | undefined> {
  const values = {
    workspace_id: input.workspaceId,
    email: input.email,
    email_key: emailKey(input.email),
    name: input.name,
    roles: JSON.stringify(input.roles),
    user_group_ids: JSON.stringify(input.userGroupIds),
    status: input.status,
    delivery_error: null,
    invited_by_client_id: input.invitedByClientId,
    invited_at: input.now,
    sent_at: null,
    created_at: input.now,
    updated_at: input.now,
  };
  return db
    .insertInto('member_invitations')
    .values(values)
    .onConflict((oc) =>
      oc
        .columns(['workspace_id', 'email_key'])
        .doUpdateSet({
          email: values.email,
          name: values.name,
          roles: values.roles,
          user_group_ids: values.user_group_ids,
          status: values.status,
          delivery_error: null,
          invited_by_client_id: values.invited_by_client_id,
          invited_at: values.invited_at,
          sent_at: null,
          updated_at: values.updated_at,
        })
        .where((eb) =>
          eb.or([
            eb('member_invitations.invited_at', '<=', input.renewBefore),
            eb('member_invitations.status', '=', 'failed'),
          ]),
        ),
    )
    .returningAll()
    .executeTakeFirst();
}

export async function findInvitationByEmail(
  db: Db,
  workspaceId: number,
  email: string,
): Promise<MemberInvitationRow | undefined> {
  return db
    .selectFrom('member_invitations')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('email_key', '=', emailKey(email))
    .executeTakeFirst();
}

export async function markInvitation(
  db: Db,
  id: number,
  update: { status: InvitationStatus; sentAt?: string | null; deliveryError?: string | null; now: string },
): Promise<void> {
  await db
    .updateTable('member_invitations')
    .set({
      status: update.status,
      sent_at: update.sentAt ?? null,
      delivery_error: update.deliveryError ?? null,
      updated_at: update.now,
    })
    .where('id', '=', id)
    .execute();
}

export async function listInvitations(
  db: Db,
  workspaceId: number,
  status?: InvitationStatus,
): Promise<MemberInvitationRow[]> {
  let query = db.selectFrom('member_invitations').selectAll().where('workspace_id', '=', workspaceId);
  if (status !== undefined) query = query.where('status', '=', status);
  return query.orderBy('id').execute();
}

export async function countInvitations(db: Db, workspaceId: number): Promise<number> {
  const row = await db
    .selectFrom('member_invitations')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('workspace_id', '=', workspaceId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Whether the address already belongs to a member (user) of the workspace, in any case. */
export async function isMemberEmail(db: Db, workspaceId: number, email: string): Promise<boolean> {
  const row = await db
    .selectFrom('users')
    .select('id')
    .where('workspace_id', '=', workspaceId)
    .where((eb) => eb(eb.fn('lower', ['email']), '=', emailKey(email)))
    .executeTakeFirst();
  return row !== undefined;
}
