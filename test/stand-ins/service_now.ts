// ServiceNow stand-in. Endpoints follow the Table API reference:
// https://developer.servicenow.com/dev.do#!/reference/api/latest/rest/c_TableAPI (basic authentication;
// GET /api/now/table/{tableName} with sysparm_* parameters; {"result": [...]}; errors {"error": {"message", "detail"}, "status": "failure"})
import type { ServiceFixture } from './fixture.ts';
import { basicIs } from './stand-in.ts';

export const serviceNow: ServiceFixture = {
  provider: 'service_now',
  spec: {
    name: 'service_now',
    origins: ['https://acme.service-now.com'],
    authenticate: (req) =>
      basicIs(req, 'integration', 'sn-password-0123', {
        status: 401,
        json: {
          error: { message: 'User Not Authenticated', detail: 'Required to provide Auth information' },
          status: 'failure',
        },
      }),
    routes: [
      {
        method: 'GET',
        path: /^\/api\/now\/table\/(sys_user|incident)$/,
        reference: 'c_TableAPI',
        answer: (req) => ({
          json: {
            result: req.path.endsWith('incident')
              ? [
                  {
                    sys_id: 'inc-1',
                    number: 'INC0010001',
                    short_description: 'Printer',
                    query: req.query.get('sysparm_query'),
                  },
                ]
              : [{ sys_id: 'u-1', user_name: 'integration' }],
          },
        }),
      },
    ],
  },
  input: { instance_name: 'acme', auth_type: 'basic', username: 'integration', password: 'sn-password-0123' },
  oauth: false,
  adhoc: {
    input: {
      verb: 'get',
      path: 'table/incident',
      input: { data: { sysparm_query: 'active=true', sysparm_limit: '1' } },
    },
    check: (body) => {
      const r = (body as { result: Array<{ number: string; query: string }> }).result[0];
      if (r?.number !== 'INC0010001' || r.query !== 'active=true') throw new Error(JSON.stringify(body));
    },
  },
};
