// Google Drive's named actions as the vendor's recipes store them: `upload_file_stream` (and the
// older `upload_file`: name, content, folder_id, mime_type; output the file), `download_file_contents`
// (file_id; output content) and `search_file_or_folder` (name, folder_id, mime_type, query, count;
// output files). Over the Drive API v3: a multipart upload
// (https://developers.google.com/drive/api/guides/manage-uploads#multipart), files.get with
// alt=media, files.list with a `q` query and nextPageToken pages
// (https://developers.google.com/drive/api/reference/rest/v3/files).
import { randomBytes } from 'node:crypto';
import { cursorInBody, collect } from '../http/pagination.ts';
import { StepError } from '../step-error.ts';
import type { ActionDef, Connector } from '../types.ts';
import { bytesOf, contentOf, countOf, requiredText, saasAction, textOf, type Plain } from './action-inputs.ts';

const FILE_ID = /^[A-Za-z0-9_-]{1,200}$/;
const FILE_FIELDS = 'id,name,mimeType,parents,size,createdTime,modifiedTime,webViewLink';

function fileId(input: Plain, label: string, ...keys: string[]): string {
  const id = requiredText(input, label, ...keys);
  if (!FILE_ID.test(id))
    throw new StepError('Bad request', `${label} ${JSON.stringify(id.slice(0, 60))} is not a Drive file ID`);
  return id;
}

function optionalFolder(input: Plain): string | null {
  return textOf(input, 'folder_id', 'parent_id').trim() === ''
    ? null
    : fileId(input, 'Folder', 'folder_id', 'parent_id');
}

/** A text value of a Drive query, quoted as its search syntax says (backslash and quote escaped). */
function quoted(value: string): string {
  return `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

const FILE_OUTPUT = FILE_FIELDS.split(',').map((name) => ({ name }));

export function googleDriveActions(self: () => Connector): Record<string, ActionDef> {
  const upload = saasAction(
    'Upload file',
    self,
    {
      required: [{ path: 'name', label: 'File name' }],
      inputFields: [
        { name: 'name', label: 'File name' },
        { name: 'content', label: 'File contents' },
        { name: 'folder_id', label: 'Folder', optional: true },
        { name: 'mime_type', label: 'MIME type', optional: true },
      ],
      outputFields: FILE_OUTPUT,
    },
    async (input, session) => {
      const name = requiredText(input, 'File name', 'name', 'file_name');
      if (name.length > 1000) throw new StepError('Bad request', 'File name is longer than 1000 characters');
      const folder = optionalFolder(input);
      const mimeType = textOf(input, 'mime_type').trim() || 'application/octet-stream';
      if (!/^[\w.+-]+\/[\w.+-]+$/.test(mimeType))
        throw new StepError('Bad request', `${JSON.stringify(mimeType.slice(0, 60))} is not a MIME type`);
      const metadata: Plain = {
        name,
        ...(folder ? { parents: [folder] } : {}),
        ...(textOf(input, 'mime_type').trim() ? { mimeType } : {}),
      };
      const boundary = `sb-${randomBytes(12).toString('hex')}`;
      const body = Buffer.concat([
        Buffer.from(
          `--${boundary}\r\nContent-Type: application/json; charset=UTF-8\r\n\r\n${JSON.stringify(metadata)}\r\n--${boundary}\r\nContent-Type: ${mimeType}\r\n\r\n`,
          'utf8',
        ),
        bytesOf(textOf(input, 'content', 'fileContent', 'file_content')),
        Buffer.from(`\r\n--${boundary}--\r\n`, 'utf8'),
      ]);
      const res = await (
        await session()
      ).request({
        method: 'POST',
        url: '/upload/drive/v3/files',
        query: { uploadType: 'multipart', fields: FILE_FIELDS, supportsAllDrives: true },
        body: { bytes: body, contentType: `multipart/related; boundary=${boundary}` },
      });
      return res.body;
    },
  );
  return {
    upload_file_stream: upload,
    upload_file: upload,
    download_file_contents: saasAction(
      'Download file',
      self,
      {
        required: [{ path: 'file_id', label: 'File' }],
        inputFields: [{ name: 'file_id', label: 'File' }],
        outputFields: [{ name: 'content' }, { name: 'size', type: 'integer' }],
      },
      async (input, session) => {
        const id = fileId(input, 'File', 'file_id', 'id');
        const res = await (
          await session()
        ).request({
          method: 'GET',
          url: `files/${id}`,
          query: { alt: 'media', supportsAllDrives: true },
          responseType: 'bytes',
        });
        const bytes = Buffer.from(res.body as Uint8Array);
        return { content: contentOf(bytes), size: bytes.length };
      },
    ),
    search_file_or_folder: saasAction(
      'Search files or folders',
      self,
      {
        inputFields: [
          { name: 'name', label: 'Name contains', optional: true },
          { name: 'folder_id', label: 'Folder', optional: true },
          { name: 'mime_type', optional: true },
          {
            name: 'query',
            label: 'Query',
            optional: true,
            hint: "Drive search syntax, e.g. modifiedTime > '2024-01-01'",
          },
          { name: 'count', type: 'integer', optional: true, default: '100' },
        ],
        outputFields: [{ name: 'files', type: 'array', of: 'object', properties: FILE_OUTPUT }],
      },
      async (input, session) => {
        const terms = ['trashed = false'];
        const name = textOf(input, 'name').trim();
        if (name) terms.push(`name contains ${quoted(name)}`);
        const folder = optionalFolder(input);
        if (folder) terms.push(`${quoted(folder)} in parents`);
        const mime = textOf(input, 'mime_type').trim();
        if (mime) terms.push(`mimeType = ${quoted(mime)}`);
        const query = textOf(input, 'query').trim();
        if (query) terms.push(`(${query})`);
        const count = countOf(input, 'count', 100, 1000);
        const files = await collect(
          await session(),
          {
            method: 'GET',
            url: 'files',
            query: {
              q: terms.join(' and '),
              pageSize: Math.min(count, 100),
              fields: `nextPageToken,files(${FILE_FIELDS})`,
              supportsAllDrives: true,
              includeItemsFromAllDrives: true,
            },
          },
          cursorInBody(['nextPageToken'], 'pageToken'),
          ['files'],
          { maxItems: count },
        );
        return { files };
      },
    ),
  };
}
