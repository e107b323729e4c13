// Reading back the RFC 2822 messages the Gmail stand-in received.

export /** Headers and decoded body parts of a raw RFC 2822 message the Gmail stand-in received. */
function parseMime(raw: string): { headers: Record<string, string>; parts: string[]; bytes: Buffer[] } {
  const [head = '', ...rest] = raw.split('\r\n\r\n');
  const headers = Object.fromEntries(
    head.split('\r\n').map((l) => [l.slice(0, l.indexOf(':')), l.slice(l.indexOf(':') + 2)]),
  );
  const boundary = /boundary="([^"]+)"/.exec(headers['Content-Type'] ?? '')?.[1];
  const body = rest.join('\r\n\r\n');
  const sections = boundary ? body.split(`--${boundary}`).slice(1, -1) : [`${head}\r\n\r\n${body}`];
  const bytes = sections.map((s) => {
    const [partHead = '', ...partBody] = s.replace(/^\r\n/, '').split('\r\n\r\n');
    const text = partBody.join('\r\n\r\n').replace(/\s+/g, '');
    return /base64/i.test(partHead) ? Buffer.from(text, 'base64') : Buffer.from(text, 'utf8');
  });
  return { headers, parts: bytes.map((b) => b.toString('utf8')), bytes };
}
