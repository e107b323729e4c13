// What a JSON text will cost once parsed, read from the text itself in one pass without parsing
// it: how deep it nests (every walk over the parsed value recurses) and how many objects and lists
// it holds (each costs the heap tens of bytes, whatever it holds: `{},` is 3 bytes of text and
// about 60 once parsed).

export interface JsonShape {
  depth: number;
  containers: number;
}

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
