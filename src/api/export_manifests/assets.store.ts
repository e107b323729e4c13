// The statements of the asset scan (assets.ts): what a folder holds, what a recipe refers to, one asset by type.
import type { Db } from '../../db/types.ts';
import type { PackagedType } from './asset-types.ts';

/** A recipe's reference to a lookup table: its id, or its name (compared lower-cased). */
export async function lookupTableByRef(db: Db, environmentId: number, ref: number | string) {
  const q = db
    .selectFrom('lookup_tables')
    .select(['id', 'name', 'project_id', 'updated_at'])
    .where('environment_id', '=', environmentId)
    .where('deleted_at', 'is', null);
  return (
    typeof ref === 'number' ? q.where('id', '=', ref) : q.where('name_key', '=', ref.trim().toLowerCase())
  ).executeTakeFirst();
}

/** A recipe's reference to a data table: its id, or its name (compared lower-cased). */
export async function dataTableByRef(db: Db, environmentId: number, ref: number | string) {
  const q = db
    .selectFrom('data_tables')
    .select(['id', 'name', 'folder_id', 'updated_at'])
    .where('environment_id', '=', environmentId);
  return (
    typeof ref === 'number' ? q.where('id', '=', ref) : q.where('name_key', '=', ref.trim().toLowerCase())
  ).executeTakeFirst();
}

/** A recipe's reference to a topic: its id, or its name (compared lower-cased). */
export async function topicByRef(db: Db, environmentId: number, ref: number | string) {
  const q = db
    .selectFrom('event_topics')
    .select(['id', 'name', 'folder_id', 'updated_at'])
    .where('environment_id', '=', environmentId)
    .where('deleted_at', 'is', null);
  return (
    typeof ref === 'number' ? q.where('id', '=', ref) : q.where('name_key', '=', ref.trim().toLowerCase())
  ).executeTakeFirst();
}

/** A recipe's reference to another recipe: its id, or the first of its name. */
export async function recipeByRef(db: Db, environmentId: number, ref: number | string) {
  const q = db
    .selectFrom('recipes')
    .select(['id', 'name', 'folder_id', 'version_no', 'updated_at'])
    .where('environment_id', '=', environmentId);
  return (
    typeof ref === 'number' ? q.where('id', '=', ref) : q.where('name', '=', ref).orderBy('id')
  ).executeTakeFirst();
}

/** A recipe of the environment, by id. */
export async function recipeInEnvironment(db: Db, environmentId: number, id: number) {
  return db
    .selectFrom('recipes')
    .select(['id', 'name', 'folder_id', 'version_no', 'updated_at'])
    .where('environment_id', '=', environmentId)
    .where('id', '=', id)
    .executeTakeFirst();
}

/** A collection's endpoints by id. */
export async function endpointsOfCollection(db: Db, collectionId: number) {
  return db
    .selectFrom('api_endpoints')
    .select(['id', 'name', 'flow_id', 'updated_at'])
    .where('collection_id', '=', collectionId)
    .orderBy('id')
    .execute();
}

/** The environment's endpoints that serve these recipes, with their collection. */
export async function endpointsServing(db: Db, environmentId: number, recipeIds: number[]) {
  return db
    .selectFrom('api_endpoints')
    .innerJoin('api_collections', 'api_collections.id', 'api_endpoints.collection_id')
    .select([
      'api_endpoints.id',
      'api_endpoints.name',
      'api_endpoints.updated_at',
      'api_collections.id as collection_id',
      'api_collections.name as collection_name',
      'api_collections.project_id',
      'api_collections.updated_at as collection_updated_at',
    ])
    .where('api_collections.environment_id', '=', environmentId)
    .where('api_endpoints.flow_id', 'in', recipeIds)
    .orderBy('api_endpoints.id')
    .execute();
}

/** A connection of the environment, by id. */
export async function connectionInEnvironment(db: Db, environmentId: number, id: number) {
  return db
    .selectFrom('connections')
    .select(['id', 'name', 'folder_id', 'updated_at'])
    .where('environment_id', '=', environmentId)
    .where('id', '=', id)
    .executeTakeFirst();
}

/** These recipes' code and config, to read their references. */
export async function recipesCode(db: Db, ids: number[]) {
  return db.selectFrom('recipes').select(['id', 'code', 'config']).where('id', 'in', ids).execute();
}

/** The properties of a project (null: the environment's own). */
export async function propertiesOfProject(db: Db, environmentId: number, projectId: number | null) {
  return db
    .selectFrom('properties')
    .select(['id', 'name', 'updated_at'])
    .where('environment_id', '=', environmentId)
    .where((eb) => (projectId === null ? eb('project_id', 'is', null) : eb('project_id', '=', projectId)))
    .orderBy('id')
    .execute();
}

/** The API collections of a project (null: outside any project). */
export async function collectionsOfProject(db: Db, environmentId: number, projectId: number | null) {
  return db
    .selectFrom('api_collections')
    .select(['id', 'name', 'updated_at'])
    .where('environment_id', '=', environmentId)
    .where((eb) => (projectId === null ? eb('project_id', 'is', null) : eb('project_id', '=', projectId)))
    .orderBy('id')
    .execute();
}

/** The lookup tables of a project (null: outside any project). */
export async function lookupTablesOfProject(db: Db, environmentId: number, projectId: number | null) {
  return db
    .selectFrom('lookup_tables')
    .select(['id', 'name', 'updated_at'])
    .where('environment_id', '=', environmentId)
    .where('deleted_at', 'is', null)
    .where((eb) => (projectId === null ? eb('project_id', 'is', null) : eb('project_id', '=', projectId)))
    .orderBy('id')
    .execute();
}

/** The data tables in these folders. */
export async function dataTablesInFolders(db: Db, environmentId: number, folderIds: number[]) {
  return db
    .selectFrom('data_tables')
    .select(['id', 'name', 'folder_id', 'updated_at'])
    .where('environment_id', '=', environmentId)
    .where('folder_id', 'in', folderIds)
    .orderBy('id')
    .execute();
}

/** The topics in these folders. */
export async function topicsInFolders(db: Db, environmentId: number, folderIds: number[]) {
  return db
    .selectFrom('event_topics')
    .select(['id', 'name', 'folder_id', 'updated_at'])
    .where('environment_id', '=', environmentId)
    .where('folder_id', 'in', folderIds)
    .where('deleted_at', 'is', null)
    .orderBy('id')
    .execute();
}

/** The connections in these folders. */
export async function connectionsInFolders(db: Db, environmentId: number, folderIds: number[]) {
  return db
    .selectFrom('connections')
    .select(['id', 'name', 'folder_id', 'provider', 'updated_at'])
    .where('environment_id', '=', environmentId)
    .where('folder_id', 'in', folderIds)
    .orderBy('id')
    .execute();
}

/** The recipes in these folders. */
export async function recipesInFolders(db: Db, environmentId: number, folderIds: number[]) {
  return db
    .selectFrom('recipes')
    .select(['id', 'name', 'folder_id', 'version_no', 'updated_at'])
    .where('environment_id', '=', environmentId)
    .where('folder_id', 'in', folderIds)
    .orderBy('id')
    .execute();
}

/** Each project of the environment with its folder. */
export async function projectFoldersOf(db: Db, environmentId: number) {
  return db.selectFrom('projects').select(['id', 'folder_id']).where('environment_id', '=', environmentId).execute();
}

/** Every folder of the environment, as the folder index needs them. */
export async function foldersOf(db: Db, environmentId: number) {
  return db
    .selectFrom('folders')
    .select(['id', 'parent_id', 'name', 'project_id'])
    .where('environment_id', '=', environmentId)
    .execute();
}

export interface FoundAsset {
  name: string;
  folderId: number | null;
  projectId: number | null;
  version?: number;
  updatedAt: string;
}

/** One asset of a packaged type in the environment; undefined when there is none. */
export async function findAsset(
  db: Db,
  environmentId: number,
  type: PackagedType,
  id: number,
): Promise<FoundAsset | undefined> {
  switch (type) {
    case 'recipe': {
      const r = await db
        .selectFrom('recipes')
        .select(['name', 'folder_id', 'version_no', 'updated_at'])
        .where('environment_id', '=', environmentId)
        .where('id', '=', id)
        .executeTakeFirst();
      return (
        r && { name: r.name, folderId: r.folder_id, projectId: null, version: r.version_no, updatedAt: r.updated_at }
      );
    }
    case 'connection': {
      const c = await db
        .selectFrom('connections')
        .select(['name', 'folder_id', 'updated_at'])
        .where('environment_id', '=', environmentId)
        .where('id', '=', id)
        .executeTakeFirst();
      return c && { name: c.name, folderId: c.folder_id, projectId: null, updatedAt: c.updated_at };
    }
    case 'topic': {
      const t = await db
        .selectFrom('event_topics')
        .select(['name', 'folder_id', 'updated_at'])
        .where('environment_id', '=', environmentId)
        .where('id', '=', id)
        .where('deleted_at', 'is', null)
        .executeTakeFirst();
      return t && { name: t.name, folderId: t.folder_id, projectId: null, updatedAt: t.updated_at };
    }
    case 'lookup_table': {
      const t = await db
        .selectFrom('lookup_tables')
        .select(['name', 'project_id', 'updated_at'])
        .where('environment_id', '=', environmentId)
        .where('id', '=', id)
        .where('deleted_at', 'is', null)
        .executeTakeFirst();
      return t && { name: t.name, folderId: null, projectId: t.project_id, updatedAt: t.updated_at };
    }
    case 'workato_db_table': {
      const t = await db
        .selectFrom('data_tables')
        .select(['name', 'folder_id', 'updated_at'])
        .where('environment_id', '=', environmentId)
        .where('id', '=', id)
        .executeTakeFirst();
      return t && { name: t.name, folderId: t.folder_id, projectId: null, updatedAt: t.updated_at };
    }
    case 'api_group': {
      const c = await db
        .selectFrom('api_collections')
        .select(['name', 'project_id', 'updated_at'])
        .where('environment_id', '=', environmentId)
        .where('id', '=', id)
        .executeTakeFirst();
      return c && { name: c.name, folderId: null, projectId: c.project_id, updatedAt: c.updated_at };
    }
    case 'api_endpoint': {
      const e = await db
        .selectFrom('api_endpoints')
        .innerJoin('api_collections', 'api_collections.id', 'api_endpoints.collection_id')
        .select(['api_endpoints.name', 'api_collections.project_id', 'api_endpoints.updated_at'])
        .where('api_collections.environment_id', '=', environmentId)
        .where('api_endpoints.id', '=', id)
        .executeTakeFirst();
      return e && { name: e.name, folderId: null, projectId: e.project_id, updatedAt: e.updated_at };
    }
    case 'custom_adapter': {
      const c = await db
        .selectFrom('custom_connectors')
        .select(['title', 'updated_at'])
        .where('environment_id', '=', environmentId)
        .where('id', '=', id)
        .executeTakeFirst();
      return c && { name: c.title, folderId: null, projectId: null, updatedAt: c.updated_at };
    }
    case 'account_property':
    case 'project_property': {
      const p = await db
        .selectFrom('properties')
        .select(['name', 'project_id', 'updated_at'])
        .where('environment_id', '=', environmentId)
        .where('id', '=', id)
        .where('project_id', type === 'account_property' ? 'is' : 'is not', null)
        .executeTakeFirst();
      return p && { name: p.name, folderId: null, projectId: p.project_id, updatedAt: p.updated_at };
    }
  }
}
