// The workspace's people as the members list shows them: its users (today, the owner) and the
// invitations made to others, each filtered by e-mail in any case.
import type { Db, MemberInvitationRow, UsersTable } from '../../db/types.ts';
import type { Selectable } from 'kysely';

export type UserRow = Selectable<UsersTable>;

export async function listWorkspaceUsers(db: Db, workspaceId: number, emailKey?: string): Promise<UserRow[]> {
  let query = db.selectFrom('users').selectAll().where('workspace_id', '=', workspaceId);
  if (emailKey !== undefined) query = query.where((eb) => eb(eb.fn('lower', ['email']), '=', emailKey));
  return query.orderBy('id').execute();
}

/** Invitations to addresses that are not (yet) users of the workspace. */
function openInvitations(db: Db, workspaceId: number, emailKey?: string) {
  let query = db
    .selectFrom('member_invitations as i')
    .where('i.workspace_id', '=', workspaceId)
    .where((eb) =>
      eb.not(
        eb.exists(
          eb
            .selectFrom('users as u')
            .select('u.id')
            .whereRef('u.workspace_id', '=', 'i.workspace_id')
            .where((inner) => inner(inner.fn('lower', ['u.email']), '=', inner.ref('i.email_key'))),
        ),
      ),
    );
  if (emailKey !== undefined) query = query.where('i.email_key', '=', emailKey);
  return query;
}

export async function listOpenInvitations(
  db: Db,
  workspaceId: number,
  emailKey: string | undefined,
  page: { offset: number; limit: number },
): Promise<MemberInvitationRow[]> {
  if (page.limit <= 0) return [];
  return openInvitations(db, workspaceId, emailKey)
    .selectAll('i')
    .orderBy('i.id')
    .limit(page.limit)
    .offset(page.offset)
    .execute();
}

export async function countOpenInvitations(db: Db, workspaceId: number, emailKey?: string): Promise<number> {
  const row = await openInvitations(db, workspaceId, emailKey)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
