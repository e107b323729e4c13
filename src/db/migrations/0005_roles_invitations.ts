// Legacy collaborator roles (contract 05 §4) with the folders they reach, and member invitations
// (05 §6). Existing workspaces get the two seed roles every new workspace starts with.
import type { Kysely } from 'kysely';
import { addIdColumn, type DialectName } from '../dialect.ts';

/**
 * The seed roles as they were when this migration was written (a migration never changes with
 * the code; new workspaces take theirs from src/api/roles/roles.store.ts).
 */
const SEED_ROLES = [
  {
    name: 'Analyst',
    privileges: {
      Recipes: ['read'],
      Jobs: ['read'],
      Connections: ['read'],
      'Lookup tables': ['read'],
      'Projects & folders': ['read'],
    },
  },
  {
    name: 'Operator',
    privileges: {
      Recipes: ['read', 'create', 'update', 'run'],
      Jobs: ['read'],
      Connections: ['read', 'create', 'update'],
      'Lookup tables': ['read', 'update'],
      'Projects & folders': ['read'],
    },
  },
];

export async function up(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
  const ts = (name: string) => [name, 'varchar(40)'] as const;

  await addIdColumn(db.schema.createTable('collaborator_roles'), dialect)
    .addColumn('workspace_id', 'bigint', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('name', 'varchar(255)', (c) => c.notNull())
    .addColumn('name_key', 'varchar(255)', (c) => c.notNull())
    .addColumn('inheritable', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('all_folders', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('privileges', 'text', (c) => c.notNull())
    .addColumn(...ts('created_at'), (c) => c.notNull())
    .addColumn(...ts('updated_at'), (c) => c.notNull())
    .addUniqueConstraint('collaborator_roles_name_unique', ['workspace_id', 'name_key'])
    .execute();

  // A folder deleted elsewhere drops out of every role (the role does not widen to all folders).
  await db.schema
    .createTable('collaborator_role_folders')
    .addColumn('role_id', 'bigint', (c) => c.notNull().references('collaborator_roles.id').onDelete('cascade'))
    .addColumn('folder_id', 'bigint', (c) => c.notNull().references('folders.id').onDelete('cascade'))
    .addPrimaryKeyConstraint('collaborator_role_folders_pk', ['role_id', 'folder_id'])
    .execute();
  await db.schema
    .createIndex('collaborator_role_folders_folder')
    .on('collaborator_role_folders')
    .column('folder_id')
    .execute();

  // One row per invitee and workspace: a repeat invitation (allowed after 20 minutes) updates it.
  await addIdColumn(db.schema.createTable('member_invitations'), dialect)
    .addColumn('workspace_id', 'bigint', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('email', 'varchar(254)', (c) => c.notNull())
    .addColumn('email_key', 'varchar(254)', (c) => c.notNull())
    .addColumn('name', 'varchar(255)', (c) => c.notNull())
    .addColumn('roles', 'text', (c) => c.notNull())
    .addColumn('user_group_ids', 'text', (c) => c.notNull())
    .addColumn('status', 'varchar(20)', (c) => c.notNull())
    .addColumn('delivery_error', 'text')
    .addColumn('invited_by_client_id', 'bigint', (c) => c.references('developer_api_clients.id').onDelete('set null'))
    .addColumn(...ts('invited_at'), (c) => c.notNull())
    .addColumn(...ts('sent_at'))
    .addColumn(...ts('created_at'), (c) => c.notNull())
    .addColumn(...ts('updated_at'), (c) => c.notNull())
    .addUniqueConstraint('member_invitations_email_unique', ['workspace_id', 'email_key'])
    .execute();
  await db.schema
    .createIndex('member_invitations_status')
    .on('member_invitations')
    .columns(['workspace_id', 'status'])
    .execute();

  const seeded = db as Kysely<SeedTables>;
  const now = new Date().toISOString();
  const workspaces = await seeded.selectFrom('workspaces').select('id').execute();
  for (const workspace of workspaces) {
    for (const role of SEED_ROLES) {
      await seeded
        .insertInto('collaborator_roles')
        .values({
          workspace_id: workspace.id,
          name: role.name,
          name_key: role.name.toLowerCase(),
          inheritable: 0,
          all_folders: 1,
          privileges: JSON.stringify(role.privileges),
          created_at: now,
          updated_at: now,
        })
        .execute();
    }
  }
}

/** The two tables the seeding touches, as they are at this migration. */
interface SeedTables {
  workspaces: { id: number };
  collaborator_roles: {
    workspace_id: number;
    name: string;
    name_key: string;
    inheritable: number;
    all_folders: number;
    privileges: string;
    created_at: string;
    updated_at: string;
  };
}
