// A `ConnectorHost` that sends a connector's requests itself, for the command line (`switchboard
// connector exec`, like the vendor's gem: through the proxy the environment names, trusting extra
// CA certificates) and for tests. A server runs connectors through the shared transport instead.
import { readFileSync } from 'node:fs';
import { rootCertificates } from 'node:tls';
import type { Dispatcher } from 'undici';
import type { OutboundPolicy } from '../../outbound/policy.ts';
import { SdkHttpError, type ConnectorHost, type SdkHttpRequest, type SdkHttpResponse } from './runtime.ts';
import { undici } from '../../outbound/undici.ts';

export interface DirectHostOptions {
  /** HTTP_PROXY / HTTPS_PROXY / NO_PROXY, as the environment gives them. */
  proxy?: { http?: string; https?: string; noProxy?: string };
  /** Files of extra CA certificates to trust (SSL_CERT_FILE; Node reads NODE_EXTRA_CA_CERTS itself). */
  caFiles?: string[];
  timeoutMs?: number;
  maxResponseBytes?: number;
  /** Each request and response, secrets masked (`--verbose`). */
  trace?: (line: string) => void;
  /** Values never shown in the trace (the connection's secrets). */
  secrets?: string[];
  /**
   * The server's outbound policy (src/outbound/), for requests made for users (Ruby code steps):
   * its dispatcher checks every address connected to, `checkUrl` each URL before it is asked.
   */
  outbound?: Pick<OutboundPolicy, 'dispatcher' | 'checkUrl' | 'tlsAgent'>;
  accountProperties?: Record<string, string>;
  lookupTables?: Record<string, Array<Record<string, unknown>>>;
  onConnectionUpdate?: (settings: Record<string, unknown>) => Promise<void> | void;
}

const MAX_REDIRECTS = 10;
const SENSITIVE_HEADERS = /^(authorization|proxy-authorization|cookie|set-cookie|x-api-key|api-key|x-auth-token)$/i;

export function maskSecrets(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) if (secret.length >= 4) out = out.split(secret).join('[MASKED]');
  return out;
}

export function createDirectHost(options: DirectHostOptions = {}): ConnectorHost & { close(): Promise<void> } {
  const ca = (options.caFiles ?? []).flatMap((file) => {
    try {
      return [readFileSync(file, 'utf8')];
    } catch {
      return [];
    }
  });
  // Extra CA certificates are trusted beside the built-in ones, for the target and the proxy alike.
  const connect = ca.length ? { ca: [...rootCertificates, ...ca] } : {};
  const proxied = options.proxy && (options.proxy.http || options.proxy.https);
  const shared: Dispatcher = options.outbound
    ? options.outbound.dispatcher
    : proxied
      ? new (undici().EnvHttpProxyAgent)({
          ...(options.proxy?.http ? { httpProxy: options.proxy.http } : {}),
          ...(options.proxy?.https ? { httpsProxy: options.proxy.https } : {}),
          ...(options.proxy?.noProxy ? { noProxy: options.proxy.noProxy } : {}),
          connect,
          requestTls: connect,
          proxyTls: connect,
        })
      : new (undici().Agent)({ connect });
  const secrets = options.secrets ?? [];
  const trace = options.trace;
  const mask = (text: string) => maskSecrets(text, secrets);

  function dispatcherFor(req: SdkHttpRequest): { dispatcher: Dispatcher; own: boolean } {
    if (!req.clientCertificate && !req.serverCertificates) return { dispatcher: shared, own: false };
    const tls: Record<string, unknown> = { ...connect };
    if (req.clientCertificate) {
      tls.cert = [req.clientCertificate.certificate, ...req.clientCertificate.intermediates].join('\n');
      tls.key = req.clientCertificate.key;
      if (req.clientCertificate.passphrase) tls.passphrase = req.clientCertificate.passphrase;
    }
    if (req.serverCertificates)
      tls.ca = req.serverCertificates.strict
        ? req.serverCertificates.certificates
        : [...rootCertificates, ...ca, ...req.serverCertificates.certificates];
    // The outbound policy checks the address a client certificate's request connects to, as it does for every other.
    const dispatcher = options.outbound ? options.outbound.tlsAgent(tls) : new (undici().Agent)({ connect: tls });
    return { dispatcher, own: true };
  }

  async function once(
    req: SdkHttpRequest,
    url: string,
    method: string,
    body: Uint8Array | null,
    dispatcher: Dispatcher,
  ) {
    if (options.outbound) {
      try {
        options.outbound.checkUrl(new URL(url));
      } catch (error) {
        throw new SdkHttpError((error as Error).message);
      }
    }
    const response = await undici().request(url, {
      method: method as Dispatcher.HttpMethod,
      headers: req.headers,
      body: body ?? undefined,
      dispatcher,
      headersTimeout: options.timeoutMs ?? 60_000,
      bodyTimeout: options.timeoutMs ?? 60_000,
    });
    const limit = options.maxResponseBytes ?? 50 * 1024 * 1024;
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of response.body) {
      size += (chunk as Buffer).length;
      if (size > limit) {
        response.body.destroy();
        throw new SdkHttpError(`the answer is larger than ${limit} bytes`);
      }
      chunks.push(chunk as Buffer);
    }
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(response.headers))
      if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
    return { status: response.statusCode, headers, body: new Uint8Array(Buffer.concat(chunks)) };
  }

  return {
    async http(req) {
      const { dispatcher, own } = dispatcherFor(req);
      let url = req.url;
      let method = req.method;
      let body = req.body;
      try {
        for (let hop = 0; ; hop++) {
          if (trace) {
            trace(`--> ${method} ${mask(url)}`);
            for (const [k, v] of Object.entries(req.headers))
              trace(`    ${k}: ${SENSITIVE_HEADERS.test(k) ? '[MASKED]' : mask(v)}`);
            if (body?.length) trace(`    ${mask(Buffer.from(body).toString('utf8')).slice(0, 2000)}`);
          }
          const started = Date.now();
          const response = await once(req, url, method, body, dispatcher);
          if (trace) {
            trace(`<-- ${response.status} (${Date.now() - started} ms)`);
            for (const [k, v] of Object.entries(response.headers))
              trace(`    ${k}: ${SENSITIVE_HEADERS.test(k) ? '[MASKED]' : mask(v)}`);
            if (response.body.length) trace(`    ${mask(Buffer.from(response.body).toString('utf8')).slice(0, 2000)}`);
          }
          const location = response.headers.location;
          const follow = req.followRedirects ?? (method === 'GET' || method === 'HEAD');
          if (follow && location && [301, 302, 303, 307, 308].includes(response.status) && hop < MAX_REDIRECTS) {
            url = new URL(location, url).toString();
            if (
              response.status === 303 ||
              ((response.status === 301 || response.status === 302) && method === 'POST')
            ) {
              method = 'GET';
              body = null;
            }
            continue;
          }
          return { ...response, url } satisfies SdkHttpResponse;
        }
      } catch (error) {
        if (error instanceof SdkHttpError) throw error;
        const code = (error as { code?: string }).code ?? '';
        const timeout = /TIMEOUT/i.test(code);
        throw new SdkHttpError(
          `${method} ${mask(url)} failed: ${code ? `${code} ` : ''}${(error as Error).message}`.trim(),
          { timeout },
        );
      } finally {
        if (own) await dispatcher.close();
      }
    },
    async accountProperty(name) {
      return options.accountProperties?.[name] ?? null;
    },
    async lookup(table, conditions) {
      const rows = options.lookupTables?.[table] ?? [];
      return rows.find((row) => Object.entries(conditions).every(([k, v]) => String(row[k]) === String(v))) ?? null;
    },
    async connectionUpdated(settings) {
      await options.onConnectionUpdate?.(settings);
    },
    async close() {
      // The server's outbound dispatcher is the server's to close.
      if (!options.outbound) await shared.close();
    },
  };
}
