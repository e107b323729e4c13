// Two privilege groups join the catalog: `tags` and `activity_logs`. Roles made before them keep
// their meaning: a role that held every privilege of the catalog as it was (the seeded Admin, its
// copies) gets the new ones too, and a role that held every read privilege (the seeded Read only)
// gets the new reads. Other roles are left as they are.
import { sql, type Kysely } from 'kysely';
import type { DialectName } from '../dialect.ts';

/** The privilege groups before this migration (src/api/developer_api_client_roles/privileges.ts then). */
const GROUPS_BEFORE = [
  'projects_folders',
  'connections',
  'recipes',
  'jobs',
  'test_cases',
  'recipe_lifecycle_management',
  'export_manifests',
  'project_deployments',
  'lookup_tables',
  'data_tables',
  'files',
  'event_streams',
  'environment_properties',
  'api_platform_collections',
  'api_platform_clients',
  'connector_sdks',
  'sdk_cli',
  'custom_oauth_profiles',
  'collaborators',
  'collaborator_roles',
  'workspace_details',
  'secrets_management',
  'developer_api_clients',
  'developer_api_client_roles',
];
const NEW_GROUPS = ['tags', 'activity_logs'];

export async function up(db: Kysely<unknown>, _dialect: DialectName): Promise<void> {
  const { rows } = await sql<{ id: number; privileges: string }>`
    select id, privileges from developer_api_client_roles`.execute(db);
  for (const row of rows) {
    let held: string[];
    try {
      const parsed: unknown = JSON.parse(row.privileges);
      held = Array.isArray(parsed) ? parsed.filter((p): p is string => typeof p === 'string') : [];
    } catch {
      continue;
    }
    const has = new Set(held);
    const allReads = GROUPS_BEFORE.every((g) => has.has(`${g}:read`));
    const allWrites = GROUPS_BEFORE.every((g) => has.has(`${g}:write`));
    if (!allReads) continue;
    const added = NEW_GROUPS.flatMap((g) => (allWrites ? [`${g}:read`, `${g}:write`] : [`${g}:read`])).filter(
      (p) => !has.has(p),
    );
    if (added.length === 0) continue;
    await sql`update developer_api_client_roles set privileges = ${JSON.stringify([...held, ...added])}
      where id = ${row.id}`.execute(db);
  }
}
