// Custom connectors and their code versions. A version is released once; the connector's
// latest_released_version is the highest released one.
import { createHash } from 'node:crypto';
import { prepareQuery } from '../../db/prepared.ts';
import type { CustomConnectorRow, CustomConnectorVersionRow, Db, RecipeRow } from '../../db/types.ts';
import { toApiTimestamp } from '../../time.ts';

export interface ConnectorScope {
  readonly workspaceId: number;
  readonly environmentId: number;
}

export interface ReleasedVersionApi {
  version: number;
  version_note: string | null;
  created_at: string;
  released_at: string;
}

export interface CustomConnectorApi {
  id: number;
  name: string;
  title: string;
  description: string | null;
  latest_released_version: number | null;
  latest_released_version_note: string | null;
  oem_shared_version: number | null;
  oem_shared_at: string | null;
  released_versions: ReleasedVersionApi[];
  static_webhook_url: string | null;
}

type VersionSummary = Omit<CustomConnectorVersionRow, 'code'>;

/** A connector's static webhook URL (served by src/engine/webhooks.routes.ts). */
export function staticWebhookUrl(publicBaseUrl: string, id: number): string {
  return `${publicBaseUrl.replace(/\/+$/, '')}/webhooks/connectors/${id}/event`;
}

/**
 * The connector as the API shows it. `static_webhook_url` is stored when the code is written (set
 * when the source declares `webhook_keys`) and shown under the current PUBLIC_BASE_URL, so a
 * changed setting never shows a stale host.
 */
export function connectorToApi(
  row: CustomConnectorRow,
  versions: readonly VersionSummary[],
  publicBaseUrl: string,
): CustomConnectorApi {
  const released = versions
    .filter((v): v is VersionSummary & { released_at: string } => v.released_at !== null)
    .sort((a, b) => b.version - a.version);
  const latest = released[0];
  return {
    id: row.id,
    name: row.name,
    title: row.title,
    description: row.description,
    latest_released_version: latest?.version ?? null,
    latest_released_version_note: latest?.note ?? null,
    oem_shared_version: row.oem_shared_version,
    oem_shared_at: row.oem_shared_at === null ? null : toApiTimestamp(row.oem_shared_at),
    released_versions: released.map((v) => ({
      version: v.version,
      version_note: v.note,
      created_at: toApiTimestamp(v.created_at),
      released_at: toApiTimestamp(v.released_at),
    })),
    static_webhook_url: row.static_webhook_url === null ? null : staticWebhookUrl(publicBaseUrl, row.id),
  };
}

export async function insertConnector(db: Db, values: Omit<CustomConnectorRow, 'id'>): Promise<number> {
  const row = await db.insertInto('custom_connectors').values(values).returning('id').executeTakeFirstOrThrow();
  return row.id;
}

export async function updateConnector(
  db: Db,
  id: number,
  values: Partial<Pick<CustomConnectorRow, 'name' | 'description' | 'static_webhook_url' | 'updated_at'>>,
): Promise<void> {
  await db.updateTable('custom_connectors').set(values).where('id', '=', id).execute();
}

export async function findConnector(
  db: Db,
  scope: ConnectorScope,
  id: number,
): Promise<CustomConnectorRow | undefined> {
  return db
    .selectFrom('custom_connectors')
    .selectAll()
    .where('workspace_id', '=', scope.workspaceId)
    .where('environment_id', '=', scope.environmentId)
    .where('id', '=', id)
    .executeTakeFirst();
}

export async function listConnectors(db: Db, scope: ConnectorScope): Promise<CustomConnectorRow[]> {
  return db
    .selectFrom('custom_connectors')
    .selectAll()
    .where('workspace_id', '=', scope.workspaceId)
    .where('environment_id', '=', scope.environmentId)
    .orderBy('id')
    .execute();
}

/** Versions of these connectors without their code (which can be megabytes). */
export async function versionSummaries(db: Db, connectorIds: readonly number[]): Promise<VersionSummary[]> {
  if (connectorIds.length === 0) return [];
  return db
    .selectFrom('custom_connector_versions')
    .select(['id', 'connector_id', 'version', 'note', 'created_at', 'released_at'])
    .where('connector_id', 'in', connectorIds)
    .orderBy('version')
    .execute();
}

export async function latestVersion(db: Db, connectorId: number): Promise<CustomConnectorVersionRow | undefined> {
  return db
    .selectFrom('custom_connector_versions')
    .selectAll()
    .where('connector_id', '=', connectorId)
    .orderBy('version', 'desc')
    .limit(1)
    .executeTakeFirst();
}

/** The next version number is taken under the (connector_id, version) unique constraint. */
export async function insertVersion(db: Db, values: Omit<CustomConnectorVersionRow, 'id'>): Promise<void> {
  await db.insertInto('custom_connector_versions').values(values).execute();
}

export async function markReleased(db: Db, versionId: number, at: string): Promise<void> {
  await db
    .updateTable('custom_connector_versions')
    .set({ released_at: at })
    .where('id', '=', versionId)
    .where('released_at', 'is', null)
    .execute();
}

/**
 * The connector a recipe step or a connection names by provider in this environment: by its own
 * name, or by another name an imported package gave it (custom_connector_aliases).
 */
/** The workspace a custom connector belongs to (undefined: no such connector). */
export async function findConnectorWorkspace(db: Db, id: number): Promise<number | undefined> {
  const row = await db.selectFrom('custom_connectors').select('workspace_id').where('id', '=', id).executeTakeFirst();
  return row?.workspace_id;
}

/** The started recipes of a workspace (a custom connector's static webhook picks among them). */
export async function listRunningRecipesOfWorkspace(db: Db, workspaceId: number): Promise<RecipeRow[]> {
  return db
    .selectFrom('recipes')
    .selectAll()
    .where('running', '=', 1)
    .where('workspace_id', '=', workspaceId)
    .orderBy('id')
    .execute();
}

export async function findConnectorByProvider(
  db: Db,
  environmentId: number,
  provider: string,
): Promise<CustomConnectorRow | undefined> {
  const own = await db
    .selectFrom('custom_connectors')
    .selectAll()
    .where('environment_id', '=', environmentId)
    .where('name', '=', provider)
    .executeTakeFirst();
  if (own) return own;
  return db
    .selectFrom('custom_connector_aliases')
    .innerJoin('custom_connectors', 'custom_connectors.id', 'custom_connector_aliases.connector_id')
    .selectAll('custom_connectors')
    .where('custom_connector_aliases.environment_id', '=', environmentId)
    .where('custom_connector_aliases.name', '=', provider)
    .executeTakeFirst();
}

/** The connectors of an environment with this title (case and surrounding spaces ignored), oldest first. */
export async function findConnectorsByTitle(
  db: Db,
  environmentId: number,
  title: string,
): Promise<CustomConnectorRow[]> {
  const key = title.trim().toLowerCase();
  const rows = await db
    .selectFrom('custom_connectors')
    .selectAll()
    .where('environment_id', '=', environmentId)
    .orderBy('id')
    .execute();
  return rows.filter((row) => row.title.trim().toLowerCase() === key);
}

/** A connector a provider may name (its own name, or an alias), with its highest released version number. */
const releasedByProvider = prepareQuery<
  { environmentId: number; provider: string },
  { id: number; title: string; name: string; released: number | string | null }
>((db, param) =>
  db
    .selectFrom('custom_connectors as c')
    .select(['c.id', 'c.title', 'c.name'])
    .select((eb) =>
      eb
        .selectFrom('custom_connector_versions as v')
        .select((v) => v.fn.max('v.version').as('released'))
        .whereRef('v.connector_id', '=', 'c.id')
        .where('v.released_at', 'is not', null)
        .as('released'),
    )
    .where('c.environment_id', '=', param('environmentId'))
    .where((eb) =>
      eb.or([
        eb('c.name', '=', param('provider')),
        eb.exists(
          eb
            .selectFrom('custom_connector_aliases as a')
            .select('a.connector_id')
            .whereRef('a.connector_id', '=', 'c.id')
            .where('a.environment_id', '=', param('environmentId'))
            .where('a.name', '=', param('provider')),
        ),
      ]),
    )
    .orderBy('c.id'),
);

/**
 * The connector a provider names in an environment (its own name first, else an alias) and the
 * number of its highest released version, in one statement without the code: what a job checks
 * before each run (the code is read only when the version is not the one already loaded).
 * Undefined: no such connector, or none of its versions released.
 */
export async function releasedVersionOfProvider(
  db: Db,
  environmentId: number,
  provider: string,
): Promise<{ connectorId: number; title: string; version: number } | undefined> {
  const rows = (await releasedByProvider.execute(db, { environmentId, provider })).rows;
  const row = rows.find((r) => r.name === provider) ?? rows[0];
  if (!row || row.released === null) return undefined;
  return { connectorId: row.id, title: row.title, version: Number(row.released) };
}

/** One released version with its code. */
export async function findReleasedVersion(
  db: Db,
  connectorId: number,
  version: number,
): Promise<CustomConnectorVersionRow | undefined> {
  return db
    .selectFrom('custom_connector_versions')
    .selectAll()
    .where('connector_id', '=', connectorId)
    .where('version', '=', version)
    .where('released_at', 'is not', null)
    .executeTakeFirst();
}

/** The highest released version with its code: what recipes run. */
export async function latestReleasedVersion(
  db: Db,
  connectorId: number,
): Promise<CustomConnectorVersionRow | undefined> {
  return db
    .selectFrom('custom_connector_versions')
    .selectAll()
    .where('connector_id', '=', connectorId)
    .where('released_at', 'is not', null)
    .orderBy('version', 'desc')
    .limit(1)
    .executeTakeFirst();
}

/** Records another name of a connector in its environment; a name already taken there is left as it is. */
export async function insertAliasUnlessTaken(
  db: Db,
  values: { environment_id: number; name: string; connector_id: number; created_at: string },
): Promise<void> {
  const taken = await findConnectorByProvider(db, values.environment_id, values.name);
  if (taken) return;
  await db.insertInto('custom_connector_aliases').values(values).execute();
}

/** Other names of these connectors (what an export writes recipes' providers as, unchanged). */
export async function aliasesOf(
  db: Db,
  connectorIds: readonly number[],
): Promise<Array<{ name: string; connector_id: number }>> {
  if (connectorIds.length === 0) return [];
  return db
    .selectFrom('custom_connector_aliases')
    .select(['name', 'connector_id'])
    .where('connector_id', 'in', connectorIds)
    .orderBy('id')
    .execute();
}

/** Every connector of an environment with its title, oldest first. */
export async function connectorTitles(db: Db, environmentId: number): Promise<Array<{ id: number; title: string }>> {
  return db
    .selectFrom('custom_connectors')
    .select(['id', 'title'])
    .where('environment_id', '=', environmentId)
    .orderBy('id')
    .execute();
}

/** The index of static webhook keys (0077): the key is kept as its SHA-256, compared exactly. */
function keyHash(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

/** A started recipe's static webhook key (replacing what an earlier start kept). */
export async function putStaticWebhookKey(
  db: Db,
  entry: { recipeId: number; connectorId: number; key: string; createdAt: string },
): Promise<void> {
  const values = { connector_id: entry.connectorId, key_hash: keyHash(entry.key), created_at: entry.createdAt };
  await db
    .insertInto('static_webhook_keys')
    .values({ recipe_id: entry.recipeId, ...values })
    .onConflict((oc) => oc.column('recipe_id').doUpdateSet(values))
    .execute();
}

export async function deleteStaticWebhookKey(db: Db, recipeId: number): Promise<void> {
  await db.deleteFrom('static_webhook_keys').where('recipe_id', '=', recipeId).execute();
}

/**
 * The started recipes of a workspace's environment that may serve a connection's static webhook:
 * those whose trigger names the connection's provider, and those already in the index (a recipe
 * that names the connector by an alias an import recorded), oldest first.
 */
export async function listStaticWebhookCandidates(
  db: Db,
  scope: { workspaceId: number; environmentId: number },
  provider: string,
): Promise<RecipeRow[]> {
  return db
    .selectFrom('recipes')
    .selectAll()
    .where('running', '=', 1)
    .where('workspace_id', '=', scope.workspaceId)
    .where('environment_id', '=', scope.environmentId)
    .where((eb) =>
      eb.or([
        eb('trigger_application', '=', provider),
        eb('id', 'in', eb.selectFrom('static_webhook_keys').select('recipe_id')),
      ]),
    )
    .orderBy('id')
    .execute();
}

/** Whether the recipe has a static webhook key kept. */
export async function hasStaticWebhookKey(db: Db, recipeId: number): Promise<boolean> {
  const row = await db
    .selectFrom('static_webhook_keys')
    .select('recipe_id')
    .where('recipe_id', '=', recipeId)
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * The started recipes of the connector's workspace whose static webhook key is `key` (or, without
 * a key, any one of them: `limit`), oldest first.
 */
export async function listStaticWebhookRecipes(
  db: Db,
  connectorId: number,
  workspaceId: number,
  key: string | null,
  limit?: number,
): Promise<RecipeRow[]> {
  let query = db
    .selectFrom('static_webhook_keys as k')
    .innerJoin('recipes', 'recipes.id', 'k.recipe_id')
    .selectAll('recipes')
    .where('k.connector_id', '=', connectorId)
    .where('recipes.running', '=', 1)
    .where('recipes.workspace_id', '=', workspaceId)
    .orderBy('recipes.id');
  if (key !== null) query = query.where('k.key_hash', '=', keyHash(key));
  if (limit !== undefined) query = query.limit(limit);
  return query.execute();
}
