// Agents: skills (recipes an agent may call), MCP servers with their tools (recipes), policies
// and counters, as the vendor's CLI manages them (contract 23 §1, §2).
import { sql, type Kysely } from 'kysely';
import { addIdColumn, type DialectName } from '../dialect.ts';

export async function up(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
  const ts = (name: string) => [name, 'varchar(40)'] as const;
  await addIdColumn(db.schema.createTable('agentic_skills'), dialect)
    .addColumn('handle', 'varchar(40)', (c) => c.notNull().unique())
    .addColumn('workspace_id', 'bigint', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('environment_id', 'bigint', (c) => c.notNull().references('environments.id').onDelete('cascade'))
    // A skill is its recipe: deleting the recipe deletes the skill.
    .addColumn('recipe_id', 'bigint', (c) => c.notNull().unique().references('recipes.id').onDelete('cascade'))
    .addColumn(...ts('created_at'), (c) => c.notNull())
    .addColumn(...ts('updated_at'), (c) => c.notNull())
    .execute();
  await addIdColumn(db.schema.createTable('mcp_servers'), dialect)
    .addColumn('handle', 'varchar(40)', (c) => c.notNull().unique())
    .addColumn('workspace_id', 'bigint', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('environment_id', 'bigint', (c) => c.notNull().references('environments.id').onDelete('cascade'))
    .addColumn('folder_id', 'bigint', (c) => c.notNull().references('folders.id').onDelete('cascade'))
    .addColumn('name', 'varchar(255)', (c) => c.notNull())
    .addColumn('description', 'text')
    // An API collection whose recipe-backed endpoints are the tools; null: a "project assets" server.
    .addColumn('api_collection_id', 'bigint', (c) => c.references('api_collections.id').onDelete('cascade'))
    .addColumn('auth_type', 'varchar(20)', (c) => c.notNull())
    // SHA-256 of the server's token (hex); the token itself is shown once, in create and renew replies.
    .addColumn('token_hash', 'varchar(64)', (c) => c.notNull().unique())
    // JSON list of IdP user group ids (strings).
    .addColumn('idp_user_group_ids', 'text', (c) => c.notNull())
    // JSON: {rate_limits?, quota_limits?, ip_allow_list?, ip_deny_list?}; null until set.
    .addColumn('policy', 'text')
    .addColumn(...ts('policy_created_at'))
    .addColumn(...ts('policy_updated_at'))
    .addColumn(...ts('created_at'), (c) => c.notNull())
    .addColumn(...ts('updated_at'), (c) => c.notNull())
    .execute();
  await addIdColumn(db.schema.createTable('mcp_tools'), dialect)
    .addColumn('server_id', 'bigint', (c) => c.notNull().references('mcp_servers.id').onDelete('cascade'))
    .addColumn('recipe_id', 'bigint', (c) => c.notNull().references('recipes.id').onDelete('cascade'))
    // The description MCP clients see, when set; otherwise the recipe's.
    .addColumn('description', 'text')
    .addColumn(...ts('created_at'), (c) => c.notNull())
    .addColumn(...ts('updated_at'), (c) => c.notNull())
    .addUniqueConstraint('mcp_tools_server_recipe_unique', ['server_id', 'recipe_id'])
    .execute();
  await db.schema
    .createTable('mcp_policy_counters')
    .addColumn('server_id', 'bigint', (c) => c.notNull().references('mcp_servers.id').onDelete('cascade'))
    .addColumn('kind', 'varchar(10)', (c) => c.notNull())
    .addColumn('window_start', 'bigint', (c) => c.notNull())
    .addColumn('count', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('mcp_policy_counters_pk', ['server_id', 'kind', 'window_start'])
    .execute();
  // Roles named Admin hold every privilege: they gain the two new groups.
  const added = ['mcp_servers:read', 'mcp_servers:write', 'agentic:read', 'agentic:write'];
  const admins = await sql<{ id: number; privileges: string }>`
    select id, privileges from developer_api_client_roles where name = 'Admin'`.execute(db);
  for (const role of admins.rows) {
    const list = JSON.parse(role.privileges) as string[];
    const next = [...list, ...added.filter((p) => !list.includes(p))];
    await sql`update developer_api_client_roles set privileges = ${JSON.stringify(next)} where id = ${role.id}`.execute(
      db,
    );
  }
}
