// Row types, one per table. Timestamps are ISO 8601 UTC strings with milliseconds, booleans
// are 0/1 integers and lists are JSON text, so that SQLite and PostgreSQL store the same values.
import type { Generated, Insertable, Kysely, Selectable, Transaction, Updateable } from 'kysely';

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
  created_at: string;
}

export interface FoldersTable {
  id: Generated<number>;
  workspace_id: number;
  environment_id: number;
  parent_id: number | null;
  name: string;
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

export interface LookupTablesTable {
  id: Generated<number>;
  workspace_id: number;
  environment_id: number;
  project_id: number | null;
  name: string;
  /** Lower-cased name (unique per environment); null once the table is deleted. */
  name_key: string | null;
  /** JSON array of the column labels, by position (col1 first). */
  columns: string;
  row_count: number;
  /** Set by batch delete: the table is gone for the API while its rows are purged. */
  deleted_at: string | null;
  created_at: string;
  updated_at: string;
}

/** Cells by position; null is an empty cell. */
export interface LookupTableRowsTable {
  id: Generated<number>;
  table_id: number;
  col1: string | null;
  col2: string | null;
  col3: string | null;
  col4: string | null;
  col5: string | null;
  col6: string | null;
  col7: string | null;
  col8: string | null;
  col9: string | null;
  col10: string | null;
  created_at: string;
  updated_at: string;
}

export interface Database {
  workspaces: WorkspacesTable;
  users: UsersTable;
  environments: EnvironmentsTable;
  folders: FoldersTable;
  projects: ProjectsTable;
  developer_api_client_roles: DeveloperApiClientRolesTable;
  developer_api_clients: DeveloperApiClientsTable;
  lookup_tables: LookupTablesTable;
  lookup_table_rows: LookupTableRowsTable;
}

/** The database handle or an open transaction: stores accept either. */
export type Db = Kysely<Database> | Transaction<Database>;

export type WorkspaceRow = Selectable<WorkspacesTable>;
export type EnvironmentRow = Selectable<EnvironmentsTable>;
export type FolderRow = Selectable<FoldersTable>;
export type NewFolder = Insertable<FoldersTable>;
export type RoleRow = Selectable<DeveloperApiClientRolesTable>;
export type DeveloperApiClientRow = Selectable<DeveloperApiClientsTable>;
export type DeveloperApiClientUpdate = Updateable<DeveloperApiClientsTable>;
export type LookupTableRow = Selectable<LookupTablesTable>;
export type LookupRowRecord = Selectable<LookupTableRowsTable>;
