// Marketo: OAuth 2.0 client credentials at the instance's identity endpoint
// (https://<munchkin id>.mktorest.com/identity/oauth/token); the REST API under .../rest/. Marketo
// answers 200 with `success: false` and `errors` for failures; codes 601 and 602 mean the token
// is invalid or expired. Test: the lead fields (v1/leads/describe.json).
import { saasConnector } from './service.ts';
import { field, secret, text } from './common.ts';
import { StepError } from '../step-error.ts';

function instance(values: Readonly<Record<string, string | number | boolean>>): string {
  const id = text(values, 'munchkin_id').toLowerCase();
  if (!/^[0-9]{3}-[a-z]{3}-[0-9]{3}$/.test(id))
    throw new StepError('Bad request', 'munchkin_id must look like 123-ABC-456');
  return `https://${id}.mktorest.com`;
}

function errorsOf(body: unknown): Array<{ code?: unknown; message?: unknown }> {
  if (typeof body !== 'object' || body === null || (body as { success?: unknown }).success !== false) return [];
  const errors = (body as { errors?: unknown }).errors;
  return Array.isArray(errors) ? errors : [{ message: 'Marketo answered success: false' }];
}

export const marketo = saasConnector({
  provider: 'marketo',
  title: 'Marketo',
  categories: ['Marketing'],
  connection: {
    fields: [
      field('munchkin_id', 'Munchkin ID', { hint: '123-ABC-456' }),
      field('client_id', 'Client ID'),
      secret('client_secret', 'Client secret'),
    ],
    auth: {
      type: 'oauth2_client_credentials',
      tokenUrl: (v) => `${instance(v)}/identity/oauth/token`,
      clientId: 'client_id',
      clientSecret: 'client_secret',
      clientAuth: 'body',
    },
    baseUrl: (state) => `${instance(state.values)}/rest/`,
    errorOf: (_status, body) => {
      const errors = errorsOf(body);
      return errors.length === 0
        ? null
        : errors.map((e) => `${String(e.code ?? '')} ${String(e.message ?? '')}`.trim()).join('; ');
    },
    unauthorized: (_status, body) => errorsOf(body).some((e) => e.code === '601' || e.code === '602'),
    test: (session) => session.request({ method: 'GET', url: 'v1/leads/describe.json' }),
  },
});
