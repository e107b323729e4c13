// workato_files: the file store in recipes (the vendor's FileStorage connector), through the files
// service: files by path in the recipe's environment, text content (UTF-8), FILE_MAX_BYTES each.
// A file over the limit is the step's error and nothing is stored.
import { AppError } from '../../errors.ts';
import {
  deleteFile,
  listFiles,
  MAX_LIST,
  moveFile,
  normalizePath,
  readFile,
  writeFile,
  type FileInfo,
  type FileScope,
} from '../../api/files/files.service.ts';
import {
  fromPlain,
  hashGet,
  isHash,
  newHash,
  toPlain,
  toRubyString,
  type Hash,
  type Value,
} from '../../recipe/formula/values.ts';
import { deleteDirectoryTree, directoryExists, insertDirectories } from '../../api/files/files.store.ts';
import {
  DEFAULT_EXPIRES_IN,
  MAX_EXPIRES_IN,
  SHARE_SCOPES,
  shareableLink,
  type ShareScope,
} from '../../api/files/shared-links.ts';
import { fileInfo } from '../../api/files/files.service.ts';
import { toStored } from '../../time.ts';
import { csvParser } from './csv_parser.ts';
import { StepError, type ActionDef, type Connector, type RecipeRef, type TriggerDef } from './types.ts';

function scopeOf(recipe: RecipeRef): FileScope {
  return { workspaceId: recipe.workspaceId, environmentId: recipe.environmentId };
}

function asStepError(error: unknown): unknown {
  if (!(error instanceof AppError)) return error;
  const details = Object.entries(error.errors ?? {})
    .map(([field, messages]) => `${field} ${messages.join(', ')}`)
    .join('; ');
  const errorType =
    error.status === 404
      ? 'Not found'
      : error.status === 422
        ? 'File exists'
        : /at most .* bytes/.test(details)
          ? 'File too large'
          : 'Bad request';
  return new StepError(errorType, details || error.message);
}

async function service<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    throw asStepError(error);
  }
}

function text(input: Hash, key: string): string {
  return toRubyString(hashGet(input, key)).trim();
}

function flag(input: Hash, key: string): boolean {
  return ['true', 't', 'yes', '1'].includes(text(input, key).toLowerCase());
}

/** The file a step names: `file_path` (a directory) with `file_name`, or `file_path` alone as the whole path. */
function resolvePath(input: Hash): Promise<string> {
  return service(async () => {
    const name = text(input, 'file_name');
    const dir = text(input, 'file_path');
    if (name !== '') return normalizePath(`${normalizePath(dir, 'file_path', true)}/${name}`, 'file_name');
    return normalizePath(dir, 'file_path');
  });
}

/** Content as bytes: text as UTF-8; other values as their JSON. */
function contentOf(input: Hash): Buffer {
  const v: Value = hashGet(input, 'content');
  if (v === null) return Buffer.alloc(0);
  if (typeof v === 'string') return Buffer.from(v, 'utf8');
  if (Array.isArray(v) || isHash(v)) return Buffer.from(JSON.stringify(toPlain(v)), 'utf8');
  return Buffer.from(toRubyString(v), 'utf8');
}

function infoHash(info: FileInfo): Hash {
  return fromPlain({
    name: info.name,
    path: info.path,
    directory: info.directory,
    size: info.size,
    created_at: info.created_at,
    updated_at: info.updated_at,
  }) as Hash;
}

const FILE_PATH = { path: 'file_path', label: 'File path' };

/** Generate shareable file link: a URL that downloads, uploads or appends to one file until it expires. */
const createShareableLink: ActionDef = {
  title: 'Generate shareable file link',
  required: [FILE_PATH],
  async run(input, sc) {
    const scopeText = text(input, 'scope').toLowerCase() || 'download';
    if (!(SHARE_SCOPES as readonly string[]).includes(scopeText))
      throw new StepError('Bad request', `scope must be one of ${SHARE_SCOPES.join(', ')}`);
    const allows = scopeText as ShareScope;
    const expiresRaw = text(input, 'expires_in');
    const expiresIn = expiresRaw === '' ? DEFAULT_EXPIRES_IN : Number(expiresRaw);
    if (!Number.isInteger(expiresIn) || expiresIn < 1 || expiresIn > MAX_EXPIRES_IN)
      throw new StepError('Bad request', `expires_in must be a whole number of seconds from 1 to ${MAX_EXPIRES_IN}`);
    const scope = scopeOf(sc.recipe);
    let path: string;
    if (allows === 'upload') {
      // Upload makes a new file: file_name in the directory file_path names.
      if (text(input, 'file_name') === '')
        throw new StepError('Bad request', 'file_name is required for an upload link');
      path = await resolvePath(input);
      const exists = await fileInfo(sc.ctx, scope, path).then(
        () => true,
        (error: unknown) => {
          if (error instanceof AppError && error.status === 404) return false;
          throw asStepError(error);
        },
      );
      if (exists) throw new StepError('File exists', `${path} already exists; an upload link makes a new file`);
    } else {
      path = await service(async () => normalizePath(text(input, 'file_path'), 'file_path'));
      await service(() => fileInfo(sc.ctx, scope, path));
    }
    const expiresAt = Math.floor(sc.ctx.clock.now().getTime() / 1000) + expiresIn;
    return newHash([
      ['shareable_link', shareableLink(sc.ctx, { scope, path, allows, expiresAt })],
      ['file_path', path],
      ['expires_in', expiresIn],
      ['scope', allows],
    ]);
  },
};

const actions: Record<string, ActionDef> = {
  create_shareable_link: createShareableLink,
  store_file: {
    title: 'Create file',
    required: [FILE_PATH],
    async run(input, sc) {
      const path = await resolvePath(input);
      const content = contentOf(input);
      const info = await service(() =>
        writeFile(sc.ctx, scopeOf(sc.recipe), path, content, flag(input, 'overwrite') ? 'overwrite' : 'create'),
      );
      return infoHash(info);
    },
  },
  append_to_file: {
    title: 'Append to file',
    required: [FILE_PATH],
    async run(input, sc) {
      const path = await resolvePath(input);
      const info = await service(() => writeFile(sc.ctx, scopeOf(sc.recipe), path, contentOf(input), 'append'));
      return infoHash(info);
    },
  },
  get_file_contents: {
    title: 'Get file contents',
    required: [FILE_PATH],
    async run(input, sc) {
      const path = await resolvePath(input);
      const { info, content } = await service(() => readFile(sc.ctx, scopeOf(sc.recipe), path));
      const out = infoHash(info);
      out.content = content.toString('utf8');
      return out;
    },
  },
  search_files: {
    title: 'Search files',
    async run(input, sc) {
      const directory = await service(async () =>
        normalizePath(text(input, 'file_path') || text(input, 'directory'), 'file_path', true),
      );
      const prefix = text(input, 'file_name');
      const files = await service(() =>
        listFiles(sc.ctx, scopeOf(sc.recipe), directory, flag(input, 'recursive'), { offset: 0, limit: MAX_LIST }),
      );
      const matching = prefix === '' ? files : files.filter((f) => f.name.startsWith(prefix));
      return newHash([
        ['files', matching.map(infoHash)],
        ['count', matching.length],
      ]);
    },
  },
  delete_file: {
    title: 'Delete file',
    required: [FILE_PATH],
    async run(input, sc) {
      const path = await resolvePath(input);
      await service(() => deleteFile(sc.ctx, scopeOf(sc.recipe), path)).catch((error: unknown) => {
        if (error instanceof StepError && error.errorType === 'Not found')
          throw new StepError('Not found', `File ${path} not found`);
        throw error;
      });
      return newHash([
        ['success', true],
        ['path', path],
      ]);
    },
  },
  move_file: {
    title: 'Rename/move file',
    required: [FILE_PATH, { path: 'new_file_path', label: 'New file path' }],
    async run(input, sc) {
      const from = await resolvePath(input);
      const to = await service(async () => normalizePath(text(input, 'new_file_path'), 'new_file_path'));
      return infoHash(await service(() => moveFile(sc.ctx, scopeOf(sc.recipe), from, to)));
    },
  },
};

/** The directory a directory action names: `directory_path` (or `file_path`), with `directory_name` below it. */
function directoryOf(input: Hash): Promise<string> {
  return service(async () => {
    const base = text(input, 'directory_path') || text(input, 'file_path');
    const name = text(input, 'directory_name');
    return name === ''
      ? normalizePath(base, 'directory_path', true)
      : normalizePath(`${normalizePath(base, 'directory_path', true)}/${name}`, 'directory_name', true);
  });
}

actions.ensure_dir_exists = {
  title: 'Create directory',
  async run(input, sc) {
    const path = await directoryOf(input);
    const parts = path.split('/').filter((p) => p !== '');
    const paths = parts.map((_, i) => `/${parts.slice(0, i + 1).join('/')}`);
    await insertDirectories(sc.ctx.db, scopeOf(sc.recipe), paths, toStored(sc.ctx.clock.now()));
    return newHash([['directory_path', path]]);
  },
};

actions.delete_directory = {
  title: 'Delete directory',
  async run(input, sc) {
    const path = await directoryOf(input);
    if (path === '/') throw new StepError('Bad request', 'the root directory cannot be deleted');
    const { db } = sc.ctx;
    const env = sc.recipe.environmentId;
    const deleted = await db.transaction().execute(async (trx) => {
      if (!(await directoryExists(trx, env, path))) throw new StepError('Not found', `Directory ${path} not found`);
      return deleteDirectoryTree(trx, env, path);
    });
    return newHash([
      ['directory_path', path],
      ['deleted_files', deleted],
    ]);
  },
};

actions.get_csv_file_contents = {
  title: 'Get lines from CSV file',
  async run(input, sc) {
    const path = await resolvePath(input);
    const { info, content } = await service(() => readFile(sc.ctx, scopeOf(sc.recipe), path));
    const parsed = (csvParser.actions.parse_csv as ActionDef).run(
      newHash([
        ['csv_content', content.toString('utf8')],
        ['col_sep', hashGet(input, 'col_sep')],
        ['header_row', hashGet(input, 'header_row')],
        ['column_names', hashGet(input, 'column_names')],
      ]),
      sc,
    ) as Hash;
    return newHash([...Object.entries(parsed), ['file', infoHash(info)]]);
  },
};

/** File triggers: polls of the store (src/engine/store-polls.ts), the cursor in the recipe's trigger_closure. */
function fileTrigger(title: string): TriggerDef {
  return {
    title,
    kind: 'poll',
    output: (event) => event,
    titleFields(event) {
      const file = hashGet(event, 'file');
      const path = isHash(file) ? hashGet(file, 'path') : hashGet(event, 'path');
      return [['File', toRubyString(path)]];
    },
  };
}

export const workatoFiles: Connector = {
  provider: 'workato_files',
  title: 'Files',
  needsConnection: false,
  reachesOutside: false,
  triggers: {
    new_file: fileTrigger('New file'),
    new_csv_file: fileTrigger('New CSV file'),
    new_lines_in_csv_file: {
      ...fileTrigger('New lines in CSV file'),
      required: [{ path: 'file_path', label: 'File' }],
    },
  },
  actions,
};
