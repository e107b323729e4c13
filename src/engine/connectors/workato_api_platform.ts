// workato_api_platform: an endpoint of an API collection backed by a recipe (20 §10.5, 03 §9).
// The gateway stores the call as a job and waits for it; `return_response` ends the job with the
// HTTP status and body the caller gets.
import { EndJob, StepError, type Connector } from './types.ts';
import { fromPlain, hashGet, isHash, newHash, toRubyString } from '../../recipe/formula/values.ts';

export const workatoApiPlatform: Connector = {
  provider: 'workato_api_platform',
  title: 'API Platform',
  needsConnection: false,
  reachesOutside: false,
  triggers: {
    receive_request: {
      title: 'new API request',
      kind: 'api_request',
      output(event) {
        return newHash([
          ['request', fromPlain(hashGet(event, 'request')) ?? newHash()],
          ['headers', fromPlain(hashGet(event, 'headers')) ?? newHash()],
          ['context', fromPlain(hashGet(event, 'context')) ?? newHash()],
        ]);
      },
      titleFields(event) {
        const request = hashGet(event, 'request');
        if (!isHash(request)) return [];
        return Object.keys(request)
          .filter((key) => {
            const v = request[key];
            return v !== null && typeof v !== 'object';
          })
          .slice(0, 3)
          .map((key) => [key, toRubyString(request[key] ?? null).slice(0, 100)]);
      },
    },
  },
  actions: {
    return_response: {
      title: 'Return response',
      required: [{ path: 'http_status_code', label: 'Response' }],
      run(input) {
        const code = Number(toRubyString(hashGet(input, 'http_status_code')));
        if (!Number.isInteger(code) || code < 100 || code > 599)
          throw new StepError(
            'Bad request',
            `http_status_code ${JSON.stringify(toRubyString(hashGet(input, 'http_status_code'))).slice(0, 20)} is not an HTTP status`,
          );
        const body = hashGet(input, 'response');
        throw new EndJob(
          'response',
          newHash([
            ['http_status_code', code],
            ['response', body ?? newHash()],
          ]),
        );
      },
    },
  },
};
