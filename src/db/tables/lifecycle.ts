// Row types of moving projects between environments: export manifests, packages and their zips, builds, deployments.
import type { Generated } from 'kysely';
import type { Flag } from './workspaces.ts';

export interface ExportManifestsTable {
  id: Generated<number>;
  workspace_id: number;
  environment_id: number;
  folder_id: number | null;
  name: string;
  /** JSON array of assets (contract 15 §1). */
  assets: string;
  include_data: Flag;
  include_test_cases: Flag;
  include_tags: Flag;
  status: 'working' | 'archived';
  /** JSON object "type:id" -> the asset's updated_at when it was last exported. */
  last_export: string | null;
  last_exported_at: string | null;
  created_at: string;
  updated_at: string;
  deleted_at: string | null;
}

export type PackageStatus = 'in_progress' | 'completed' | 'failed';

export interface PackagesTable {
  id: Generated<number>;
  workspace_id: number;
  environment_id: number;
  operation_type: 'export' | 'import';
  status: PackageStatus;
  export_manifest_id: number | null;
  folder_id: number | null;
  /** JSON: the export's assets and flags, or the import's flags. */
  options: string;
  error: string | null;
  /** JSON array of strings. */
  error_parts: string | null;
  /** JSON array of {id, import_result}. */
  recipe_status: string | null;
  content_size: number | null;
  /** How many times the work was started (a restart in the middle starts it again). */
  attempts: Generated<number>;
  created_at: string;
  updated_at: string;
  completed_at: string | null;
}

/** The zip of a package, in order. */
export interface PackageChunksTable {
  package_id: number;
  seq: number;
  data: Uint8Array;
}

/** A file of an imported package kept as it came (not used here), exported again with its folder. */
export interface PackageKeptFilesTable {
  id: Generated<number>;
  workspace_id: number;
  environment_id: number;
  folder_id: number;
  name: string;
  content: Uint8Array;
  size: number;
  created_at: string;
  updated_at: string;
}

export interface ProjectBuildsTable {
  id: Generated<number>;
  workspace_id: number;
  environment_id: number;
  project_id: number;
  project_name: string;
  project_description: string;
  /** The export package holding the build's zip: its status is the build's state. */
  package_id: number;
  description: string | null;
  include_test_cases: Flag | null;
  /** Whether the build's package carries the rows of its lookup and data tables. */
  include_data: Flag;
  performed_by_name: string;
  created_at: string;
  updated_at: string;
}

export interface DeploymentsTable {
  id: Generated<number>;
  workspace_id: number;
  /** The development environment the build came from. */
  environment_id: number;
  project_id: number;
  folder_id: number;
  project_build_id: number;
  environment_type: 'test' | 'prod';
  target_environment_id: number;
  /** The import package that applies the build in the target: its status is the deployment's state. */
  package_id: number;
  description: string | null;
  performed_by_name: string;
  created_at: string;
  updated_at: string;
}
