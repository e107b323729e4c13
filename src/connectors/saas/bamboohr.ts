// BambooHR: an API key as the basic user name (any password: `x`) on the company's gateway,
// https://api.bamboohr.com/api/gateway.php/<company>/v1/. Test: the employee directory.
import { saasConnector } from './service.ts';
import { field, secret, text } from './common.ts';
import { StepError } from '../step-error.ts';

export const bamboohr = saasConnector({
  provider: 'bamboohr',
  title: 'BambooHR',
  categories: ['HR'],
  connection: {
    fields: [
      field('subdomain', 'Company domain', { hint: 'yourcompany (for yourcompany.bamboohr.com)' }),
      secret('api_key', 'API key'),
    ],
    auth: { type: 'basic', username: 'api_key', password: { fixed: 'x' } },
    baseUrl: (state) => {
      const company = text(state.values, 'subdomain').toLowerCase();
      if (!/^[a-z0-9-]{1,63}$/.test(company))
        throw new StepError('Bad request', 'subdomain must be a BambooHR company domain');
      return `https://api.bamboohr.com/api/gateway.php/${company}/v1/`;
    },
    test: (session) => session.request({ method: 'GET', url: 'employees/directory' }),
  },
});
