// What a JSON text will cost once parsed, read from the text itself in one pass without parsing
// it: how deep it nests (every walk over the parsed value recurses) and how many objects and lists
// it holds (each costs the heap tens of bytes, whatever it holds: `{},` is 3 bytes of text and
// about 60 once parsed, more as a recipe value). Every parse of a text a user controls is measured
// first, so a few megabytes never become gigabytes.

export interface JsonShape {
  depth: number;
  containers: number;
}

/**
 * Most objects and lists a recipe event may hold once parsed: a webhook's or an API call's
 * payload, an HTTP step's JSON answer, a document a step or a formula parses (about 30 MB of heap).
 */
export const MAX_EVENT_CONTAINERS = 500_000;

export function jsonShape(text: string): JsonShape {
  let depth = 0;
  let max = 0;
  let containers = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92) i++;
      else if (c === 34) inString = false;
      continue;
    }
    if (c === 34) inString = true;
    else if (c === 123 || c === 91) {
      containers++;
      if (++depth > max) max = depth;
    } else if (c === 125 || c === 93) depth--;
  }
  return { depth: max, containers };
}
