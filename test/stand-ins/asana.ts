// Asana stand-in. Endpoints follow https://developers.asana.com/reference/:
// - OAuth: https://developers.asana.com/docs/oauth (app.asana.com/-/oauth_authorize and /-/oauth_token)
// - Get a user: https://developers.asana.com/reference/getuser (users/me)
// - Create a task: https://developers.asana.com/reference/createtask ({"data": {...}} in, {"data": {...}} out)
// - Errors: {"errors": [{"message", "help"}]}
import type { ServiceFixture } from './fixture.ts';
import { bearerIssued, parseJson } from './stand-in.ts';

export const asana: ServiceFixture = {
  provider: 'asana',
  spec: {
    name: 'asana',
    origins: ['https://app.asana.com'],
    oauth: {
      authorizePath: '/-/oauth_authorize',
      tokenPath: '/-/oauth_token',
      reference: 'https://developers.asana.com/docs/oauth',
      clientAuth: 'body',
      pkce: 'optional',
    },
    authenticate: (req, standIn) =>
      bearerIssued(req, standIn, { status: 401, json: { errors: [{ message: 'Not Authorized' }] } }),
    routes: [
      {
        method: 'GET',
        path: '/api/1.0/users/me',
        reference: 'getuser',
        answer: () => ({ json: { data: { gid: '12345', name: 'Ana', resource_type: 'user' } } }),
      },
      {
        method: 'POST',
        path: '/api/1.0/tasks',
        reference: 'createtask',
        answer: (req) => {
          const body = parseJson(req) as
            { data?: { name?: string; workspace?: string; projects?: string[] } } | undefined;
          if (!body?.data?.workspace && !body?.data?.projects)
            return {
              status: 400,
              json: { errors: [{ message: 'You should specify one of workspace, parent, projects' }] },
            };
          return { status: 201, json: { data: { gid: '1204', name: body.data.name, resource_type: 'task' } } };
        },
      },
    ],
  },
  input: {},
  oauth: true,
  adhoc: {
    input: { verb: 'post', path: 'tasks', input: { data: { data: { name: 'Call Ana', workspace: '1111' } } } },
    check: (body) => {
      if ((body as { data: { gid: string } }).data.gid !== '1204') throw new Error(JSON.stringify(body));
    },
  },
};
