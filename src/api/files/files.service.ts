// The file store of recipes (the vendor's `workato_files` FileStorage): files by path in an
// environment, their bytes in the database in chunks, durable with the commit that wrote them.
// A file over FILE_MAX_BYTES is refused before anything is stored.
import type { ServiceContext } from '../../context.ts';
import type { FileRow } from '../../db/types.ts';
import { AppError, assertFound, invalid, uniqueOr422 } from '../../errors.ts';
import { toApiTimestamp, toStored } from '../../time.ts';
import {
  deleteChunks,
  deleteFileRow,
  findFile,
  insertChunk,
  insertFile,
  lastChunkSeq,
  listFilesIn,
  moveFileRow,
  readChunks,
  updateFileSize,
} from './files.store.ts';

export interface FileScope {
  workspaceId: number;
  environmentId: number;
}

export interface FileInfo {
  name: string;
  path: string;
  directory: string;
  size: number;
  created_at: string;
  updated_at: string;
}

/** Bytes a chunk holds. */
const CHUNK_BYTES = 256 * 1024;
const MAX_PATH_LENGTH = 1024;
const MAX_SEGMENT_LENGTH = 255;
/** Files a listing answers at most. */
export const MAX_LIST = 1000;

export function fileToApi(row: FileRow): FileInfo {
  return {
    name: row.name,
    path: row.path,
    directory: row.directory,
    size: Number(row.size),
    created_at: toApiTimestamp(row.created_at),
    updated_at: toApiTimestamp(row.updated_at),
  };
}

/**
 * A path as stored: absolute, `/`-separated, no empty, `.` or `..` segment, no control
 * character, `%` or `\\`. `field` names the input in the error.
 */
export function normalizePath(raw: unknown, field: string, directory = false): string {
  if (typeof raw !== 'string' || raw.trim() === '') {
    if (directory) return '/';
    throw invalid({ [field]: ['is required: a file path such as /reports/q1.csv'] });
  }
  const segments = raw
    .trim()
    .split('/')
    .filter((s) => s !== '');
  for (const s of segments) {
    if (s === '.' || s === '..' || /[\u0000-\u001f\u007f%\\]/.test(s))
      throw invalid({ [field]: [`has a segment that is not allowed (${JSON.stringify(s.slice(0, 50))})`] });
    if (s.length > MAX_SEGMENT_LENGTH)
      throw invalid({ [field]: [`has a name longer than ${MAX_SEGMENT_LENGTH} characters`] });
  }
  if (segments.length === 0 && !directory) throw invalid({ [field]: ['must name a file, not the root directory'] });
  const path = `/${segments.join('/')}`;
  if (path.length > MAX_PATH_LENGTH) throw invalid({ [field]: [`is longer than ${MAX_PATH_LENGTH} characters`] });
  return path;
}

function split(path: string): { directory: string; name: string } {
  const at = path.lastIndexOf('/');
  return { directory: at <= 0 ? '/' : path.slice(0, at), name: path.slice(at + 1) };
}

function tooLarge(ctx: ServiceContext, size: number): AppError {
  return invalid({
    content: [`is ${size} bytes; a file holds at most ${ctx.config.fileMaxBytes} bytes (FILE_MAX_BYTES)`],
  });
}

/**
 * Write a file: create it, or (overwrite) replace its content, or (append) add to its end.
 * All in one transaction: a file is never seen half written.
 */
export async function writeFile(
  ctx: ServiceContext,
  scope: FileScope,
  path: string,
  content: Buffer,
  mode: 'create' | 'overwrite' | 'append',
): Promise<FileInfo> {
  if (content.length > ctx.config.fileMaxBytes) throw tooLarge(ctx, content.length);
  const { directory, name } = split(path);
  const now = toStored(ctx.clock.now());
  await uniqueOr422(
    () =>
      ctx.db.transaction().execute(async (trx) => {
        const existing = await findFile(trx, scope.environmentId, path);
        if (existing && mode === 'create')
          throw new AppError('name_taken', {
            errors: { file_path: [`${path} already exists (set overwrite to replace it)`] },
          });
        let fileId: number;
        let seq = 0;
        let size = content.length;
        if (!existing) {
          fileId = await insertFile(trx, {
            workspace_id: scope.workspaceId,
            environment_id: scope.environmentId,
            path,
            directory,
            name,
            size,
            now,
          });
        } else {
          fileId = existing.id;
          if (mode === 'append') {
            size = Number(existing.size) + content.length;
            if (size > ctx.config.fileMaxBytes) throw tooLarge(ctx, size);
            seq = (await lastChunkSeq(trx, fileId)) + 1;
          } else {
            await deleteChunks(trx, fileId);
          }
          await updateFileSize(trx, fileId, size, now);
        }
        for (let at = 0; at < content.length; at += CHUNK_BYTES)
          await insertChunk(trx, fileId, seq++, content.subarray(at, at + CHUNK_BYTES));
      }),
    'file_path',
  );
  return fileToApi(assertFound(await findFile(ctx.db, scope.environmentId, path)));
}

export async function fileInfo(ctx: ServiceContext, scope: FileScope, path: string): Promise<FileInfo> {
  return fileToApi(assertFound(await findFile(ctx.db, scope.environmentId, path)));
}

export async function readFile(
  ctx: ServiceContext,
  scope: FileScope,
  path: string,
): Promise<{ info: FileInfo; content: Buffer }> {
  const row = assertFound(await findFile(ctx.db, scope.environmentId, path));
  return { info: fileToApi(row), content: await readChunks(ctx.db, row.id) };
}

export async function listFiles(
  ctx: ServiceContext,
  scope: FileScope,
  directory: string,
  recursive: boolean,
  page: { offset: number; limit: number },
): Promise<FileInfo[]> {
  return (await listFilesIn(ctx.db, scope.environmentId, directory, recursive, page)).map(fileToApi);
}

export async function deleteFile(ctx: ServiceContext, scope: FileScope, path: string): Promise<void> {
  const row = assertFound(await findFile(ctx.db, scope.environmentId, path));
  // The chunks go with the row (foreign key, cascade).
  await deleteFileRow(ctx.db, row.id);
}

export async function moveFile(ctx: ServiceContext, scope: FileScope, from: string, to: string): Promise<FileInfo> {
  const row = assertFound(await findFile(ctx.db, scope.environmentId, from));
  const { directory, name } = split(to);
  await uniqueOr422(
    () => moveFileRow(ctx.db, row.id, { path: to, directory, name, now: toStored(ctx.clock.now()) }),
    'to',
  );
  return fileToApi(assertFound(await findFile(ctx.db, scope.environmentId, to)));
}
