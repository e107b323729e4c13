// Message ids (contract 13 §2, P): `<publish time, ms, 16 hex>-<sequence in the topic, 16 hex>`.
// The sequence orders the topic; the time is never earlier than the previous message's (the
// publisher keeps it monotonic), so ids also sort as plain strings. Clients treat them as opaque.

const MESSAGE_ID = /^([0-9a-f]{16})-([0-9a-f]{16})$/;

export function formatMessageId(publishedAtMs: number, seq: number): string {
  return `${publishedAtMs.toString(16).padStart(16, '0')}-${seq.toString(16).padStart(16, '0')}`;
}

export function parseMessageId(id: string): { publishedAtMs: number; seq: number } | null {
  const match = MESSAGE_ID.exec(id);
  if (!match) return null;
  const publishedAtMs = Number.parseInt(match[1] as string, 16);
  const seq = Number.parseInt(match[2] as string, 16);
  if (!Number.isSafeInteger(publishedAtMs) || !Number.isSafeInteger(seq) || seq < 1) return null;
  return { publishedAtMs, seq };
}
