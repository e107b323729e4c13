// The assets of a folder in manifest form (contract 15 §1–§2): what a folder holds, what its
// recipes depend on (connections, lookup tables, topics, called recipes, API endpoints), where
// each sits relative to the folder, and the zip entry it becomes. Shared by folder_assets,
// manifests made with auto_generate_assets, and the export itself.
import {
  collectionsOfProject,
  connectionInEnvironment,
  connectionsInFolders,
  dataTablesInFolders,
  endpointsOfCollection,
  endpointsServing,
  foldersOf,
  lookupTablesOfProject,
  projectFoldersOf,
  propertiesOfProject,
  recipeInEnvironment,
  recipesCode,
  recipesInFolders,
  topicsInFolders,
} from './assets.store.ts';
import { dataTableByRef, lookupTableByRef, recipeByRef, topicByRef } from './assets.store.ts';
import type { Db } from '../../db/types.ts';
import { codeReferences } from './references.ts';
import type { FoundAsset } from './assets.store.ts';
import { propertyFileOf, type AssetType, type PackagedType } from './asset-types.ts';
import { findConnectorByProvider } from '../custom_connectors/custom_connectors.store.ts';

/** Provider names in a recipe's code and config that may be custom connectors' (`..._connector_<id>_<stamp>`). */
function customProviders(code: string, config: string): Set<string> {
  const out = new Set<string>();
  for (const text of [code, config])
    for (const match of text.matchAll(/"provider"\s*:\s*"([a-z0-9_]+_connector_\d+_\d+)"/g)) out.add(match[1]!);
  return out;
}

export interface Asset {
  id: number;
  name: string;
  type: AssetType;
  version?: number;
  /** Stored only: the client named this version; otherwise an export takes the recipe as it is then. */
  version_pinned?: true;
  folder: string;
  absolute_path: string;
  root_folder: boolean;
  unreachable: boolean;
  zip_name: string;
  checked: boolean;
  status?: 'added' | 'updated' | 'no change';
}

/** Who scans: the environment, and the project folders a limited caller may see (null: all). */
export interface AssetScope {
  environmentId: number;
  /** Every folder id the caller may read, or null for all folders. */
  visibleFolderIds: ReadonlySet<number> | null;
}

interface FolderNode {
  id: number;
  parent_id: number | null;
  name: string;
  project_id: number | null;
}

/** The folders of an environment, with their paths. */
export class FolderIndex {
  readonly #byId = new Map<number, FolderNode>();
  readonly #projectFolder = new Map<number, number>();

  constructor(rows: readonly FolderNode[], projects: ReadonlyArray<{ id: number; folder_id: number }>) {
    for (const row of rows) this.#byId.set(row.id, row);
    for (const p of projects) this.#projectFolder.set(p.id, p.folder_id);
  }

  static async load(db: Db, environmentId: number): Promise<FolderIndex> {
    const rows = await foldersOf(db, environmentId);
    const projects = await projectFoldersOf(db, environmentId);
    return new FolderIndex(rows, projects);
  }

  get(id: number): FolderNode | undefined {
    return this.#byId.get(id);
  }

  /** The folder's names from the root (Home) down, the root included. */
  names(id: number): string[] {
    const out: string[] = [];
    let node = this.#byId.get(id);
    for (let guard = 0; node && guard < 10_000; guard += 1) {
      out.push(node.name);
      node = node.parent_id === null ? undefined : this.#byId.get(node.parent_id);
    }
    return out.reverse();
  }

  /** The chain of folder ids from the folder up to the root. */
  ancestors(id: number): number[] {
    const out: number[] = [];
    let node = this.#byId.get(id);
    for (let guard = 0; node && guard < 10_000; guard += 1) {
      out.push(node.id);
      node = node.parent_id === null ? undefined : this.#byId.get(node.parent_id);
    }
    return out;
  }

  isWithin(ancestorId: number, id: number): boolean {
    return this.ancestors(id).includes(ancestorId);
  }

  /** Every folder at or below the folder. */
  subtree(rootId: number): number[] {
    return [...this.#byId.keys()].filter((id) => this.isWithin(rootId, id));
  }

  projectFolderOf(projectId: number | null): number | undefined {
    return projectId === null ? undefined : this.#projectFolder.get(projectId);
  }

  /** Where an asset of `folderId` sits for a manifest anchored at `anchorId` (contract 15 §1). */
  placement(
    anchorId: number,
    folderId: number | null,
  ): { folder: string; absolute_path: string; root_folder: boolean } {
    if (folderId === null) return { folder: '', absolute_path: this.names(anchorId).join('/'), root_folder: false };
    const names = this.names(folderId);
    const absolute = names.join('/');
    const rootFolder = this.get(folderId)?.parent_id === null;
    if (this.isWithin(anchorId, folderId)) {
      const depth = this.names(anchorId).length;
      return { folder: names.slice(depth).join('/'), absolute_path: absolute, root_folder: rootFolder };
    }
    // Outside the anchor: its path below the root (Home), so that an import recreates it below the target.
    return { folder: names.slice(1).join('/'), absolute_path: absolute, root_folder: rootFolder };
  }
}

/** A snake_case file name stem from an asset name (contract 15 §12 rule 2). */
export function fileStem(name: string): string {
  const stem = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .slice(0, 120);
  return stem === '' ? 'asset' : stem;
}

/** Zip entry names for assets, unique, `<folder>/<stem>.<type>.json`. */
export function assignZipNames(assets: Array<Omit<Asset, 'zip_name'> & { zip_name?: string }>): Asset[] {
  const taken = new Set<string>();
  return assets.map((asset) => {
    const dir = asset.folder === '' ? '' : `${asset.folder}/`;
    // Properties travel together, a level's in one file (the vendor's).
    if (asset.type === 'account_property' || asset.type === 'project_property')
      return { ...asset, zip_name: propertyFileOf(asset.type, dir) };
    const stem = fileStem(asset.name);
    let candidate = `${dir}${stem}.${asset.type}.json`;
    for (let n = 2; taken.has(candidate.toLowerCase()); n += 1) candidate = `${dir}${stem}_${n}.${asset.type}.json`;
    taken.add(candidate.toLowerCase());
    return { ...asset, zip_name: candidate };
  });
}

type Found = Omit<Asset, 'zip_name' | 'checked' | 'unreachable' | 'folder' | 'absolute_path' | 'root_folder'> & {
  folderId: number | null;
  projectId?: number | null;
  updatedAt: string;
};

const TYPE_ORDER: readonly PackagedType[] = [
  'recipe',
  'connection',
  'lookup_table',
  'workato_db_table',
  'topic',
  'api_group',
  'api_endpoint',
  'project_property',
  'account_property',
  'custom_adapter',
];

export interface ScannedAsset extends Asset {
  updatedAt: string;
}

/**
 * The assets of a folder and of everything below it, with their dependencies (contract 15 §2).
 * A project folder also brings its project's lookup tables, API collections (with their
 * endpoints) and properties; the Home folder brings the environment's own.
 */
export async function scanFolder(db: Db, scope: AssetScope, anchorId: number): Promise<ScannedAsset[]> {
  const folders = await FolderIndex.load(db, scope.environmentId);
  const anchor = folders.get(anchorId);
  if (!anchor) return [];
  const subtree = folders.subtree(anchorId);
  const found = new Map<string, Found>();
  const add = (f: Found) => {
    const key = `${f.type}:${f.id}`;
    if (found.has(key)) return false;
    found.set(key, f);
    return true;
  };
  const env = scope.environmentId;
  const recipeQueue: number[] = [];

  const recipes = subtree.length === 0 ? [] : await recipesInFolders(db, env, subtree);
  for (const r of recipes)
    if (
      add({
        id: r.id,
        name: r.name,
        type: 'recipe',
        version: r.version_no,
        folderId: r.folder_id,
        updatedAt: r.updated_at,
      })
    )
      recipeQueue.push(r.id);
  const connections = subtree.length === 0 ? [] : await connectionsInFolders(db, env, subtree);
  for (const c of connections)
    add({ id: c.id, name: c.name, type: 'connection', folderId: c.folder_id, updatedAt: c.updated_at });
  for (const c of connections) {
    const connector = await findConnectorByProvider(db, env, c.provider);
    if (connector)
      add({
        id: connector.id,
        name: connector.title,
        type: 'custom_adapter',
        folderId: null,
        updatedAt: connector.updated_at,
      });
  }
  const topics = subtree.length === 0 ? [] : await topicsInFolders(db, env, subtree);
  for (const t of topics)
    add({ id: t.id, name: t.name, type: 'topic', folderId: t.folder_id, updatedAt: t.updated_at });
  const dataTables = subtree.length === 0 ? [] : await dataTablesInFolders(db, env, subtree);
  for (const t of dataTables)
    add({ id: t.id, name: t.name, type: 'workato_db_table', folderId: t.folder_id, updatedAt: t.updated_at });

  // Project-level assets: of the anchor's project when the anchor is the project folder; of the environment at Home.
  const projectId =
    anchor.parent_id === null
      ? null
      : anchor.project_id !== null && folders.projectFolderOf(anchor.project_id) === anchorId
        ? anchor.project_id
        : undefined;
  if (projectId !== undefined) {
    const tables = await lookupTablesOfProject(db, env, projectId);
    for (const t of tables)
      add({ id: t.id, name: t.name, type: 'lookup_table', folderId: null, projectId, updatedAt: t.updated_at });
    const collections = await collectionsOfProject(db, env, projectId);
    for (const c of collections)
      add({ id: c.id, name: c.name, type: 'api_group', folderId: null, projectId, updatedAt: c.updated_at });
    const properties = await propertiesOfProject(db, env, projectId);
    for (const p of properties)
      add({
        id: p.id,
        name: p.name,
        type: projectId === null ? 'account_property' : 'project_property',
        folderId: null,
        projectId,
        updatedAt: p.updated_at,
      });
  }

  // Dependencies, until nothing new is found.
  const scannedEndpointsOf = new Set<number>();
  for (let rounds = 0; rounds < 1000; rounds += 1) {
    const batch = recipeQueue.splice(0, 200);
    const collectionIds = [...found.values()]
      .filter((f) => f.type === 'api_group' && !scannedEndpointsOf.has(f.id))
      .map((f) => f.id);
    if (batch.length === 0 && collectionIds.length === 0) break;
    if (batch.length > 0) {
      const rows = await recipesCode(db, batch);
      for (const row of rows) {
        for (const provider of customProviders(row.code, row.config)) {
          const c = await findConnectorByProvider(db, env, provider);
          if (c) add({ id: c.id, name: c.title, type: 'custom_adapter', folderId: null, updatedAt: c.updated_at });
        }
        const refs = codeReferences(row.code, row.config);
        for (const id of refs.connectionIds) {
          const c = await connectionInEnvironment(db, env, id);
          if (c) add({ id: c.id, name: c.name, type: 'connection', folderId: c.folder_id, updatedAt: c.updated_at });
        }
        for (const ref of refs.lookupTables) {
          const t = await lookupTableByRef(db, env, ref);
          if (t)
            add({
              id: t.id,
              name: t.name,
              type: 'lookup_table',
              folderId: null,
              projectId: t.project_id,
              updatedAt: t.updated_at,
            });
        }
        for (const ref of refs.dataTables) {
          const t = await dataTableByRef(db, env, ref);
          if (t)
            add({ id: t.id, name: t.name, type: 'workato_db_table', folderId: t.folder_id, updatedAt: t.updated_at });
        }
        for (const ref of refs.topics) {
          const t = await topicByRef(db, env, ref);
          if (t) add({ id: t.id, name: t.name, type: 'topic', folderId: t.folder_id, updatedAt: t.updated_at });
        }
        for (const ref of refs.recipes) {
          const r = await recipeByRef(db, env, ref);
          if (
            r &&
            add({
              id: r.id,
              name: r.name,
              type: 'recipe',
              version: r.version_no,
              folderId: r.folder_id,
              updatedAt: r.updated_at,
            })
          )
            recipeQueue.push(r.id);
        }
      }
      // Endpoints that serve these recipes, with their collection.
      const endpoints = await endpointsServing(db, env, batch);
      for (const e of endpoints) {
        add({
          id: e.collection_id,
          name: e.collection_name,
          type: 'api_group',
          folderId: null,
          projectId: e.project_id,
          updatedAt: e.collection_updated_at,
        });
      }
    }
    // Every endpoint of a collection in the manifest, and the recipe each one serves.
    for (const collectionId of [...found.values()]
      .filter((f) => f.type === 'api_group' && !scannedEndpointsOf.has(f.id))
      .map((f) => f.id)) {
      scannedEndpointsOf.add(collectionId);
      const endpoints = await endpointsOfCollection(db, collectionId);
      const collection = found.get(`api_group:${collectionId}`);
      for (const e of endpoints) {
        add({
          id: e.id,
          name: e.name,
          type: 'api_endpoint',
          folderId: null,
          projectId: collection?.projectId ?? null,
          updatedAt: e.updated_at,
        });
        if (e.flow_id === null) continue;
        const r = await recipeInEnvironment(db, env, e.flow_id);
        if (
          r &&
          add({
            id: r.id,
            name: r.name,
            type: 'recipe',
            version: r.version_no,
            folderId: r.folder_id,
            updatedAt: r.updated_at,
          })
        )
          recipeQueue.push(r.id);
      }
    }
  }

  const visible = (f: Found): boolean => {
    if (scope.visibleFolderIds === null) return true;
    if (f.folderId !== null) return scope.visibleFolderIds.has(f.folderId);
    const projectFolder = folders.projectFolderOf(f.projectId ?? null);
    return projectFolder !== undefined && scope.visibleFolderIds.has(projectFolder);
  };
  const list = [...found.values()].sort(
    (a, b) => TYPE_ORDER.indexOf(a.type as PackagedType) - TYPE_ORDER.indexOf(b.type as PackagedType) || a.id - b.id,
  );
  const placed = list.map((f) => {
    const where = folders.placement(anchorId, f.folderId);
    return {
      id: f.id,
      name: f.name,
      type: f.type,
      ...(f.version !== undefined ? { version: f.version } : {}),
      ...where,
      unreachable: !visible(f),
      checked: true,
      updatedAt: f.updatedAt,
    };
  });
  return assignZipNames(placed).map((a, i) => ({ ...a, updatedAt: placed[i]!.updatedAt }));
}

/** Whether a caller that sees `visibleFolderIds` (null: all) may read an asset. */
export function assetVisible(
  folders: FolderIndex,
  visibleFolderIds: ReadonlySet<number> | null,
  asset: Pick<FoundAsset, 'folderId' | 'projectId'>,
): boolean {
  if (visibleFolderIds === null) return true;
  if (asset.folderId !== null) return visibleFolderIds.has(asset.folderId);
  const projectFolder = folders.projectFolderOf(asset.projectId);
  return projectFolder !== undefined && visibleFolderIds.has(projectFolder);
}

/** A zip entry name a package may hold: relative, no `..`, no backslash or control character, ending in `.<type>.json`. */
export function zipNameProblem(zipName: string, type: string): string | undefined {
  if (zipName.length > 1000) return 'is too long';
  if (zipName.startsWith('/') || /^[A-Za-z]:/.test(zipName)) return 'must be a relative path';
  if (/[\\\u0000-\u001f]/.test(zipName)) return 'must not contain backslashes or control characters';
  if (zipName.split('/').some((part) => part === '..' || part === '.' || part === ''))
    return 'must not contain empty, . or .. segments';
  if (!zipName.endsWith(`.${type}.json`)) return `must end with .${type}.json`;
  return undefined;
}
