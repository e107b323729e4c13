// Dropbox stand-in. Endpoints follow the HTTP API v2 reference (https://www.dropbox.com/developers/documentation/http/documentation):
// - OAuth: /oauth2/authorize (www.dropbox.com) and /oauth2/token (api.dropboxapi.com), PKCE supported
// - users/get_current_account: POST without a body (a JSON body "null" is accepted too)
// - files/list_folder: POST with a JSON body
// - Errors: {"error_summary", "error": {".tag"}}
import type { ServiceFixture } from './fixture.ts';
import { bearerIssued, parseJson } from './stand-in.ts';

export const dropbox: ServiceFixture = {
  provider: 'dropbox',
  spec: {
    name: 'dropbox',
    origins: ['https://www.dropbox.com', 'https://api.dropboxapi.com', 'https://content.dropboxapi.com'],
    oauth: {
      authorizePath: '/oauth2/authorize',
      tokenPath: '/oauth2/token',
      reference: 'documentation#oauth2-token',
      clientAuth: 'either',
      pkce: 'optional',
    },
    authenticate: (req, standIn) =>
      bearerIssued(req, standIn, {
        status: 401,
        json: { error_summary: 'invalid_access_token/...', error: { '.tag': 'invalid_access_token' } },
      }),
    routes: [
      {
        method: 'POST',
        path: '/2/users/get_current_account',
        reference: 'documentation#users-get_current_account',
        answer: (req) =>
          req.body === '' || req.body === 'null'
            ? { json: { account_id: 'dbid:1', email: 'ana@example.com', name: { display_name: 'Ana' } } }
            : {
                status: 400,
                text: 'Error in call to API function "users/get_current_account": request body: could not decode input as JSON',
              },
      },
      {
        method: 'POST',
        path: '/2/files/list_folder',
        reference: 'documentation#files-list_folder',
        answer: (req) => {
          const body = parseJson(req) as { path?: string } | undefined;
          if (body?.path === undefined)
            return {
              status: 400,
              text: 'Error in call to API function "files/list_folder": request body: missing required field path',
            };
          return {
            json: {
              entries: [{ '.tag': 'file', name: 'report.pdf', path_lower: `${body.path}/report.pdf` }],
              cursor: 'c1',
              has_more: false,
            },
          };
        },
      },
    ],
  },
  input: {},
  oauth: true,
  adhoc: {
    input: { verb: 'post', path: 'files/list_folder', input: { data: { path: '/reports' } } },
    check: (body) => {
      if ((body as { entries: Array<{ path_lower: string }> }).entries[0]?.path_lower !== '/reports/report.pdf')
        throw new Error(JSON.stringify(body));
    },
  },
};
