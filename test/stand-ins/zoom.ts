// Zoom stand-in. Endpoints follow https://developers.zoom.us/docs/api/:
// - OAuth: https://developers.zoom.us/docs/integrations/oauth/ (zoom.us/oauth/authorize, zoom.us/oauth/token with basic client auth)
// - Get a user: https://developers.zoom.us/docs/api/users/#tag/users/GET/users/{userId} (me)
// - Create a meeting: https://developers.zoom.us/docs/api/meetings/#tag/meetings/POST/users/{userId}/meetings
// - Errors: {"code", "message"}
import type { ServiceFixture } from './fixture.ts';
import { bearerIssued, parseJson } from './stand-in.ts';

export const zoom: ServiceFixture = {
  provider: 'zoom',
  spec: {
    name: 'zoom',
    origins: ['https://zoom.us', 'https://api.zoom.us'],
    oauth: {
      authorizePath: '/oauth/authorize',
      tokenPath: '/oauth/token',
      reference: 'integrations/oauth',
      clientAuth: 'basic',
      pkce: 'optional',
    },
    authenticate: (req, standIn) =>
      bearerIssued(req, standIn, { status: 401, json: { code: 124, message: 'Invalid access token.' } }),
    routes: [
      {
        method: 'GET',
        path: '/v2/users/me',
        reference: 'users/GET/users/{userId}',
        answer: () => ({ json: { id: 'z1', email: 'ana@example.com', type: 2 } }),
      },
      {
        method: 'POST',
        path: '/v2/users/me/meetings',
        reference: 'meetings/POST/users/{userId}/meetings',
        answer: (req) => {
          const body = parseJson(req) as { topic?: string } | undefined;
          return body?.topic
            ? { status: 201, json: { id: 85746065, topic: body.topic, join_url: 'https://zoom.us/j/85746065' } }
            : { status: 400, json: { code: 300, message: 'Invalid request' } };
        },
      },
    ],
  },
  input: {},
  oauth: true,
  adhoc: {
    input: { verb: 'post', path: 'users/me/meetings', input: { data: { topic: 'Standup', type: 2 } } },
    check: (body) => {
      if ((body as { id: number }).id !== 85746065) throw new Error(JSON.stringify(body));
    },
  },
};
