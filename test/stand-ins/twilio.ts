// Twilio stand-in. Endpoints follow https://www.twilio.com/docs/usage/api:
// - Authentication: basic with the account SID and auth token
// - Fetch an account: https://www.twilio.com/docs/iam/api/account#fetch-an-account-resource
// - Create a message: https://www.twilio.com/docs/messaging/api/message-resource#create-a-message-resource (form-encoded To, From, Body)
// - Errors: {"code", "message", "more_info", "status"}
import type { ServiceFixture } from './fixture.ts';
import { basicIs } from './stand-in.ts';

const SID = 'AC0123456789abcdef0123456789abcdef';
const TOKEN = 'twilio-auth-token-0123';

export const twilio: ServiceFixture = {
  provider: 'twilio',
  spec: {
    name: 'twilio',
    origins: ['https://api.twilio.com'],
    authenticate: (req) =>
      basicIs(req, SID, TOKEN, {
        status: 401,
        json: {
          code: 20003,
          message: 'Authenticate',
          more_info: 'https://www.twilio.com/docs/errors/20003',
          status: 401,
        },
      }),
    routes: [
      {
        method: 'GET',
        path: `/2010-04-01/Accounts/${SID}.json`,
        reference: 'account#fetch-an-account-resource',
        answer: () => ({ json: { sid: SID, friendly_name: 'Acme', status: 'active' } }),
      },
      {
        method: 'POST',
        path: `/2010-04-01/Accounts/${SID}/Messages.json`,
        reference: 'message-resource#create-a-message-resource',
        answer: (req) => {
          if (!String(req.headers['content-type']).startsWith('application/x-www-form-urlencoded'))
            return { status: 400, json: { code: 20001, message: 'Unsupported content type', status: 400 } };
          const form = new URLSearchParams(req.body);
          if (!form.get('To'))
            return { status: 400, json: { code: 21604, message: "A 'To' phone number is required.", status: 400 } };
          return { status: 201, json: { sid: 'SM1', to: form.get('To'), body: form.get('Body'), status: 'queued' } };
        },
      },
    ],
  },
  input: { account_sid: SID, auth_token: TOKEN },
  oauth: false,
  adhoc: {
    input: {
      verb: 'post',
      path: 'Messages.json',
      input: { data: { To: '+15005550006', From: '+15005550001', Body: 'Hello' } },
    },
    check: (body) => {
      if ((body as { sid: string; body: string }).body !== 'Hello') throw new Error(JSON.stringify(body));
    },
  },
};
