// logger: writes a message to the job (its line's output) and the server log (20 §10.9).
import { StepError, type Connector } from './types.ts';
import { hashGet, newHash, toRubyString } from '../../recipe/formula/values.ts';

const MAX_MESSAGE = 10_000;

export const logger: Connector = {
  provider: 'logger',
  title: 'Logger',
  needsConnection: false,
  reachesOutside: false,
  triggers: {},
  actions: {
    log_message: {
      title: 'Log message',
      required: [{ path: 'message', label: 'Message' }],
      run(input, sc) {
        const message = toRubyString(hashGet(input, 'message'));
        if (message.length > MAX_MESSAGE)
          throw new StepError('Bad request', `message is longer than ${MAX_MESSAGE} characters`);
        sc.ctx.log.info({ recipe_id: sc.recipe.id, job_id: sc.jobHandle, user_log: true }, message);
        return newHash([['message', message]]);
      },
    },
  },
};
