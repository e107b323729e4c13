// Google Drive's `new_file` polling trigger: files.list
// (https://developers.google.com/drive/api/reference/rest/v3/files/list) with the search query
// `'<folder>' in parents and createdTime >= '<cursor>' and trashed = false`
// (https://developers.google.com/drive/api/guides/search-files), `orderBy=createdTime`, pages of 100
// followed through `nextPageToken`. One job per file, oldest first; the file id is the dedup key.
// The cursor is the newest `createdTime` seen, asked again inclusively (a file created in the same
// millisecond but listed later is not lost; the one already seen is dropped by its id).
import { stepSession } from '../connections.ts';
import { StepError } from '../step-error.ts';
import type { Connector, TriggerDef } from '../types.ts';
import { fromPlain, hashGet, toRubyString, type Hash } from '../../recipe/formula/values.ts';
import { closureOf, startOf } from './trigger-helpers.ts';

const PAGE = 100;
const FOLDER_ID = /^[A-Za-z0-9_-]{1,200}$/;
const FIELDS = 'id,name,mimeType,parents,size,createdTime,modifiedTime,webViewLink';

interface DriveFile {
  id: string;
  createdTime?: string;
}

export function googleDriveTriggers(self: () => Connector): Record<string, TriggerDef> {
  return {
    new_file: {
      title: 'New file',
      kind: 'poll',
      description: 'Triggers when a file is created or uploaded in a Google Drive folder',
      inputFields: [
        { name: 'folder', label: 'Folder', optional: true, hint: 'The folder ID; blank: anywhere in My Drive' },
        {
          name: 'since',
          label: 'When first started, this recipe should pick up events from',
          type: 'timestamp',
          optional: true,
        },
      ],
      outputFields: FIELDS.split(',').map((name) =>
        name === 'parents' ? { name, type: 'array', of: 'string' } : { name },
      ),
      output: (event) => event,
      async poll(input: Hash, closure, tc) {
        const folder = toRubyString(hashGet(input, 'folder') ?? hashGet(input, 'folder_id') ?? '').trim();
        if (folder !== '' && !FOLDER_ID.test(folder))
          throw new StepError('Bad request', `folder ${JSON.stringify(folder.slice(0, 60))} is not a Drive folder ID`);
        const state = closureOf(closure);
        const after = typeof state.after === 'string' ? state.after : startOf(input, tc.ctx.clock.now()).toISOString();
        const q = [
          ...(folder !== '' ? [`'${folder}' in parents`] : []),
          `createdTime >= '${after}'`,
          'trashed = false',
        ].join(' and ');
        const session = await stepSession(tc, self());
        const list = (
          await session.request({
            method: 'GET',
            url: 'files',
            query: {
              q,
              orderBy: 'createdTime',
              pageSize: PAGE,
              fields: `nextPageToken,files(${FIELDS})`,
              supportsAllDrives: 'true',
              includeItemsFromAllDrives: 'true',
              ...(typeof state.page_token === 'string' ? { pageToken: state.page_token } : {}),
            },
          })
        ).body as { files?: DriveFile[]; nextPageToken?: unknown };
        const files = list.files ?? [];
        const stamps = files
          .map((f) => f.createdTime)
          .filter((s): s is string => typeof s === 'string' && !Number.isNaN(Date.parse(s)));
        const seenNewest = typeof state.newest === 'string' ? state.newest : after;
        const newest = stamps.reduce((a, b) => (Date.parse(b) > Date.parse(a) ? b : a), seenNewest);
        const more = typeof list.nextPageToken === 'string';
        return {
          events: files.map((f) => ({ event: fromPlain(f) as Hash, dedup: String(f.id) })),
          closure: more ? { after, page_token: list.nextPageToken, newest } : { after: newest },
          canPollMore: more,
        };
      },
    },
  };
}
