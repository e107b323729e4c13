// What a connector's request looks like in the log: credentials masked wherever they may sit
// (headers, query parameters with a credential's name, and the connection's own secret values
// wherever they occur).
const CREDENTIAL_NAME = /auth|token|key|secret|password|passwd|signature|sig$|cookie|session|code_verifier|^code$/i;
const MASK = '[redacted]';

/** The text with every secret value replaced by the mask. */
export function maskSecrets(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) if (secret.length >= 4) out = out.split(secret).join(MASK);
  return out;
}

export function redactUrl(url: URL, secrets: readonly string[]): string {
  const copy = new URL(url.toString());
  if (copy.username !== '' || copy.password !== '') {
    copy.username = '';
    copy.password = '';
  }
  for (const name of [...new Set(copy.searchParams.keys())])
    if (CREDENTIAL_NAME.test(name)) copy.searchParams.set(name, MASK);
  return maskSecrets(copy.toString(), [...secrets, ...secrets.map(encodeURIComponent)]);
}

export function redactHeaders(
  headers: Readonly<Record<string, string>>,
  secrets: readonly string[],
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers))
    out[name] = CREDENTIAL_NAME.test(name) ? MASK : maskSecrets(value, secrets);
  return out;
}
