// json_parser: parse a JSON document into datapills (20 §10.1, D-json). Output under `document`.
import { StepError, type Connector } from './types.ts';
import { fromPlain, hashGet, MAX_EVENT_DEPTH, newHash } from '../../recipe/formula/values.ts';
import { jsonShape, MAX_EVENT_CONTAINERS } from '../../json-shape.ts';

const MAX_DOCUMENT = 5_000_000;

function parse(input: Parameters<Connector['actions'][string]['run']>[0]) {
  const document = hashGet(input, 'document');
  if (typeof document !== 'string') throw new StepError('Bad request', 'document must be JSON text');
  if (document.length > MAX_DOCUMENT)
    throw new StepError('Bad request', `document is longer than ${MAX_DOCUMENT} characters`);
  const shape = jsonShape(document);
  if (shape.depth > MAX_EVENT_DEPTH)
    throw new StepError('Bad request', `document is nested more than ${MAX_EVENT_DEPTH} levels deep`);
  if (shape.containers > MAX_EVENT_CONTAINERS)
    throw new StepError('Bad request', `document holds more than ${MAX_EVENT_CONTAINERS} objects and lists`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(document);
  } catch (error) {
    throw new StepError('Bad request', `document is not valid JSON: ${(error as Error).message}`);
  }
  return newHash([['document', fromPlain(parsed)]]);
}

export const jsonParser: Connector = {
  provider: 'json_parser',
  title: 'JSON tools',
  needsConnection: false,
  reachesOutside: false,
  triggers: {},
  actions: {
    parse_json_v2: {
      title: 'Parse JSON',
      required: [{ path: 'document', label: 'Document' }],
      run: (input) => parse(input),
    },
    parse_json: {
      title: 'Parse JSON (deprecated)',
      required: [{ path: 'document', label: 'Document' }],
      run: (input) => parse(input),
    },
  },
};
