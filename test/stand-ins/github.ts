// GitHub stand-in. Endpoints follow https://docs.github.com/en/rest:
// - OAuth apps: https://docs.github.com/en/apps/oauth-apps/building-oauth-apps/authorizing-oauth-apps (the token reply is
//   form-encoded unless the client sends Accept: application/json)
// - Get the authenticated user: https://docs.github.com/en/rest/users/users#get-the-authenticated-user
// - List repository issues: https://docs.github.com/en/rest/issues/issues#list-repository-issues
// - A request without a User-Agent is refused (https://docs.github.com/en/rest/using-the-rest-api/getting-started-with-the-rest-api#user-agent)
import type { ServiceFixture } from './fixture.ts';
import { bearerIssued, type StandInRequest } from './stand-in.ts';

const needsAgent = (req: StandInRequest) =>
  req.headers['user-agent']
    ? null
    : {
        status: 403,
        text: 'Request forbidden by administrative rules. Please make sure your request has a User-Agent header',
      };

export const github: ServiceFixture = {
  provider: 'github',
  spec: {
    name: 'github',
    origins: ['https://github.com', 'https://api.github.com'],
    oauth: {
      authorizePath: '/login/oauth/authorize',
      tokenPath: '/login/oauth/access_token',
      reference: 'authorizing-oauth-apps',
      clientAuth: 'body',
      pkce: 'optional',
      formUnlessJsonAccepted: true,
    },
    authenticate: (req, standIn) =>
      needsAgent(req) ??
      bearerIssued(req, standIn, {
        status: 401,
        json: { message: 'Bad credentials', documentation_url: 'https://docs.github.com/rest' },
      }),
    routes: [
      {
        method: 'GET',
        path: '/user',
        reference: 'users#get-the-authenticated-user',
        answer: () => ({ json: { login: 'ana', id: 1 } }),
      },
      {
        method: 'GET',
        path: '/repos/acme/ops/issues',
        reference: 'issues#list-repository-issues',
        answer: (req) => ({ json: [{ number: 7, title: 'Broken build', state: req.query.get('state') ?? 'open' }] }),
      },
    ],
  },
  input: {},
  oauth: true,
  adhoc: {
    input: { verb: 'get', path: 'repos/acme/ops/issues', input: { data: { state: 'open', per_page: '1' } } },
    check: (output) => {
      const issues = (output as { body: Array<{ number: number }> }).body;
      if (issues[0]?.number !== 7) throw new Error(JSON.stringify(output));
    },
  },
};
