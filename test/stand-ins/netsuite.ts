// NetSuite stand-in. Endpoints follow the SuiteTalk REST Web Services guide:
// - Token-based authentication: OAuth 1.0 signatures with HMAC-SHA256 and the account id as realm
//   (https://docs.oracle.com/en/cloud/saas/netsuite/ns-online-help/section_1534941088.html)
// - Metadata catalog: GET /services/rest/record/v1/metadata-catalog
// - Get a record: GET /services/rest/record/v1/customer/{id}
// - Errors: {"type", "title", "status", "o:errorDetails": [{"detail", "o:errorCode"}]}
// The stand-in recomputes each signature from the request as the service does.
import { createHmac } from 'node:crypto';
import type { ServiceFixture } from './fixture.ts';
import type { StandInRequest } from './stand-in.ts';

const ACCOUNT = '1234567_SB1';
const HOST = 'https://1234567-sb1.suitetalk.api.netsuite.com';
const KEYS = {
  consumer_key: 'ck-0123',
  consumer_secret: 'cs-0123456789',
  token_id: 'tk-0123',
  token_secret: 'ts-0123456789',
};

const enc = (t: string) =>
  encodeURIComponent(t).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

function signatureValid(req: StandInRequest): boolean {
  const header = String(req.headers.authorization ?? '');
  if (!header.startsWith('OAuth ')) return false;
  const params = Object.fromEntries(
    [...header.slice(6).matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1] as string, decodeURIComponent(m[2] as string)]),
  );
  if (
    params.realm !== ACCOUNT ||
    params.oauth_consumer_key !== KEYS.consumer_key ||
    params.oauth_token !== KEYS.token_id
  )
    return false;
  if (params.oauth_signature_method !== 'HMAC-SHA256') return false;
  const all = [
    ...Object.entries(params).filter(([k]) => k.startsWith('oauth_') && k !== 'oauth_signature'),
    ...req.query.entries(),
  ]
    .map(([k, v]) => [enc(k), enc(v)] as const)
    .sort(([a, av], [b, bv]) => (a === b ? (av < bv ? -1 : 1) : a < b ? -1 : 1))
    .map(([k, v]) => `${k}=${v}`)
    .join('&');
  const base = [req.method, enc(`${HOST}${req.path}`), enc(all)].join('&');
  const expected = createHmac('sha256', `${enc(KEYS.consumer_secret)}&${enc(KEYS.token_secret)}`)
    .update(base)
    .digest('base64');
  return expected === params.oauth_signature;
}

export const netsuite: ServiceFixture = {
  provider: 'netsuite',
  spec: {
    name: 'netsuite',
    origins: [HOST],
    authenticate: (req) =>
      signatureValid(req)
        ? null
        : {
            status: 401,
            json: {
              type: 'https://www.rfc-editor.org/rfc/rfc9110.html#section-15.5.2',
              title: 'Unauthorized',
              status: 401,
              'o:errorDetails': [{ detail: 'Invalid login attempt.', 'o:errorCode': 'INVALID_LOGIN' }],
            },
          },
    routes: [
      {
        method: 'GET',
        path: '/services/rest/record/v1/metadata-catalog',
        reference: 'section_1545222128',
        answer: () => ({ json: { items: [{ name: 'customer' }] } }),
      },
      {
        method: 'GET',
        path: '/services/rest/record/v1/customer/107',
        reference: 'section_1545141395',
        answer: (req) => ({ json: { id: '107', companyName: 'Acme', fields: req.query.get('fields') } }),
      },
    ],
  },
  input: { account_id: ACCOUNT, ...KEYS },
  oauth: false,
  adhoc: {
    input: { verb: 'get', path: 'record/v1/customer/107', input: { data: { fields: 'companyName' } } },
    check: (body) => {
      const c = body as { companyName: string; fields: string };
      if (c.companyName !== 'Acme' || c.fields !== 'companyName') throw new Error(JSON.stringify(body));
    },
  },
};
