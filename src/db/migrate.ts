// One set of migrations for every database, written with Kysely's schema builder.
import { Migrator, type Kysely, type Migration, type MigrationProvider } from 'kysely';
import type { DialectName } from './dialect.ts';
import type { Database } from './types.ts';

export type DialectMigration = {
  up(db: Kysely<unknown>, dialect: DialectName): Promise<void>;
};

/**
 * Listed explicitly (not read from the file system) so the order is reviewed in code. Areas are
 * built in parallel and their migrations are independent, so one numbered below an applied one
 * is still applied (allowUnorderedMigrations). A migration's module loads only when it runs: a
 * start on a migrated database never holds them.
 */
const MIGRATIONS: Record<string, () => Promise<DialectMigration>> = {
  '0001_foundation': () => import('./migrations/0001_foundation.ts'),
  '0006_api_platform': () => import('./migrations/0006_api_platform.ts'),
  '0003_folders_properties': () => import('./migrations/0003_folders_properties.ts'),
  '0005_roles_invitations': () => import('./migrations/0005_roles_invitations.ts'),
  '0004_connections_secrets': () => import('./migrations/0004_connections_secrets.ts'),
  '0002_lookup_tables': () => import('./migrations/0002_lookup_tables.ts'),
  '0007_pubsub': () => import('./migrations/0007_pubsub.ts'),
  '0008_recipes_jobs': () => import('./migrations/0008_recipes_jobs.ts'),
  '0009_lookup_rows_partial_indexes': () => import('./migrations/0009_lookup_rows_partial_indexes.ts'),
  '0010_jobs_completed_index': () => import('./migrations/0010_jobs_completed_index.ts'),
  '0011_recipe_versions_current': () => import('./migrations/0011_recipe_versions_current.ts'),
  '0012_packages': () => import('./migrations/0012_packages.ts'),
  '0013_storage_checks': () => import('./migrations/0013_storage_checks.ts'),
  '0014_builds_deployments': () => import('./migrations/0014_builds_deployments.ts'),
  '0015_test_cases': () => import('./migrations/0015_test_cases.ts'),
  '0016_api_clients_v2': () => import('./migrations/0016_api_clients_v2.ts'),
  '0017_data_tables': () => import('./migrations/0017_data_tables.ts'),
  '0018_files': () => import('./migrations/0018_files.ts'),
  '0019_workflow_tasks': () => import('./migrations/0019_workflow_tasks.ts'),
  '0020_smart_lists': () => import('./migrations/0020_smart_lists.ts'),
  '0022_console_sessions': () => import('./migrations/0022_console_sessions.ts'),
  '0023_node_leases': () => import('./migrations/0023_node_leases.ts'),
  '0024_job_ends_function': () => import('./migrations/0024_job_ends_function.ts'),
  '0025_test_case_positions': () => import('./migrations/0025_test_case_positions.ts'),
  '0045_custom_connector_aliases': () => import('./migrations/0045_custom_connector_aliases.ts'),
  '0040_connection_authorizations': () => import('./migrations/0040_connection_authorizations.ts'),
  '0050_tags': () => import('./migrations/0050_tags.ts'),
  '0051_activity_logs': () => import('./migrations/0051_activity_logs.ts'),
  '0052_tags_activity_privileges': () => import('./migrations/0052_tags_activity_privileges.ts'),
  '0060_build_include_data': () => import('./migrations/0060_build_include_data.ts'),
  '0061_package_kept_files': () => import('./migrations/0061_package_kept_files.ts'),
  '0062_project_look': () => import('./migrations/0062_project_look.ts'),
  '0065_jobs_calling_job_index': () => import('./migrations/0065_jobs_calling_job_index.ts'),
  '0066_api_endpoints_validate_request': () => import('./migrations/0066_api_endpoints_validate_request.ts'),
  '0067_workflow_apps': () => import('./migrations/0067_workflow_apps.ts'),
  '0068_message_templates': () => import('./migrations/0068_message_templates.ts'),
  '0069_polling_triggers_directories': () => import('./migrations/0069_polling_triggers_directories.ts'),
  '0070_job_ends_keep_start': () => import('./migrations/0070_job_ends_keep_start.ts'),
  '0071_job_replies': () => import('./migrations/0071_job_replies.ts'),
  '0072_recipes_environment_id_index': () => import('./migrations/0072_recipes_environment_id_index.ts'),
  '0075_job_line_values': () => import('./migrations/0075_job_line_values.ts'),
  '0076_job_recipe_version': () => import('./migrations/0076_job_recipe_version.ts'),
  '0077_static_webhook_keys': () => import('./migrations/0077_static_webhook_keys.ts'),
  '0078_jobs_running_lease_dropped': () => import('./migrations/0078_jobs_running_lease_dropped.ts'),
  '0079_recipe_job_counts': () => import('./migrations/0079_recipe_job_counts.ts'),
  '0080_job_ends_line_arrays': () => import('./migrations/0080_job_ends_line_arrays.ts'),
  '0081_job_ends_generic_plans': () => import('./migrations/0081_job_ends_generic_plans.ts'),
  '0082_job_claims_from': () => import('./migrations/0082_job_claims_from.ts'),
  '0083_job_line_sets': () => import('./migrations/0083_job_line_sets.ts'),
  '0084_job_line_sets_joined': () => import('./migrations/0084_job_line_sets_joined.ts'),
  '0085_jobs_failed_completed_partial': () => import('./migrations/0085_jobs_failed_completed_partial.ts'),
  '0055_agents': () => import('./migrations/0055_agents.ts'),
};

/** The migrations this code knows, the foundation first: a database with any other is from a newer version. */
export function knownMigrationNames(): string[] {
  return Object.keys(MIGRATIONS);
}

function provider(dialect: DialectName): MigrationProvider {
  return {
    async getMigrations() {
      const out: Record<string, Migration> = {};
      for (const [name, load] of Object.entries(MIGRATIONS))
        out[name] = { up: async (db) => (await load()).up(db, dialect) };
      return out;
    },
  };
}

export async function migrateToLatest(db: Kysely<Database>, dialect: DialectName): Promise<string[]> {
  const migrator = new Migrator({ db, provider: provider(dialect), allowUnorderedMigrations: true });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}

/** Names of migrations not applied yet; GET /ready answers 503 while any remain. */
export async function pendingMigrations(db: Kysely<Database>, dialect: DialectName): Promise<string[]> {
  const migrator = new Migrator({ db, provider: provider(dialect), allowUnorderedMigrations: true });
  const all = await migrator.getMigrations();
  return all.filter((m) => m.executedAt === undefined).map((m) => m.name);
}
