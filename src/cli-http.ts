// The command line's calls to a running server (switchboard deploy, switchboard test): JSON in
// and out with a developer API token; a refusal or an unreachable server is a CallRefused that
// names the call, the status and the server's message (never the token).

export class CallRefused extends Error {
  override name = 'CallRefused';
}

export async function callServer<T>(
  baseUrl: string,
  token: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<T> {
  let res: Response;
  try {
    res = await fetch(new URL(path, baseUrl), {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      signal: AbortSignal.timeout(30_000),
    });
  } catch (error) {
    throw new CallRefused(`cannot reach ${baseUrl}: ${(error as Error).message}`);
  }
  const text = await res.text();
  let parsed: Record<string, unknown> = {};
  try {
    parsed = text === '' ? {} : (JSON.parse(text) as Record<string, unknown>);
  } catch {
    parsed = { message: text.slice(0, 200) };
  }
  if (!res.ok)
    throw new CallRefused(
      `${method} ${path} answered ${res.status}: ${String(parsed.message ?? parsed.error ?? 'no message')}`,
    );
  return parsed as T;
}

/**
 * The pauses between a command's polls of something it waits for: 100 ms first, doubling up to
 * `maxMs`, so a build or a run that ends quickly is seen at once and a long one is not polled hard.
 */
export function pollPauses(maxMs: number): () => Promise<void> {
  let next = Math.min(100, maxMs);
  return async () => {
    const pause = next;
    next = Math.min(next * 2, maxMs);
    await new Promise((resolve) => setTimeout(resolve, pause));
  };
}
