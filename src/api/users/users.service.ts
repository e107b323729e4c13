// GET /api/users/me: the workspace the caller's token belongs to (contract 05 §7).
import { countRecipes } from '../recipes/recipes.store.ts';
import type { ServiceContext } from '../../context.ts';
import { assertFound } from '../../errors.ts';
import { toApiTimestamp, toStored } from '../../time.ts';
import type { AuthContext } from '../../auth/credentials.ts';
import { lastUsedInWorkspace } from '../developer_api_clients/developer_api_clients.store.ts';
import { findHomeFolder } from '../folders/folders.store.ts';
import { findWorkspace } from '../../workspaces/workspaces.store.ts';

export interface WorkspaceDetails {
  id: number;
  name: string;
  created_at: string;
  plan_id: string;
  current_billing_period_start: string;
  current_billing_period_end: string;
  expert: boolean;
  avatar_url: string | null;
  recipes_count: number;
  interested_applications: string[];
  company_name: string | null;
  location: string | null;
  last_seen: string | null;
  contact_phone: string | null;
  contact_email: string | null;
  about_me: string | null;
  email: string;
  phone: string | null;
  active_recipes_count: number;
  root_folder_id: number;
}

export async function getWorkspaceDetails(
  ctx: ServiceContext,
  auth: Pick<AuthContext, 'workspaceId' | 'environmentId'>,
): Promise<WorkspaceDetails> {
  const workspace = assertFound(await findWorkspace(ctx.db, auth.workspaceId));
  const home = assertFound(await findHomeFolder(ctx.db, auth.environmentId));
  const lastSeen = await lastUsedInWorkspace(ctx.db, auth.workspaceId);
  const now = ctx.clock.now();
  const periodStart = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
  const periodEnd = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
  return {
    id: workspace.id,
    name: workspace.name,
    created_at: toApiTimestamp(workspace.created_at),
    plan_id: workspace.plan_id,
    current_billing_period_start: toApiTimestamp(toStored(periodStart)),
    current_billing_period_end: toApiTimestamp(toStored(periodEnd)),
    expert: false,
    avatar_url: null,
    recipes_count: await countRecipes(ctx.db, auth.workspaceId, false),
    interested_applications: [],
    company_name: workspace.company_name,
    location: null,
    last_seen: toApiTimestamp(lastSeen),
    contact_phone: null,
    contact_email: null,
    about_me: null,
    email: workspace.owner_email,
    phone: null,
    active_recipes_count: await countRecipes(ctx.db, auth.workspaceId, true),
    root_folder_id: home.id,
  };
}
