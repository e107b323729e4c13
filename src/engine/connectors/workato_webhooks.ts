// workato_webhooks: a running recipe with this trigger has its own URL on the server,
// /webhooks/rest/<key>/<event name> (20 §10.3); each call there becomes one job. The HTTP side is
// src/engine/webhooks.routes.ts; this module says what the trigger outputs.
import type { Connector, TriggerDef } from './types.ts';
import { fromPlain, hashGet, isHash, newHash, toRubyString, type Hash } from '../../recipe/formula/values.ts';

const newEvent: TriggerDef = {
  title: 'new event',
  kind: 'webhook',
  output(event) {
    return newHash([
      ['headers', fromPlain(hashGet(event, 'headers'))],
      ['payload', fromPlain(hashGet(event, 'payload'))],
      ['query_params', fromPlain(hashGet(event, 'query_params'))],
      ['method', hashGet(event, 'method')],
      ['event_name', hashGet(event, 'event_name')],
    ]);
  },
  titleFields(event) {
    const payload = hashGet(event, 'payload');
    if (!isHash(payload)) return [];
    return Object.keys(payload)
      .filter((key) => {
        const v = payload[key];
        return v !== null && typeof v !== 'object';
      })
      .slice(0, 3)
      .map((key) => [key, toRubyString(payload[key] ?? null).slice(0, 100)]);
  },
};

/**
 * The older webhook trigger (`webhook_input`): the same URL and events as `new_event`; its
 * datapills named the payload's fields at the top of the step, so a JSON object payload's fields are
 * there too, beside `payload`, `headers`, ... (which win a clash).
 */
const webhookInput: TriggerDef = {
  ...newEvent,
  output(event) {
    const out = newEvent.output(event) as Hash;
    const payload = hashGet(out, 'payload');
    return isHash(payload) ? { ...payload, ...out } : out;
  },
};

export const workatoWebhooks: Connector = {
  provider: 'workato_webhooks',
  title: 'HTTP',
  needsConnection: false,
  reachesOutside: false,
  triggers: { new_event: newEvent, webhook_input: webhookInput },
  actions: {},
};
