// File content as a job carries it: text when the bytes are UTF-8, base64 otherwise, said by
// `content_encoding` beside it (File tools, images).
import { StepError } from './types.ts';
import { isHash, toRubyString, type Value } from '../../recipe/formula/values.ts';

/** Content as a job carries it: text when the bytes are UTF-8, base64 otherwise. */
export function contentValue(bytes: Buffer): { content: string; encoding: 'utf-8' | 'base64' } {
  const text = bytes.toString('utf8');
  return Buffer.byteLength(text, 'utf8') === bytes.length && !text.includes('\uFFFD')
    ? { content: text, encoding: 'utf-8' }
    : { content: bytes.toString('base64'), encoding: 'base64' };
}

/** The bytes of a content value and its encoding (`base64`, or text in UTF-8 by default). */
export function contentBytes(content: Value, encoding: Value, what: string): Buffer {
  if (content === null) return Buffer.alloc(0);
  if (isHash(content) || Array.isArray(content)) throw new StepError('Bad request', `${what} must be text`);
  const text = toRubyString(content);
  const enc = encoding === null ? 'utf-8' : toRubyString(encoding).trim().toLowerCase();
  if (enc === 'base64') {
    if (!/^[A-Za-z0-9+/\s]*={0,2}\s*$/.test(text)) throw new StepError('Bad request', `${what} is not base64`);
    return Buffer.from(text, 'base64');
  }
  if (enc === '' || enc === 'utf-8' || enc === 'utf8' || enc === 'text') return Buffer.from(text, 'utf8');
  throw new StepError('Bad request', 'content_encoding must be utf-8 or base64');
}
