// A connector's HTTP request as the Ruby asks for it (ruby/30-request.rb `send_once`) and the answer
// it reads: one reading of both, for the main thread's host (runtime.ts) and the request thread.

/** One HTTP request of a connector, as its code built it (authentication applied, URL absolute). */
export interface SdkHttpRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: Uint8Array | null;
  /** true: follow every redirect; false: give a 3xx back; null: follow for GET and HEAD only. */
  followRedirects: boolean | null;
  /** `tls_client_cert`: PEM texts. */
  clientCertificate?: { certificate: string; key: string; passphrase: string | null; intermediates: string[] };
  /** `tls_server_certs`: PEM certificates to trust (strict: only them). */
  serverCertificates?: { certificates: string[]; strict: boolean };
}

export interface SdkHttpResponse {
  status: number;
  headers: Record<string, string>;
  body: Uint8Array;
  /** The URL that answered, after redirects. */
  url: string;
}

/** The request of an `http` host op. */
export function sdkRequestOf(value: unknown): SdkHttpRequest {
  const r = (value ?? {}) as Record<string, unknown>;
  const request: SdkHttpRequest = {
    method: String(r.method ?? 'GET'),
    url: String(r.url ?? ''),
    headers: (r.headers ?? {}) as Record<string, string>,
    body: typeof r.body === 'string' ? Buffer.from(r.body, 'base64') : null,
    followRedirects: typeof r.follow_redirects === 'boolean' ? r.follow_redirects : null,
  };
  const tls = r.tls as Record<string, unknown> | undefined;
  if (tls)
    request.clientCertificate = {
      certificate: String(tls.certificate ?? ''),
      key: String(tls.key ?? ''),
      passphrase: typeof tls.passphrase === 'string' ? tls.passphrase : null,
      intermediates: Array.isArray(tls.intermediates) ? tls.intermediates.map(String) : [],
    };
  const server = r.tls_server as Record<string, unknown> | undefined;
  if (server)
    request.serverCertificates = {
      certificates: Array.isArray(server.certificates) ? server.certificates.map(String) : [],
      strict: server.strict !== false,
    };
  return request;
}

/** The answer the Ruby reads. */
export function httpAnswerOf(response: SdkHttpResponse): Record<string, unknown> {
  const body = response.body;
  return {
    status: response.status,
    headers: response.headers,
    body: Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('base64'),
    url: response.url,
  };
}
