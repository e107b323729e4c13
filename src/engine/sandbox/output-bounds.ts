// What a code step may hand back to the server: its output is JSON text that the server parses on
// its event loop and keeps as the step's output, so it is held to an HTTP step's answer's size and
// to the objects and lists an event may hold, checked before it is parsed.
import { jsonShape, MAX_EVENT_CONTAINERS } from '../../json-shape.ts';

/** Largest output of a code step, as JSON text (an HTTP step's answer: 10 MiB). */
export const MAX_OUTPUT_CHARS = 10 * 1024 * 1024;

/** Why an output is refused; undefined when it is fine. */
export function outputProblem(json: string): string | undefined {
  if (json.length > MAX_OUTPUT_CHARS)
    return `the output is ${json.length} characters of JSON; at most ${MAX_OUTPUT_CHARS} are accepted`;
  const { containers } = jsonShape(json);
  if (containers > MAX_EVENT_CONTAINERS)
    return `the output holds ${containers} objects and lists; at most ${MAX_EVENT_CONTAINERS} are accepted`;
  return undefined;
}
