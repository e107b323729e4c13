// BambooHR stand-in. Endpoints follow https://documentation.bamboohr.com/reference:
// - Authentication: https://documentation.bamboohr.com/docs/getting-started (basic, the API key as user name, any password)
// - Employee directory: GET /api/gateway.php/{companyDomain}/v1/employees/directory
// - Get employee: GET /api/gateway.php/{companyDomain}/v1/employees/{id}?fields=...
import type { ServiceFixture } from './fixture.ts';

const KEY = 'bamboo-key-0123456789';

export const bamboohr: ServiceFixture = {
  provider: 'bamboohr',
  spec: {
    name: 'bamboohr',
    origins: ['https://api.bamboohr.com'],
    authenticate: (req) => {
      const m = /^Basic (.+)$/.exec(String(req.headers.authorization ?? ''));
      const user = m
        ? Buffer.from(m[1] as string, 'base64')
            .toString('utf8')
            .split(':')[0]
        : '';
      return user === KEY ? null : { status: 401, text: '' };
    },
    routes: [
      {
        method: 'GET',
        path: '/api/gateway.php/acme/v1/employees/directory',
        reference: 'get-employees-directory',
        answer: () => ({ json: { employees: [{ id: '1', displayName: 'Ana' }] } }),
      },
      {
        method: 'GET',
        path: '/api/gateway.php/acme/v1/employees/1',
        reference: 'get-employee',
        answer: (req) => ({ json: { id: '1', firstName: 'Ana', fields: req.query.get('fields') } }),
      },
    ],
  },
  input: { subdomain: 'acme', api_key: KEY },
  oauth: false,
  adhoc: {
    input: { verb: 'get', path: 'employees/1', input: { data: { fields: 'firstName,lastName' } } },
    check: (body) => {
      if ((body as { firstName: string }).firstName !== 'Ana') throw new Error(JSON.stringify(body));
    },
  },
};
