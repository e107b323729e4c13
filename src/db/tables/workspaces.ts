// Row types of tenancy and access: workspaces, users, environments, folders, projects, properties, developer API clients and roles, invitations, console sessions, leases, the storage probe.
import type { Generated } from 'kysely';

export type Flag = 0 | 1;

export interface WorkspacesTable {
  id: Generated<number>;
  name: string;
  company_name: string | null;
  owner_email: string;
  plan_id: string;
  created_at: string;
  updated_at: string;
}

export interface UsersTable {
  id: Generated<number>;
  workspace_id: number;
  name: string;
  email: string;
  role: string;
  created_at: string;
  updated_at: string;
}

export type EnvironmentType = 'dev' | 'test' | 'prod';

export interface EnvironmentsTable {
  id: Generated<number>;
  workspace_id: number;
  type: EnvironmentType;
  name: string;
  /** First path segment of this environment's APIs on the gateway; assigned on first use. */
  api_prefix: string | null;
  created_at: string;
}

export interface FoldersTable {
  id: Generated<number>;
  workspace_id: number;
  environment_id: number;
  parent_id: number | null;
  name: string;
  /** The name trimmed and lower-cased: unique among siblings (folders_sibling_name_unique). */
  name_key: string;
  is_project: Flag;
  project_id: number | null;
  created_at: string;
  updated_at: string;
}

export interface ProjectsTable {
  id: Generated<number>;
  workspace_id: number;
  environment_id: number;
  folder_id: number;
  name: string;
  description: string;
  /** The vendor's project colour and icon names (a package's `project.json`); null: none set. */
  color: string | null;
  icon: string | null;
  created_at: string;
  updated_at: string;
}

export interface PropertiesTable {
  id: Generated<number>;
  workspace_id: number;
  environment_id: number;
  /** null: an environment property; otherwise a property of this project. */
  project_id: number | null;
  name: string;
  value: string;
  created_at: string;
  updated_at: string;
}

export interface DeveloperApiClientRolesTable {
  id: Generated<number>;
  workspace_id: number;
  name: string;
  name_key: string;
  /** JSON array of privilege names, e.g. ["recipes:read", "recipes:write"]. */
  privileges: string;
  created_at: string;
  updated_at: string;
}

export interface DeveloperApiClientsTable {
  id: Generated<number>;
  workspace_id: number;
  environment_id: number;
  role_id: number;
  name: string;
  name_key: string;
  description: string | null;
  all_folders: Flag;
  /** JSON array of project folder ids; [] when all_folders is 1. */
  folder_ids: string;
  /** Comma-separated addresses and CIDR ranges; '' allows any address. */
  ip_allow_list: string;
  /** SHA-256 (hex) of the API token; the token itself is never stored. */
  token_hash: string;
  token_updated_at: string;
  last_used_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface CollaboratorRolesTable {
  id: Generated<number>;
  workspace_id: number;
  name: string;
  name_key: string;
  inheritable: Flag;
  /** 1: the role reaches every folder (collaborator_role_folders is empty). */
  all_folders: Flag;
  /** JSON object: privilege category -> allowed actions, e.g. {"Recipes": ["read", "run"]}. */
  privileges: string;
  created_at: string;
  updated_at: string;
}

export interface CollaboratorRoleFoldersTable {
  role_id: number;
  folder_id: number;
}

export type InvitationStatus = 'pending' | 'sending' | 'sent' | 'failed';

export interface MemberInvitationsTable {
  id: Generated<number>;
  workspace_id: number;
  email: string;
  /** Lower-cased e-mail: one invitation per address and workspace. */
  email_key: string;
  name: string;
  /** JSON array of { environment_type, role_name, role_type }, one entry per environment. */
  roles: string;
  /** JSON array of collaborator group ids. */
  user_group_ids: string;
  status: InvitationStatus;
  /** Why the last e-mail failed (SMTP reply code and text, never credentials). */
  delivery_error: string | null;
  invited_by_client_id: number | null;
  /** When the invitation was last made; the 20-minute rule counts from here. */
  invited_at: string;
  sent_at: string | null;
  created_at: string;
  updated_at: string;
}

/** Always empty: GET /ready's write probe (migration 0013). */
export interface StorageChecksTable {
  id: Generated<number>;
  checked_at: string;
  filler: string;
}

/** A claim on a piece of work by name (`package:12`), held by one node until it expires. */
export interface LeasesTable {
  name: string;
  holder: string;
  expires_at: string;
}

export interface ConsoleSessionsTable {
  id: Generated<number>;
  /** SHA-256 of the cookie's value (the value itself is never stored). */
  session_hash: string;
  client_id: number;
  /** The developer API client's token_hash at sign-in: a regenerated token ends the session. */
  token_hash: string;
  created_at: string;
  expires_at: string;
}
