// The statements of a package import (import.ts and its appliers) on the tables it fills.
import type { Db } from '../../db/types.ts';
import { folderNameKey } from '../folders/folders.store.ts';
import type { FileOutcome, ImportResult } from './packages.store.ts';

/** A collection the import creates: private, with a new docs token. */
export async function insertImportedCollection(
  db: Db,
  workspaceId: number,
  environmentId: number,
  projectId: number | null,
  name: string,
  version: string,
  slug: string,
  docToken: string,
  now: string,
) {
  return db
    .insertInto('api_collections')
    .values({
      workspace_id: workspaceId,
      environment_id: environmentId,
      project_id: projectId,
      name: name,
      version,
      slug,
      proxy_connection_id: null,
      public_access: 0,
      doc_token: docToken,
      created_at: now,
      updated_at: now,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
}

/** A collection of this name in the project (null: outside any project). */
export async function collectionNamedInProject(db: Db, environmentId: number, projectId: number | null, name: string) {
  return db
    .selectFrom('api_collections')
    .select('id')
    .where('environment_id', '=', environmentId)
    .where((eb) => (projectId === null ? eb('project_id', 'is', null) : eb('project_id', '=', projectId)))
    .where('name', '=', name)
    .executeTakeFirst();
}

/** An endpoint the import creates, inactive. */
export async function insertImportedEndpoint(
  db: Db,
  collectionId: number,
  flowId: number | null,
  name: string,
  method: string,
  path: string,
  description: string | null,
  validateRequest: 0 | 1,
  now: string,
) {
  return db
    .insertInto('api_endpoints')
    .values({
      collection_id: collectionId,
      flow_id: flowId,
      name: name,
      method,
      path,
      description,
      active: 0,
      validate_request: validateRequest,
      created_at: now,
      updated_at: now,
    })
    .execute();
}

/** An endpoint the import finds: its name, description and recipe as the package has them. */
export async function updateImportedEndpoint(
  db: Db,
  id: number,
  name: string,
  description: string | null,
  flowId: number | null,
  validateRequest: 0 | 1,
  now: string,
) {
  return db
    .updateTable('api_endpoints')
    .set({
      name: name,
      description,
      flow_id: flowId,
      validate_request: validateRequest,
      ...(flowId === null ? { active: 0 } : {}),
      updated_at: now,
    })
    .where('id', '=', id)
    .execute();
}

/** The collection's endpoint answering this method and path. */
export async function endpointAt(db: Db, collectionId: number, method: string, path: string) {
  return db
    .selectFrom('api_endpoints')
    .select(['id', 'name', 'description', 'flow_id', 'validate_request', 'active'])
    .where('collection_id', '=', collectionId)
    .where('method', '=', method)
    .where('path', '=', path)
    .executeTakeFirst();
}

/** The environment's first collection of this name. */
export async function collectionNamed(db: Db, environmentId: number, name: string) {
  return db
    .selectFrom('api_collections')
    .select('id')
    .where('environment_id', '=', environmentId)
    .where('name', '=', name)
    .orderBy('id')
    .executeTakeFirst();
}

/** The environment's first recipe of this name. */
export async function recipeNamed(db: Db, environmentId: number, name: string) {
  return db
    .selectFrom('recipes')
    .select('id')
    .where('environment_id', '=', environmentId)
    .where('name', '=', name)
    .orderBy('id')
    .executeTakeFirst();
}

/** A connection the import creates: no credentials, not authorized. */
export async function insertConnectionShell(
  db: Db,
  workspaceId: number,
  environmentId: number,
  folderId: number,
  name: string,
  provider: string,
  now: string,
) {
  return db
    .insertInto('connections')
    .values({
      workspace_id: workspaceId,
      environment_id: environmentId,
      folder_id: folderId,
      parent_id: null,
      custom_oauth_profile_id: null,
      name: name,
      provider,
      description: null,
      external_id: null,
      input_sealed: null,
      input_fields: '[]',
      authorization_status: null,
      authorization_error: null,
      authorized_at: null,
      connection_lost_at: null,
      connection_lost_reason: null,
      created_at: now,
      updated_at: now,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
}

/** The folder's first connection of this name. */
export async function connectionInFolder(db: Db, environmentId: number, folderId: number, name: string) {
  return db
    .selectFrom('connections')
    .select(['id', 'provider'])
    .where('environment_id', '=', environmentId)
    .where('folder_id', '=', folderId)
    .where('name', '=', name)
    .orderBy('id')
    .executeTakeFirst();
}

/** The environment's first connection of this name and provider. */
export async function connectionNamed(db: Db, environmentId: number, name: string, provider: string) {
  return db
    .selectFrom('connections')
    .select('id')
    .where('environment_id', '=', environmentId)
    .where('name', '=', name)
    .where('provider', '=', provider)
    .orderBy('id')
    .executeTakeFirst();
}

/**
 * A connection of this name whose provider is one of the custom connector's names (its own or an
 * alias): the target's connection to the connector a package's provider name means there.
 */
export async function connectionNamedForConnector(db: Db, environmentId: number, name: string, connectorId: number) {
  return db
    .selectFrom('connections')
    .select('id')
    .where('environment_id', '=', environmentId)
    .where('name', '=', name)
    .where((eb) =>
      eb.or([
        eb('provider', 'in', eb.selectFrom('custom_connectors').select('name').where('id', '=', connectorId)),
        eb(
          'provider',
          'in',
          eb
            .selectFrom('custom_connector_aliases')
            .select('name')
            .where('connector_id', '=', connectorId)
            .where('environment_id', '=', environmentId),
        ),
      ]),
    )
    .orderBy('id')
    .executeTakeFirst();
}

/** A data table's record count after the import replaced its records. */
export async function setRecordCount(db: Db, tableId: number, count: number) {
  return db.updateTable('data_tables').set({ record_count: count }).where('id', '=', tableId).execute();
}

/** The environment's data table of this name (lower-cased). */
export async function dataTableNamed(db: Db, environmentId: number, key: string) {
  return db
    .selectFrom('data_tables')
    .select(['id', 'folder_id', 'columns'])
    .where('environment_id', '=', environmentId)
    .where('name_key', '=', key)
    .executeTakeFirst();
}

/** A lookup table's row count before the import writes its rows again. */
export async function clearRowCount(db: Db, tableId: number) {
  return db.updateTable('lookup_tables').set({ row_count: 0 }).where('id', '=', tableId).execute();
}

/** A lookup table's columns as the package has them. */
export async function setLookupTableColumns(db: Db, tableId: number, labels: string[], now: string) {
  return db
    .updateTable('lookup_tables')
    .set({ columns: JSON.stringify(labels), updated_at: now })
    .where('id', '=', tableId)
    .execute();
}

/** The environment's lookup table of this name (lower-cased). */
export async function lookupTableNamed(db: Db, environmentId: number, key: string) {
  return db
    .selectFrom('lookup_tables')
    .selectAll()
    .where('environment_id', '=', environmentId)
    .where('name_key', '=', key)
    .executeTakeFirst();
}

/** The folder's first recipe of this name. */
export async function recipeInFolder(db: Db, environmentId: number, folderId: number, name: string) {
  return db
    .selectFrom('recipes')
    .selectAll()
    .where('environment_id', '=', environmentId)
    .where('folder_id', '=', folderId)
    .where('name', '=', name)
    .orderBy('id')
    .executeTakeFirst();
}

/** The folder below this parent with this name (compared by its key). */
export async function childFolderNamed(db: Db, parentId: number, name: string) {
  return db
    .selectFrom('folders')
    .select('id')
    .where('parent_id', '=', parentId)
    .where('name_key', '=', folderNameKey(name))
    .executeTakeFirst();
}

/** The environment's project of this name. */
export async function projectNamed(db: Db, environmentId: number, name: string) {
  return db
    .selectFrom('projects')
    .select('folder_id')
    .where('environment_id', '=', environmentId)
    .where('name', '=', name)
    .executeTakeFirst();
}

/** A topic the import creates. */
export async function insertImportedTopic(
  db: Db,
  workspaceId: number,
  environmentId: number,
  folderId: number,
  name: string,
  key: string,
  description: string | null,
  schema: string | null,
  retention: number,
  now: string,
) {
  return db
    .insertInto('event_topics')
    .values({
      workspace_id: workspaceId,
      environment_id: environmentId,
      folder_id: folderId,
      name: name,
      name_key: key,
      description,
      schema,
      retention_seconds: retention,
      created_at: now,
      updated_at: now,
    })
    .execute();
}

/** A topic the import finds: its schema, description and retention as the package has them. */
export async function updateImportedTopic(
  db: Db,
  id: number,
  schema: string | null,
  description: string | null,
  retention: number,
  now: string,
) {
  return db
    .updateTable('event_topics')
    .set({ schema, description, retention_seconds: retention, updated_at: now })
    .where('id', '=', id)
    .execute();
}

/** The environment's topic of this name (lower-cased). */
export async function topicNamed(db: Db, environmentId: number, key: string) {
  return db
    .selectFrom('event_topics')
    .select(['id', 'folder_id', 'schema', 'description', 'retention_seconds'])
    .where('environment_id', '=', environmentId)
    .where('name_key', '=', key)
    .executeTakeFirst();
}

export async function recordApplied(db: Db, packageId: number, record: AppliedRecord): Promise<void> {
  const row = await db.selectFrom('packages').select('options').where('id', '=', packageId).executeTakeFirstOrThrow();
  const options = JSON.parse(row.options) as Record<string, unknown>;
  await db
    .updateTable('packages')
    .set({ options: JSON.stringify({ ...options, applied: record }) })
    .where('id', '=', packageId)
    .execute();
}

export async function topicIdsOf(db: Db, environmentId: number): Promise<number[]> {
  const rows = await db
    .selectFrom('event_topics')
    .select('id')
    .where('environment_id', '=', environmentId)
    .where('deleted_at', 'is', null)
    .execute();
  return rows.map((r) => r.id);
}

/** What the apply step recorded in the package (in its transaction), so a restart resumes after it. */
export interface AppliedRecord {
  recipeStatus: Array<{ id: number; import_result: ImportResult }>;
  restart: number[];
  /** Absent in records written before warnings existed. */
  warnings?: string[];
  /** What became of each file of the zip; absent in records written before it was kept. */
  files?: FileOutcome[];
}
