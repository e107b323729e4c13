// The statements of a package export (export.ts): each asset's row as the export writes it.
import type { Db } from '../../db/types.ts';

/** A property of the environment, by id. */
export async function propertyToExport(db: Db, environmentId: number, id: number) {
  return db
    .selectFrom('properties')
    .select(['name', 'value'])
    .where('environment_id', '=', environmentId)
    .where('id', '=', id)
    .executeTakeFirst();
}

/** An endpoint of the environment, by id. */
export async function endpointToExport(db: Db, environmentId: number, id: number) {
  return db
    .selectFrom('api_endpoints')
    .innerJoin('api_collections', 'api_collections.id', 'api_endpoints.collection_id')
    .selectAll('api_endpoints')
    .where('api_collections.environment_id', '=', environmentId)
    .where('api_endpoints.id', '=', id)
    .executeTakeFirst();
}

/** An API collection of the environment, by id. */
export async function collectionToExport(db: Db, environmentId: number, id: number) {
  return db
    .selectFrom('api_collections')
    .selectAll()
    .where('environment_id', '=', environmentId)
    .where('id', '=', id)
    .executeTakeFirst();
}

/** A topic of the environment, by id. */
export async function topicToExport(db: Db, environmentId: number, id: number) {
  return db
    .selectFrom('event_topics')
    .selectAll()
    .where('environment_id', '=', environmentId)
    .where('id', '=', id)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
}

/** A custom connector of the environment, by id. */
export async function customConnectorToExport(db: Db, environmentId: number, id: number) {
  return db
    .selectFrom('custom_connectors')
    .selectAll()
    .where('environment_id', '=', environmentId)
    .where('id', '=', id)
    .executeTakeFirst();
}

/** A data table of the environment, by id. */
export async function dataTableToExport(db: Db, environmentId: number, id: number) {
  return db
    .selectFrom('data_tables')
    .selectAll()
    .where('environment_id', '=', environmentId)
    .where('id', '=', id)
    .executeTakeFirst();
}

/** The next 5,000 rows of a lookup table after a row id. */
export async function lookupRowsAfter(db: Db, tableId: number, afterId: number) {
  return db
    .selectFrom('lookup_table_rows')
    .selectAll()
    .where('table_id', '=', tableId)
    .where('id', '>', afterId)
    .orderBy('id')
    .limit(5000)
    .execute();
}

/** A lookup table of the environment, by id. */
export async function lookupTableToExport(db: Db, environmentId: number, id: number) {
  return db
    .selectFrom('lookup_tables')
    .selectAll()
    .where('environment_id', '=', environmentId)
    .where('id', '=', id)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
}

/** A connection of the environment, by id. */
export async function connectionToExport(db: Db, environmentId: number, id: number) {
  return db
    .selectFrom('connections')
    .select(['name', 'provider', 'folder_id'])
    .where('environment_id', '=', environmentId)
    .where('id', '=', id)
    .executeTakeFirst();
}

/** A recipe's fields as a package holds them. */
export async function recipeToExport(db: Db, id: number) {
  return db
    .selectFrom('recipes')
    .select(['name', 'description', 'code', 'config', 'concurrency', 'version_no'])
    .where('id', '=', id)
    .executeTakeFirst();
}
