// XML documents into datapills, as the vendor's Parse XML document reads them (D: features/
// parse-xml-action): "simple" (the default) gives a tree of tags, a repeated tag a list, keeping
// only the `type` attribute; "full" gives every tag as a list of objects, its text under
// `content!` and its attributes as `@name` (the vendor's connector SDK form). fast-xml-parser
// parses; a document type declaration is refused (no entities are expanded), and the size and
// the nesting are bounded before parsing.
import { XMLParser } from 'fast-xml-parser';
import { fromPlain, type Value } from '../../recipe/formula/values.ts';
import { StepError } from './types.ts';

export const MAX_XML_CHARS = 5_000_000;
const MAX_XML_DEPTH = 100;

/** How deeply the tags of a document nest, counted without parsing it (a bound, not a validation). */
function tagDepth(text: string): number {
  let depth = 0;
  let max = 0;
  for (let i = text.indexOf('<'); i !== -1; i = text.indexOf('<', i + 1)) {
    const next = text.charCodeAt(i + 1);
    if (next === 47 /* / */) depth--;
    else if (next !== 33 /* ! */ && next !== 63 /* ? */) {
      const end = text.indexOf('>', i);
      if (end === -1) break;
      if (text.charCodeAt(end - 1) !== 47) depth++;
      if (depth > max) max = depth;
      if (max > MAX_XML_DEPTH) return max;
    }
  }
  return max;
}

export function parseXml(document: string, mode: 'simple' | 'full'): Value {
  if (document.length > MAX_XML_CHARS)
    throw new StepError('Bad request', `the XML document is longer than ${MAX_XML_CHARS} characters`);
  if (/<!DOCTYPE/i.test(document))
    throw new StepError('XML error', 'a document type declaration (<!DOCTYPE) is not accepted');
  if (tagDepth(document) > MAX_XML_DEPTH)
    throw new StepError('XML error', `the XML document nests more than ${MAX_XML_DEPTH} levels deep`);
  const parser =
    mode === 'full'
      ? new XMLParser({
          ignoreAttributes: false,
          attributeNamePrefix: '@',
          textNodeName: 'content!',
          alwaysCreateTextNode: true,
          isArray: (_name, _path, _leaf, isAttribute) => !isAttribute,
          parseTagValue: false,
          parseAttributeValue: false,
          ignoreDeclaration: true,
          ignorePiTags: true,
          processEntities: true,
          htmlEntities: false,
        })
      : new XMLParser({
          ignoreAttributes: (name) => name !== 'type',
          attributeNamePrefix: '',
          textNodeName: 'content',
          parseTagValue: false,
          parseAttributeValue: false,
          ignoreDeclaration: true,
          ignorePiTags: true,
          processEntities: true,
          htmlEntities: false,
        });
  let parsed: unknown;
  try {
    parsed = parser.parse(document, true);
  } catch (error) {
    const detail = (error as { err?: { msg?: string; line?: number } }).err;
    const message = detail?.msg
      ? `${detail.msg}${detail.line ? ` (line ${detail.line})` : ''}`
      : (error as Error).message;
    throw new StepError('XML error', `the document is not valid XML: ${message.slice(0, 300)}`);
  }
  return fromPlain(parsed);
}
