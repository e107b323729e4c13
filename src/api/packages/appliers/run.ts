// One import at work (import.ts): the options, the zip's entries by type, the target folder and the
// folders below it, and what each applier (one per asset type, beside this file) found for the next.
import { childFolderNamed, projectNamed } from '../import.store.ts';
import type { PackageReader } from '../reader.ts';
import type { Db, PackageRow } from '../../../db/types.ts';
import { isUniqueViolation } from '../../../db/dialect.ts';
import { findFolder } from '../../folders/folder-scope.store.ts';
import { findHomeFolder, insertFolder, insertProject } from '../../folders/folders.store.ts';
import type { ServiceContext } from '../../../context.ts';
import { toStored } from '../../../time.ts';
import { PackageFailure } from '../export.ts';
import type { ImportResult } from '../packages.store.ts';
import type { AppliedRecord } from '../import.store.ts';

export interface ImportOptions {
  /** The target folder; null for a deployment, which names its project instead. */
  folderId: number | null;
  /** Deployments: the project to update, or to create, by name. */
  project?: { name: string; description: string };
  restartRecipes: boolean;
  includeTags: boolean;
  homeFolderId: number | null;
  /** The caller is limited to some projects: nothing outside the target's project may change. */
  restricted?: boolean;
  /** Deployments: every connection of the package must exist in the target (name and provider); none is created. */
  connectionsMustExist?: boolean;
  /** Deployments: the zip is the one of this package (the build's export). */
  sourcePackageId?: number;
  /** What a committed apply did (set in its transaction): after a restart, only the restarts run again. */
  applied?: AppliedRecord;
}

export { type FileType, FILE_TYPES, type Entry, type PreparedTestCase, type Obj, isObj } from '../entries.ts';
import type { Entry, FileType, KeptFile } from '../entries.ts';

export interface ImportedAdapter {
  path: string;
  id: number;
  name: string;
  /** The title in snake case, as the vendor's provider names begin (`acme_crm` of `acme_crm_connector_1_2`). */
  slug: string;
  /** The file's stem in snake case, the other way a provider name may begin. */
  stemSlug: string;
}

export interface Applied {
  recipeStatus: Array<{ id: number; import_result: ImportResult }>;
  restart: number[];
  /** What was imported differently from the file, and why (`<path>: <why>`). */
  warnings: string[];
  /** Files that failed alone (the rest imported), by path: why. */
  failedFiles: Map<string, string>;
  /** What was done with each file's asset, where its applier says. */
  changes: Map<string, FileChange>;
}

/** A deployment's project in the target environment, by name; created (with its folder) when absent. */
async function projectFolder(db: Db, pkg: PackageRow, project: ImportOptions['project'], now: string) {
  if (!project) return undefined;
  const existing = await projectNamed(db, pkg.environment_id, project.name);
  if (existing) return findFolder(db, pkg.environment_id, existing.folder_id);
  const home = await findHomeFolder(db, pkg.environment_id);
  if (!home) return undefined;
  try {
    const created = await insertProject(db, {
      workspaceId: pkg.workspace_id,
      environmentId: pkg.environment_id,
      homeFolderId: home.id,
      name: project.name,
      description: project.description,
      now,
    });
    return created.folder;
  } catch (error) {
    if (isUniqueViolation(error))
      throw new PackageFailure(
        `A folder named "${project.name}" exists in the target environment and is not a project; rename it, then deploy again`,
      );
    throw error;
  }
}

/** One import at work: its transaction, target, what the appliers found so far, and the failures. */
export interface ImportRun {
  ctx: ServiceContext;
  trx: Db;
  pkg: PackageRow;
  options: ImportOptions;
  /** The zip's files, read, checked and converted in a worker thread (reader.ts). */
  reader: PackageReader;
  now: string;
  env: number;
  projectId: number | null;
  target: NonNullable<Awaited<ReturnType<typeof findFolder>>>;
  failures: string[];
  fail: (path: string, why: string) => void;
  warnings: string[];
  /** Imported, but not as the file says: listed in the package's result. */
  warn: (path: string, why: string) => void;
  /** Files that fail alone: nothing of them is written, the rest of the package imports. */
  failedFiles: Map<string, string>;
  /** Fail this file alone (call before writing anything of it). */
  failFile: (path: string, why: string) => void;
  /** The files kept as they came (the vendor's low-code apps, unknown types). */
  kept: KeptFile[];
  /** The folder of the zip's directory below the target, created when missing. */
  folderOf: (dir: string) => Promise<number>;
  /** Where an entry goes: its directory's folder, or the Home folder for a root asset. */
  placeOf: (entry: Entry) => Promise<number>;
  entries: Entry[];
  byType: (type: FileType) => Entry[];
  name: (entry: Entry) => string;
  /** The custom connectors the package brought (applied first: connections name them). */
  adapters: ImportedAdapter[];
  connectionByZip: Map<string, number>;
  groupByZip: Map<string, number>;
  groupByDir: Map<string, number>;
  recipeByZip: Map<string, number>;
  recipeStatus: Applied['recipeStatus'];
  restart: number[];
  /** What an applier did with a file, where it says (`change` in the package's per-file result). */
  changes: Map<string, FileChange>;
}

/** What an import did with a file's asset: made it, changed it, or found it as the file says. */
export type FileChange = 'created' | 'updated' | 'unchanged';

/** Find or create the target folder and start the run. */
export async function startRun(
  ctx: ServiceContext,
  trx: Db,
  pkg: PackageRow,
  options: ImportOptions,
  entries: Entry[],
  reader: PackageReader,
  kept: KeptFile[] = [],
): Promise<ImportRun> {
  const now = toStored(ctx.clock.now());
  const target =
    options.folderId !== null
      ? await findFolder(trx, pkg.environment_id, options.folderId)
      : await projectFolder(trx, pkg, options.project, now);
  if (!target) throw new PackageFailure(`The target folder ${options.folderId} no longer exists; nothing was imported`);
  const env = pkg.environment_id;
  const projectId = target.project_id;
  const failures: string[] = [];
  const fail = (path: string, why: string) => failures.push(`${path}: ${why}`);
  const warnings: string[] = [];
  const warn = (path: string, why: string) => warnings.push(`${path}: ${why}`);
  const failedFiles = new Map<string, string>();
  const failFile = (path: string, why: string) => {
    if (!failedFiles.has(path)) failedFiles.set(path, why);
  };

  // Folders: the zip's directories below the target, created when missing.
  const folderIds = new Map<string, number>([['', target.id]]);
  const folderOf = async (dir: string): Promise<number> => {
    const known = folderIds.get(dir);
    if (known !== undefined) return known;
    const parentDir = dir.includes('/') ? dir.slice(0, dir.lastIndexOf('/')) : '';
    const parentId = await folderOf(parentDir);
    const name = dir
      .slice(dir.lastIndexOf('/') + 1)
      .trim()
      .slice(0, 255);
    const existing = await childFolderNamed(trx, parentId, name);
    const id = existing
      ? existing.id
      : (
          await insertFolder(trx, {
            workspace_id: pkg.workspace_id,
            environment_id: env,
            parent_id: parentId,
            name,
            is_project: 0,
            project_id: projectId,
            created_at: now,
            updated_at: now,
          })
        ).id;
    folderIds.set(dir, id);
    return id;
  };
  const placeOf = async (entry: Entry): Promise<number> => {
    if (entry.body.root_folder === true && options.homeFolderId !== null) return options.homeFolderId;
    return folderOf(entry.dir);
  };

  const byType = (type: FileType) => entries.filter((e) => e.type === type && !failedFiles.has(e.path));
  const name = (e: Entry) => String(e.body.name).trim();
  return {
    ctx,
    trx,
    pkg,
    options,
    reader,
    now,
    env,
    projectId,
    target,
    failures,
    fail,
    warnings,
    warn,
    failedFiles,
    failFile,
    kept,
    folderOf,
    placeOf,
    entries,
    byType,
    name,
    adapters: [],
    connectionByZip: new Map(),
    groupByZip: new Map(),
    groupByDir: new Map(),
    recipeByZip: new Map(),
    recipeStatus: [],
    restart: [],
    changes: new Map(),
  };
}
