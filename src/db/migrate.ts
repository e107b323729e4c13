// One set of migrations for every database, written with Kysely's schema builder.
import { Migrator, type Kysely, type Migration, type MigrationProvider } from 'kysely';
import type { DialectName } from './dialect.ts';
import type { Database } from './types.ts';
import * as foundation from './migrations/0001_foundation.ts';
import * as apiPlatform from './migrations/0006_api_platform.ts';
import * as foldersProperties from './migrations/0003_folders_properties.ts';
import * as rolesInvitations from './migrations/0005_roles_invitations.ts';
import * as connectionsSecrets from './migrations/0004_connections_secrets.ts';
import * as lookupTables from './migrations/0002_lookup_tables.ts';
import * as pubsub from './migrations/0007_pubsub.ts';
import * as recipesJobs from './migrations/0008_recipes_jobs.ts';
import * as lookupRowsPartialIndexes from './migrations/0009_lookup_rows_partial_indexes.ts';
import * as jobsCompletedIndex from './migrations/0010_jobs_completed_index.ts';
import * as recipeVersionsCurrent from './migrations/0011_recipe_versions_current.ts';
import * as packages from './migrations/0012_packages.ts';
import * as storageChecks from './migrations/0013_storage_checks.ts';
import * as buildsDeployments from './migrations/0014_builds_deployments.ts';
import * as testCases from './migrations/0015_test_cases.ts';
import * as apiClientsV2 from './migrations/0016_api_clients_v2.ts';
import * as dataTables from './migrations/0017_data_tables.ts';
import * as files from './migrations/0018_files.ts';
import * as workflowTasks from './migrations/0019_workflow_tasks.ts';
import * as smartLists from './migrations/0020_smart_lists.ts';
import * as consoleSessions from './migrations/0022_console_sessions.ts';
import * as nodeLeases from './migrations/0023_node_leases.ts';
import * as jobEndsFunction from './migrations/0024_job_ends_function.ts';
import * as testCasePositions from './migrations/0025_test_case_positions.ts';
import * as customConnectorAliases from './migrations/0045_custom_connector_aliases.ts';
import * as connectionAuthorizations from './migrations/0040_connection_authorizations.ts';
import * as tags from './migrations/0050_tags.ts';
import * as activityLogs from './migrations/0051_activity_logs.ts';
import * as tagsActivityPrivileges from './migrations/0052_tags_activity_privileges.ts';
import * as buildIncludeData from './migrations/0060_build_include_data.ts';
import * as packageKeptFiles from './migrations/0061_package_kept_files.ts';
import * as projectLook from './migrations/0062_project_look.ts';
import * as jobsCallingJobIndex from './migrations/0065_jobs_calling_job_index.ts';
import * as endpointsValidateRequest from './migrations/0066_api_endpoints_validate_request.ts';
import * as workflowApps from './migrations/0067_workflow_apps.ts';
import * as messageTemplates from './migrations/0068_message_templates.ts';
import * as pollingTriggersDirectories from './migrations/0069_polling_triggers_directories.ts';
import * as jobEndsKeepStart from './migrations/0070_job_ends_keep_start.ts';
import * as jobReplies from './migrations/0071_job_replies.ts';
import * as recipesEnvironmentIdIndex from './migrations/0072_recipes_environment_id_index.ts';
import * as jobLineValues from './migrations/0075_job_line_values.ts';
import * as jobRecipeVersion from './migrations/0076_job_recipe_version.ts';
import * as staticWebhookKeys from './migrations/0077_static_webhook_keys.ts';
import * as jobsRunningLeaseDropped from './migrations/0078_jobs_running_lease_dropped.ts';
import * as recipeJobCounts from './migrations/0079_recipe_job_counts.ts';
import * as agents from './migrations/0055_agents.ts';

export type DialectMigration = {
  up(db: Kysely<unknown>, dialect: DialectName): Promise<void>;
};

/**
 * Listed explicitly (not read from the file system) so the order is reviewed in code. Areas are
 * built in parallel and their migrations are independent, so one numbered below an applied one
 * is still applied (allowUnorderedMigrations).
 */
const MIGRATIONS: Record<string, DialectMigration> = {
  '0001_foundation': foundation,
  '0006_api_platform': apiPlatform,
  '0003_folders_properties': foldersProperties,
  '0005_roles_invitations': rolesInvitations,
  '0004_connections_secrets': connectionsSecrets,
  '0002_lookup_tables': lookupTables,
  '0007_pubsub': pubsub,
  '0008_recipes_jobs': recipesJobs,
  '0009_lookup_rows_partial_indexes': lookupRowsPartialIndexes,
  '0010_jobs_completed_index': jobsCompletedIndex,
  '0011_recipe_versions_current': recipeVersionsCurrent,
  '0012_packages': packages,
  '0013_storage_checks': storageChecks,
  '0014_builds_deployments': buildsDeployments,
  '0015_test_cases': testCases,
  '0016_api_clients_v2': apiClientsV2,
  '0017_data_tables': dataTables,
  '0018_files': files,
  '0019_workflow_tasks': workflowTasks,
  '0020_smart_lists': smartLists,
  '0022_console_sessions': consoleSessions,
  '0023_node_leases': nodeLeases,
  '0024_job_ends_function': jobEndsFunction,
  '0025_test_case_positions': testCasePositions,
  '0045_custom_connector_aliases': customConnectorAliases,
  '0040_connection_authorizations': connectionAuthorizations,
  '0050_tags': tags,
  '0051_activity_logs': activityLogs,
  '0052_tags_activity_privileges': tagsActivityPrivileges,
  '0060_build_include_data': buildIncludeData,
  '0061_package_kept_files': packageKeptFiles,
  '0062_project_look': projectLook,
  '0065_jobs_calling_job_index': jobsCallingJobIndex,
  '0066_api_endpoints_validate_request': endpointsValidateRequest,
  '0067_workflow_apps': workflowApps,
  '0068_message_templates': messageTemplates,
  '0069_polling_triggers_directories': pollingTriggersDirectories,
  '0070_job_ends_keep_start': jobEndsKeepStart,
  '0071_job_replies': jobReplies,
  '0072_recipes_environment_id_index': recipesEnvironmentIdIndex,
  '0075_job_line_values': jobLineValues,
  '0076_job_recipe_version': jobRecipeVersion,
  '0077_static_webhook_keys': staticWebhookKeys,
  '0078_jobs_running_lease_dropped': jobsRunningLeaseDropped,
  '0079_recipe_job_counts': recipeJobCounts,
  '0055_agents': agents,
};

/** The migrations this code knows, the foundation first: a database with any other is from a newer version. */
export function knownMigrationNames(): string[] {
  return Object.keys(MIGRATIONS);
}

function provider(dialect: DialectName): MigrationProvider {
  return {
    async getMigrations() {
      const out: Record<string, Migration> = {};
      for (const [name, m] of Object.entries(MIGRATIONS)) out[name] = { up: (db) => m.up(db, dialect) };
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
