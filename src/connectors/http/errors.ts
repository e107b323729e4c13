// The message a service put in its error answer, in the shapes common APIs use; the body's start
// when none of them fits.
const MAX = 500;

export function serviceMessage(body: unknown, text: string): string {
  const found = messageIn(body, 0);
  if (found !== null) return found.slice(0, MAX);
  const plain = text.replace(/\s+/g, ' ').trim();
  return plain === '' ? '(no message)' : plain.slice(0, MAX);
}

function messageIn(value: unknown, depth: number): string | null {
  if (depth > 3 || value === null || value === undefined) return null;
  if (typeof value === 'string') return value.trim() === '' ? null : value;
  if (Array.isArray(value)) {
    const parts = value
      .slice(0, 5)
      .map((v) => messageIn(v, depth + 1))
      .filter((m): m is string => m !== null);
    return parts.length > 0 ? parts.join('; ') : null;
  }
  if (typeof value !== 'object') return null;
  const obj = value as Record<string, unknown>;
  // Fields that carry the human message, most specific first (Salesforce `message`, Stripe
  // `error.message`, OAuth `error_description`, Jira `errorMessages`, Slack `error`, SOAP-ish `fault`).
  for (const key of [
    'message',
    'error_description',
    'errorMessages',
    'detail',
    'error',
    'errors',
    'fault',
    'title',
    'description',
  ]) {
    if (!(key in obj)) continue;
    const inner = obj[key];
    if (typeof inner === 'object' && inner !== null && !Array.isArray(inner)) {
      const nested = messageIn(inner, depth + 1);
      if (nested !== null) return nested;
      continue;
    }
    const found = messageIn(inner, depth + 1);
    if (found !== null) return found;
  }
  return null;
}
