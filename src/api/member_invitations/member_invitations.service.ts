// Inviting collaborators (contract 05 §6.1). An invitation names a person, an e-mail and a role
// per environment; it is e-mailed through SMTP when a mailer is configured, otherwise recorded
// as pending and logged. One invitation per address and workspace every 20 minutes.
import type { ServiceContext } from '../../context.ts';
import type { Db, EnvironmentType, InvitationStatus, MemberInvitationRow } from '../../db/types.ts';
import { AppError, invalid } from '../../errors.ts';
import { MailDeliveryError, type MailMessage } from '../../mail/mailer.ts';
import { toStored } from '../../time.ts';
import { findWorkspace } from '../../workspaces/workspaces.store.ts';
import { findCollaboratorRoleByName, roleNameKey, SYSTEM_ROLE_NAMES } from '../roles/roles.store.ts';
import {
  findInvitationByEmail,
  isMemberEmail,
  listInvitations as listInvitationRows,
  markInvitation,
  rolesOf,
  upsertInvitation,
  type InvitationRole,
} from './member_invitations.store.ts';

/** The vendor's rule (D-team): one invitation per e-mail and workspace every 20 minutes. */
export const INVITATION_INTERVAL_MS = 20 * 60 * 1000;

const ENVIRONMENT_ORDER: readonly EnvironmentType[] = ['dev', 'test', 'prod'];
const ENVIRONMENT_NAMES: Record<EnvironmentType, string> = { dev: 'Development', test: 'Test', prod: 'Production' };
const ROLE_TYPES = ['privilege_group', 'environment'];
const MAX_NAME_LENGTH = 255;
const MAX_EMAIL_LENGTH = 254;
// A practical address check (RFC 5321 lengths, one @, a dotted domain); the SMTP server has the last word.
const EMAIL =
  /^[^\s@"<>(),;:\\[\]]{1,64}@(?=.{1,253}$)[\p{L}\p{N}](?:[\p{L}\p{N}-]*[\p{L}\p{N}])?(?:\.[\p{L}\p{N}](?:[\p{L}\p{N}-]*[\p{L}\p{N}])?)+$/u;

export interface InvitationInput {
  name: string;
  email: string;
  role_name?: string | null | undefined;
  env_roles?:
    | ReadonlyArray<{
        environment_type: string;
        name?: string | undefined;
        role_name?: string | undefined;
        role_type?: string | undefined;
      }>
    | undefined;
  user_group_ids?: readonly number[] | undefined;
}

export interface Inviter {
  workspaceId: number;
  clientId: number;
}

export async function inviteMember(ctx: ServiceContext, inviter: Inviter, input: InvitationInput): Promise<void> {
  const name = validName(input.name);
  const email = validEmail(input.email);
  const roles = await resolveRoles(ctx.db, inviter.workspaceId, input);
  if ((input.user_group_ids ?? []).length > 0) {
    // Collaborator groups do not exist in Switchboard, so every id is unknown.
    throw invalid({
      user_group_ids: [
        `has unknown collaborator groups: ${[...new Set(input.user_group_ids)].slice(0, 10).join(', ')}`,
      ],
    });
  }
  if (await isMemberEmail(ctx.db, inviter.workspaceId, email))
    throw new AppError('already_member', { errors: { email: ['is already a member of this workspace'] } });

  const now = ctx.clock.now();
  const invitation = await upsertInvitation(ctx.db, {
    workspaceId: inviter.workspaceId,
    email,
    name,
    roles,
    userGroupIds: [],
    status: ctx.mailer ? 'sending' : 'pending',
    invitedByClientId: inviter.clientId,
    now: toStored(now),
    renewBefore: toStored(new Date(now.getTime() - INVITATION_INTERVAL_MS)),
  });
  if (invitation === undefined) {
    const standing = await findInvitationByEmail(ctx.db, inviter.workspaceId, email);
    const waitMs = standing
      ? new Date(standing.invited_at).getTime() + INVITATION_INTERVAL_MS - now.getTime()
      : INVITATION_INTERVAL_MS;
    throw new AppError('invitation_too_soon', { retryAfterSeconds: Math.max(1, Math.ceil(waitMs / 1000)) });
  }

  const logged = {
    invitation_id: invitation.id,
    workspace_id: inviter.workspaceId,
    email: maskEmail(email),
    roles: roleSummary(roles),
  };
  if (!ctx.mailer) {
    ctx.log.info(
      logged,
      'invitation recorded as pending: no SMTP server is configured (SMTP_URL); list pending invitations with "switchboard invitations list"',
    );
    return;
  }
  const workspace = await findWorkspace(ctx.db, inviter.workspaceId);
  const message = invitationEmail({
    name,
    email,
    workspaceName: workspace?.name ?? 'Switchboard',
    roles,
    serverUrl: ctx.publicBaseUrl,
  });
  try {
    await ctx.mailer.send(message);
  } catch (error) {
    const summary = error instanceof MailDeliveryError ? error.summary : 'ERROR';
    await markInvitation(ctx.db, invitation.id, {
      status: 'failed',
      deliveryError: summary,
      now: toStored(ctx.clock.now()),
    });
    ctx.log.warn({ ...logged, smtp_error: summary }, 'invitation e-mail could not be sent');
    throw new AppError('invitation_not_delivered');
  }
  const sentAt = toStored(ctx.clock.now());
  await markInvitation(ctx.db, invitation.id, { status: 'sent', sentAt, now: sentAt });
  ctx.log.info(logged, 'invitation e-mailed');
}

export interface InvitationListItem {
  id: number;
  email: string;
  name: string;
  roles: InvitationRole[];
  status: InvitationStatus;
  invited_at: string;
  sent_at: string | null;
  delivery_error: string | null;
}

/** Invitations of a workspace, oldest first (the CLI lists them; there is no API for it). */
export async function listInvitations(
  ctx: Pick<ServiceContext, 'db'>,
  workspaceId: number,
  status?: InvitationStatus,
): Promise<InvitationListItem[]> {
  const rows = await listInvitationRows(ctx.db, workspaceId, status);
  return rows.map((row: MemberInvitationRow) => ({
    id: row.id,
    email: row.email,
    name: row.name,
    roles: rolesOf(row),
    status: row.status,
    invited_at: row.invited_at,
    sent_at: row.sent_at,
    delivery_error: row.delivery_error,
  }));
}

/** "Operator" when one role covers every environment, else "dev=Operator, prod=Admin". */
export function roleSummary(roles: readonly InvitationRole[]): string {
  const names = new Set(roles.map((r) => r.role_name));
  if (roles.length === ENVIRONMENT_ORDER.length && names.size === 1) return roles[0]!.role_name;
  return roles.map((r) => `${r.environment_type}=${r.role_name}`).join(', ');
}

export function invitationEmail(input: {
  name: string;
  email: string;
  workspaceName: string;
  roles: readonly InvitationRole[];
  serverUrl: string | undefined;
}): MailMessage {
  const workspace = input.workspaceName.replace(/[\r\n]+/g, ' ');
  const uniform =
    new Set(input.roles.map((r) => r.role_name)).size === 1 && input.roles.length === ENVIRONMENT_ORDER.length;
  const roleLines = uniform
    ? [`Your role: ${input.roles[0]!.role_name}`]
    : ['Your roles:', ...input.roles.map((r) => `  ${ENVIRONMENT_NAMES[r.environment_type]}: ${r.role_name}`)];
  const lines = [
    `Hello ${input.name},`,
    '',
    `You are invited to collaborate in the workspace "${workspace}" on Switchboard.`,
    '',
    ...roleLines,
    ...(input.serverUrl ? ['', `Switchboard: ${input.serverUrl}`] : []),
    '',
    'If you did not expect this invitation, you can ignore this e-mail.',
  ];
  return {
    to: { name: input.name, address: input.email },
    subject: `You are invited to ${workspace} on Switchboard`,
    text: `${lines.join('\n')}\n`,
  };
}

/** "ana.lopez@example.com" -> "a***@example.com": enough to recognise in a log, not to harvest. */
export function maskEmail(email: string): string {
  const at = email.lastIndexOf('@');
  return at <= 0 ? '***' : `${Array.from(email)[0]}***${email.slice(at)}`;
}

function validName(raw: string): string {
  const name = raw.trim();
  if (name === '') throw invalid({ name: ["can't be blank"] });
  if (name.length > MAX_NAME_LENGTH)
    throw invalid({ name: [`is too long (maximum is ${MAX_NAME_LENGTH} characters)`] });
  if (/[\u0000-\u001f\u007f]/.test(name)) throw invalid({ name: ['must not contain control characters'] });
  return name;
}

function validEmail(raw: string): string {
  const email = raw.trim();
  if (email === '') throw invalid({ email: ["can't be blank"] });
  if (email.length > MAX_EMAIL_LENGTH || !EMAIL.test(email))
    throw invalid({ email: ['is not a valid e-mail address'] });
  return email;
}

/**
 * One role per environment: `role_name` (deprecated by the vendor, still sent) covers all three;
 * `env_roles` entries set or override single environments. A name is the system role `Admin` or
 * one of the workspace's custom roles (any case).
 */
async function resolveRoles(db: Db, workspaceId: number, input: InvitationInput): Promise<InvitationRole[]> {
  const byEnvironment = new Map<EnvironmentType, InvitationRole>();
  const roleName = input.role_name?.trim();
  if (roleName) {
    const role = await resolveRole(db, workspaceId, roleName, 'role_name');
    for (const env of ENVIRONMENT_ORDER) byEnvironment.set(env, { environment_type: env, ...role });
  }
  const seen = new Set<EnvironmentType>();
  for (const [index, entry] of (input.env_roles ?? []).entries()) {
    const field = `env_roles.${index}`;
    const env = entry.environment_type.trim().toLowerCase();
    if (!isEnvironmentType(env)) throw invalid({ [`${field}.environment_type`]: ['must be dev, test or prod'] });
    if (seen.has(env)) throw invalid({ [`${field}.environment_type`]: ['is given twice'] });
    seen.add(env);
    if (entry.role_type !== undefined && !ROLE_TYPES.includes(entry.role_type))
      throw invalid({ [`${field}.role_type`]: [`must be ${ROLE_TYPES.join(' or ')}`] });
    const name = (entry.name ?? entry.role_name)?.trim();
    if (!name) throw invalid({ [`${field}.name`]: ['is required'] });
    byEnvironment.set(env, { environment_type: env, ...(await resolveRole(db, workspaceId, name, `${field}.name`)) });
  }
  if (byEnvironment.size === 0) throw invalid({ role_name: ['is required (or env_roles)'] });
  return ENVIRONMENT_ORDER.flatMap((env) => byEnvironment.get(env) ?? []);
}

async function resolveRole(
  db: Db,
  workspaceId: number,
  name: string,
  field: string,
): Promise<Omit<InvitationRole, 'environment_type'>> {
  const system = SYSTEM_ROLE_NAMES.find((s) => roleNameKey(s) === roleNameKey(name));
  if (system) return { role_name: system, role_type: 'system' };
  const custom = await findCollaboratorRoleByName(db, workspaceId, name);
  if (!custom) throw invalid({ [field]: ['is not a role of this workspace'] });
  return { role_name: custom.name, role_type: 'privilege_group' };
}

function isEnvironmentType(value: string): value is EnvironmentType {
  return (ENVIRONMENT_ORDER as readonly string[]).includes(value);
}
