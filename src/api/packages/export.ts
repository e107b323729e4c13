// An export: the manifest's assets as JSON files in a zip of the vendor's layout (contract 15
// §12), written into the package's chunks as it streams out. Ids between assets become
// references {zip_name, name, folder}; connections carry no credentials.
import {
  collectionToExport,
  connectionToExport,
  customConnectorToExport,
  dataTableToExport,
  endpointToExport,
  lookupRowsAfter,
  lookupTableToExport,
  propertyToExport,
  recipeToExport,
  topicToExport,
} from './export.store.ts';
import { jsonShape } from '../../json-shape.ts';
import type { ServiceContext } from '../../context.ts';
import type { Db, MessageTemplateRow, PackageRow } from '../../db/types.ts';
import { toStored } from '../../time.ts';
import { CELL_COLUMNS, labelsOf } from '../lookup_tables/lookup_tables.store.ts';
import { findRecordsAfter } from '../data_tables/data_tables.store.ts';
import { parseColumns } from '../data_tables/columns.ts';
import { vendorSchema } from './data-table-file.ts';
import { keptFileContent, keptFilesInFolders } from './kept-files.store.ts';
import { FolderIndex, fileStem, type Asset } from '../export_manifests/assets.ts';
import { isPackagedType, propertyFileOf, type PackagedType } from '../export_manifests/asset-types.ts';
import { findAsset } from '../export_manifests/assets.store.ts';
import { parseCode, REFERENCE_FIELDS, stepsOf, type ReferenceKind } from '../export_manifests/references.ts';
import { updateManifest } from '../export_manifests/export_manifests.store.ts';
import { CHUNK_BYTES, deleteChunks, finishPackage, insertChunk } from './packages.store.ts';
import { createZipWriter } from './zip.ts';
import { resolveTemplate } from '../message_templates/message_templates.service.ts';
import { PROJECT_FILE } from '../export_manifests/asset-types.ts';
import { projectLookOfFolder } from '../projects/projects.store.ts';
import { findConnectorByProvider, latestReleasedVersion } from '../custom_connectors/custom_connectors.store.ts';
import { findRecipeVersionContent } from '../recipes/recipes.store.ts';
import { listTestCases } from '../test_cases/test_cases.store.ts';
import { tagsOfAssets, type TaggedKind } from '../tags/tags.store.ts';
import { PackageFailure } from './failure.ts';

export interface ExportOptions {
  /** The manifest exported (null for a project build, which exports the whole project). */
  manifestId: number | null;
  anchorFolderId: number | null;
  assets: Asset[];
  includeData: boolean;
  /** Recipes carry their test cases (`test_cases` in the recipe file). */
  includeTestCases?: boolean;
  /** Recipes and connections carry their tags (`tags` in their files, by title). */
  includeTags?: boolean;
}

export { PackageFailure };

interface Ref {
  zip_name: string;
  name: string;
  folder: string;
}

/** References to assets: the manifest's own first, then any asset of the environment by id or name. */
class RefResolver {
  readonly #byKey = new Map<string, Ref>();
  readonly #db: Db;
  readonly #environmentId: number;
  readonly #folders: FolderIndex;
  readonly #anchorId: number | null;

  constructor(db: Db, environmentId: number, folders: FolderIndex, anchorId: number | null, assets: readonly Asset[]) {
    this.#db = db;
    this.#environmentId = environmentId;
    this.#folders = folders;
    this.#anchorId = anchorId;
    for (const a of assets) {
      const ref = { zip_name: a.zip_name, name: a.name, folder: a.folder };
      this.#byKey.set(`${a.type}:${a.id}`, ref);
      if (!this.#byKey.has(`${a.type}:name:${a.name.toLowerCase()}`))
        this.#byKey.set(`${a.type}:name:${a.name.toLowerCase()}`, ref);
    }
  }

  readonly #templates = new Map<number, { row: MessageTemplateRow; ref: Ref }>();

  /** A stored message template a step names (by id, name or reference), and its file's reference. */
  async template(value: unknown): Promise<{ row: MessageTemplateRow; ref: Ref } | undefined> {
    const row = await resolveTemplate(this.#db, this.#environmentId, value);
    if (!row) return undefined;
    const known = this.#templates.get(row.id);
    if (known) return known;
    const found = { row, ref: { zip_name: `${fileStem(row.name)}.workato_template.json`, name: row.name, folder: '' } };
    this.#templates.set(row.id, found);
    return found;
  }

  /** The reference for an id (a number) of an asset type; undefined when there is no such asset. */
  async byId(type: PackagedType, id: number): Promise<Ref | undefined> {
    const known = this.#byKey.get(`${type}:${id}`);
    if (known) return known;
    const found = await findAsset(this.#db, this.#environmentId, type, id);
    if (!found) return undefined;
    const place = this.#anchorId === null ? { folder: '' } : this.#folders.placement(this.#anchorId, found.folderId);
    const ref = {
      zip_name: `${place.folder === '' ? '' : `${place.folder}/`}${fileStem(found.name)}.${type}.json`,
      name: found.name,
      folder: place.folder,
    };
    this.#byKey.set(`${type}:${id}`, ref);
    return ref;
  }
}

const KIND_TYPE: Record<ReferenceKind, PackagedType> = {
  lookup_table: 'lookup_table',
  workato_db_table: 'workato_db_table',
  topic: 'topic',
  recipe: 'recipe',
};

/** Deepest code a recipe file carries: the file's own levels around it stay within what an import reads (512). */
const MAX_CODE_DEPTH = 500;

function json(value: unknown): Buffer {
  return Buffer.from(`${JSON.stringify(value, null, 2)}\n`, 'utf8');
}

/** An asset's tags as a package carries them: by title (handles differ between environments). */
async function tagsFile(
  db: Db,
  kind: TaggedKind,
  id: number,
): Promise<Array<{ title: string; description: string | null; color: string | null }>> {
  const tags = (await tagsOfAssets(db, kind, [id])).get(id) ?? [];
  return tags.map((t) => ({ title: t.title, description: t.description, color: t.color }));
}

async function recipeFile(
  db: Db,
  refs: RefResolver,
  asset: Asset,
  includeTestCases: boolean,
  includeTags: boolean,
): Promise<Buffer> {
  const row = await recipeToExport(db, asset.id);
  if (!row) throw new PackageFailure(`${asset.zip_name}: recipe ${asset.id} no longer exists`);
  let content = {
    name: row.name,
    description: row.description,
    code: row.code,
    config: row.config,
    version: row.version_no,
  };
  if (asset.version_pinned === true && asset.version !== undefined && asset.version !== row.version_no) {
    const v = await findRecipeVersionContent(db, asset.id, asset.version);
    if (!v)
      throw new PackageFailure(`${asset.zip_name}: version ${asset.version} of recipe ${asset.id} does not exist`);
    content = { name: v.name, description: v.description, code: v.code, config: v.config, version: v.version_no };
  }
  // A package file may nest at most MAX_FILE_DEPTH levels (an import refuses deeper ones): code
  // nested deeper is a recipe with code errors, and no walk over it would end well.
  if (jsonShape(content.code).depth > MAX_CODE_DEPTH)
    throw new PackageFailure(
      `${asset.zip_name}: the recipe's code nests more than ${MAX_CODE_DEPTH} levels deep (blocks nest at most 100 deep); fix it, then export again`,
    );
  const code = parseCode(content.code);
  if (code === undefined) throw new PackageFailure(`${asset.zip_name}: the recipe's code is not valid JSON`);
  for (const step of stepsOf(code)) {
    const input = step.input;
    if (typeof input !== 'object' || input === null || Array.isArray(input)) continue;
    const fields = input as Record<string, unknown>;
    for (const { provider, field, kind } of REFERENCE_FIELDS) {
      if (step.provider !== provider) continue;
      const value = fields[field];
      const id =
        typeof value === 'number'
          ? value
          : typeof value === 'string' && /^\d{1,15}$/.test(value.trim())
            ? Number(value)
            : undefined;
      if (id === undefined) continue;
      const ref = await refs.byId(KIND_TYPE[kind], id);
      if (ref) fields[field] = ref;
    }
    // A stored message template travels in its own file; the step names it by reference (ids differ
    // between environments; the reference resolves by name where the package is imported).
    if (step.provider === 'workato_template' && fields.template_id !== undefined) {
      const template = await refs.template(fields.template_id);
      if (template) fields.template_id = template.ref;
    }
  }
  let config: unknown[] = [];
  try {
    const parsed: unknown = JSON.parse(content.config);
    if (Array.isArray(parsed)) config = parsed;
  } catch {
    config = [];
  }
  const entries = [];
  for (const entry of config) {
    if (typeof entry !== 'object' || entry === null) continue;
    const e = entry as Record<string, unknown>;
    const provider = typeof e.provider === 'string' ? e.provider : String(e.name ?? '');
    let account: unknown = null;
    if (typeof e.account_id === 'number') account = (await refs.byId('connection', e.account_id)) ?? null;
    else if (typeof e.account_id === 'object' && e.account_id !== null) account = e.account_id;
    entries.push({
      keyword: 'application',
      provider,
      ...(typeof e.name === 'string' && e.name !== provider ? { name: e.name } : {}),
      skip_validation: e.skip_validation === true,
      account_id: account,
      ...(e.personalization !== undefined ? { personalization: e.personalization } : {}),
    });
  }
  const file: Record<string, unknown> = {
    name: content.name,
    description: content.description,
    version: content.version,
    private: false,
    concurrency: row.concurrency,
    code,
    config: entries,
  };
  if (includeTestCases) {
    file.test_cases = (await listTestCases(db, [asset.id])).map((tc) => ({
      name: tc.name,
      description: tc.description,
      ...(JSON.parse(tc.body) as object),
    }));
  }
  if (includeTags) file.tags = await tagsFile(db, 'recipe', asset.id);
  return json(file);
}

async function assetFile(
  db: Db,
  environmentId: number,
  folders: FolderIndex,
  refs: RefResolver,
  asset: Asset & { type: PackagedType },
  options: ExportOptions,
): Promise<Buffer> {
  const includeData = options.includeData;
  const gone = () => new PackageFailure(`${asset.zip_name}: ${asset.type} ${asset.id} no longer exists`);
  switch (asset.type) {
    case 'recipe':
      return recipeFile(db, refs, asset, options.includeTestCases === true, options.includeTags === true);
    case 'connection': {
      const c = await connectionToExport(db, environmentId, asset.id);
      if (!c) throw gone();
      // A custom connector's connection names it by a reference to its adapter file (contract 15 §13).
      const connector = await findConnectorByProvider(db, environmentId, c.provider);
      const provider = connector ? ((await refs.byId('custom_adapter', connector.id)) ?? c.provider) : c.provider;
      return json({
        name: c.name,
        provider,
        root_folder: folders.get(c.folder_id)?.parent_id === null,
        ...(options.includeTags === true ? { tags: await tagsFile(db, 'connection', asset.id) } : {}),
      });
    }
    case 'custom_adapter': {
      const c = await customConnectorToExport(db, environmentId, asset.id);
      if (!c) throw gone();
      const version = await latestReleasedVersion(db, c.id);
      return json({
        title: c.title,
        description: c.description,
        logo_file_name: null,
        logo_content_type: null,
        version_no: version?.version ?? null,
        note: version?.note ?? null,
      });
    }
    case 'lookup_table': {
      const t = await lookupTableToExport(db, environmentId, asset.id);
      if (!t) throw gone();
      const labels = labelsOf(t);
      const schema = labels.map((label, i) => ({ label, name: `col${i + 1}` }));
      if (!includeData) return json({ name: t.name, schema });
      // Rows written as they are read, a page at a time, into one file.
      const parts: string[] = [
        `{\n  "name": ${JSON.stringify(t.name)},\n  "schema": ${JSON.stringify(schema, null, 2).replace(/\n/g, '\n  ')},\n  "data": [`,
      ];
      let afterId = 0;
      let first = true;
      for (;;) {
        const rows = await lookupRowsAfter(db, t.id, afterId);
        if (rows.length === 0) break;
        for (const row of rows) {
          const cells: Record<string, string> = {};
          for (let i = 0; i < labels.length; i += 1) {
            const col = CELL_COLUMNS[i]!;
            const v = row[col];
            if (v !== null && v !== '') cells[col] = v;
          }
          parts.push(`${first ? '' : ','}\n    ${JSON.stringify(cells)}`);
          first = false;
        }
        afterId = rows[rows.length - 1]!.id;
      }
      parts.push(first ? ']\n}\n' : '\n  ]\n}\n');
      return Buffer.from(parts.join(''), 'utf8');
    }
    case 'workato_db_table': {
      const t = await dataTableToExport(db, environmentId, asset.id);
      if (!t) throw gone();
      // The vendor's schema (data-table-file.ts); columns keep their UUIDs: the recipes of the package name them.
      const schema = vendorSchema(parseColumns(t.columns));
      if (!includeData) return json({ name: t.name, schema });
      // Records (values by column UUID) written as they are read, a page at a time, into one file.
      const parts: string[] = [
        `{\n  "name": ${JSON.stringify(t.name)},\n  "schema": ${JSON.stringify(schema, null, 2).replace(/\n/g, '\n  ')},\n  "data": [`,
      ];
      let afterId = 0;
      let first = true;
      for (;;) {
        const rows = await findRecordsAfter(db, t.id, afterId, 5000);
        if (rows.length === 0) break;
        for (const row of rows) {
          parts.push(`${first ? '' : ','}\n    ${row.data}`);
          first = false;
        }
        afterId = rows[rows.length - 1]!.id;
      }
      parts.push(first ? ']\n}\n' : '\n  ]\n}\n');
      return Buffer.from(parts.join(''), 'utf8');
    }
    case 'topic': {
      const t = await topicToExport(db, environmentId, asset.id);
      if (!t) throw gone();
      return json({
        name: t.name,
        description: t.description,
        retention: t.retention_seconds,
        schema: t.schema === null ? null : (JSON.parse(t.schema) as unknown),
      });
    }
    case 'api_group': {
      const c = await collectionToExport(db, environmentId, asset.id);
      if (!c) throw gone();
      return json({ name: c.name, version: c.version, description: '', handle: c.slug, use_prefix: true });
    }
    case 'api_endpoint': {
      const e = await endpointToExport(db, environmentId, asset.id);
      if (!e) throw gone();
      return json({
        name: e.name,
        recipe_id: e.flow_id === null ? null : ((await refs.byId('recipe', e.flow_id)) ?? null),
        api_group_id: (await refs.byId('api_group', e.collection_id)) ?? null,
        method: e.method,
        path: e.path,
        description: e.description,
        legacy: false,
        recipe_timeout: null,
        validate_request: e.validate_request === 1,
        validation_formula: null,
        use_cache: false,
        cache_ttl: null,
        cache_keys: [],
        cache_size_limit: null,
      });
    }
    case 'account_property':
    case 'project_property':
      return propertiesFile(db, environmentId, asset.type, [asset.id]);
  }
}

/**
 * A level's properties in the vendor's file: environment properties as `{"<name>": value}`, a
 * project's as `{"data": {...}}`, by name. Values travel; an import sets one only where the
 * target has none (appliers/properties.ts).
 */
async function propertiesFile(
  db: Db,
  environmentId: number,
  type: 'account_property' | 'project_property',
  ids: readonly number[],
): Promise<Buffer> {
  const values: Record<string, string> = {};
  const found: Array<{ name: string; value: string }> = [];
  for (const id of ids) {
    const p = await propertyToExport(db, environmentId, id);
    if (!p) throw new PackageFailure(`${propertyFileOf(type)}: ${type} ${id} no longer exists`);
    found.push(p);
  }
  found.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const p of found) values[p.name] = p.value;
  return json(type === 'account_property' ? values : { data: values });
}

/** A custom connector's released code, beside its `.custom_adapter.json`; refused when it was never released. */
async function adapterCode(db: Db, connectorId: number): Promise<Buffer> {
  const version = await latestReleasedVersion(db, connectorId);
  if (!version) throw new PackageFailure(`custom connector ${connectorId} has no released version to export`);
  return Buffer.from(version.code, 'utf8');
}

/** Run an export: write the zip into the package's chunks, then mark it completed (or failed). */
export async function runExport(ctx: ServiceContext, pkg: PackageRow, options: ExportOptions): Promise<void> {
  const db = ctx.db;
  await deleteChunks(db, pkg.id);
  const folders = await FolderIndex.load(db, pkg.environment_id);
  const assets = options.assets.filter((a) => a.checked && !a.unreachable);
  const refs = new RefResolver(db, pkg.environment_id, folders, options.anchorFolderId, assets);
  // Read before the first file is added: the writer starts producing files at once, and a file
  // that fails while this function awaits something else would fail a stream nobody reads yet.
  const kept =
    options.anchorFolderId === null
      ? []
      : await keptFilesInFolders(db, pkg.environment_id, folders.subtree(options.anchorFolderId));
  const templates = await templatesOfRecipes(db, refs, assets);
  const project =
    options.anchorFolderId === null
      ? undefined
      : await projectLookOfFolder(db, pkg.environment_id, options.anchorFolderId);
  const writer = await createZipWriter(new Date(pkg.created_at));
  const written = new Set<string>();
  // A level's properties go together into one file (the vendor's), wherever the manifest placed them.
  const propertyFiles = new Map<string, { type: 'account_property' | 'project_property'; ids: number[] }>();
  for (const asset of assets) {
    if (!isPackagedType(asset.type))
      throw new PackageFailure(`${asset.zip_name}: ${asset.type} assets are not held by this server`);
    if (asset.type === 'account_property' || asset.type === 'project_property') {
      const file = propertyFileOf(asset.type, asset.zip_name);
      const group = propertyFiles.get(file) ?? { type: asset.type, ids: [] };
      group.ids.push(asset.id);
      propertyFiles.set(file, group);
      continue;
    }
    const packaged = asset as Asset & { type: PackagedType };
    written.add(asset.zip_name);
    writer.add(asset.zip_name, () => assetFile(db, pkg.environment_id, folders, refs, packaged, options));
    if (asset.type === 'custom_adapter') {
      written.add(asset.zip_name.replace(/\.json$/, '.rb'));
      writer.add(asset.zip_name.replace(/\.json$/, '.rb'), () => adapterCode(db, asset.id));
    }
  }
  for (const [file, { type, ids }] of propertyFiles) {
    written.add(file);
    writer.add(file, () => propertiesFile(db, pkg.environment_id, type, ids));
  }
  // The message templates the recipes' steps name, each in the vendor's file at the package's root.
  for (const t of templates) {
    if (written.has(t.ref.zip_name)) continue;
    written.add(t.ref.zip_name);
    writer.add(t.ref.zip_name, async () =>
      json({
        name: t.row.name,
        description: t.row.description ?? '',
        content_type: t.row.content_type,
        body: t.row.body,
      }),
    );
  }
  // An exported project's description, colour and icon (the vendor's project.json).
  if (project) {
    written.add(PROJECT_FILE);
    writer.add(PROJECT_FILE, async () =>
      json({ description: project.description, color: project.color, icon: project.icon }),
    );
  }
  // Files an import kept as they came (contract 15 §13: the vendor's low-code apps, unknown
  // types) go out again unchanged with every export of their folder.
  if (options.anchorFolderId !== null) {
    for (const k of kept) {
      const dir = folders.placement(options.anchorFolderId, k.folder_id).folder;
      const path = `${dir === '' ? '' : `${dir}/`}${k.name}`;
      if (written.has(path)) continue;
      written.add(path);
      writer.add(path, async () => Buffer.from((await keptFileContent(db, k.id)) ?? new Uint8Array()));
    }
  }
  writer.finish();
  let seq = 0;
  let size = 0;
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  const flush = async () => {
    if (pendingBytes === 0) return;
    await insertChunk(db, pkg.id, seq, Buffer.concat(pending, pendingBytes));
    seq += 1;
    pending = [];
    pendingBytes = 0;
  };
  for await (const part of writer.stream) {
    const buffer = part as Buffer;
    pending.push(buffer);
    pendingBytes += buffer.length;
    size += buffer.length;
    if (pendingBytes >= CHUNK_BYTES) await flush();
  }
  await flush();
  const now = toStored(ctx.clock.now());
  const versions: Record<string, string> = {};
  for (const asset of assets) {
    const found = isPackagedType(asset.type)
      ? await findAsset(db, pkg.environment_id, asset.type, asset.id)
      : undefined;
    if (found) versions[`${asset.type}:${asset.id}`] = found.updatedAt;
  }
  await db.transaction().execute(async (trx) => {
    if (
      (await finishPackage(trx, pkg.id, { status: 'completed', content_size: size, now })) &&
      options.manifestId !== null
    ) {
      await updateManifest(trx, options.manifestId, {
        last_export: JSON.stringify(versions),
        last_exported_at: toStored(new Date(pkg.created_at)),
      });
    }
  });
}

/** The stored templates named by the template steps of the recipes to export (their current code). */
async function templatesOfRecipes(db: Db, refs: RefResolver, assets: readonly Asset[]) {
  const out = new Map<number, { row: MessageTemplateRow; ref: Ref }>();
  for (const asset of assets) {
    if (asset.type !== 'recipe') continue;
    const row = await recipeToExport(db, asset.id);
    if (!row || jsonShape(row.code).depth > MAX_CODE_DEPTH) continue;
    for (const step of stepsOf(parseCode(row.code))) {
      if (step.provider !== 'workato_template') continue;
      const input = step.input;
      if (typeof input !== 'object' || input === null || Array.isArray(input)) continue;
      const id = (input as Record<string, unknown>).template_id;
      if (id === undefined || id === null) continue;
      const found = await refs.template(id);
      if (found) out.set(found.row.id, found);
    }
  }
  return [...out.values()];
}
