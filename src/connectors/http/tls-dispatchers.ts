// Dispatchers for requests with TLS settings of their own (a custom connector's `tls_client_cert`
// and `tls_server_certs`): one per distinct settings, built by the outbound policy (`tlsAgent`), so
// every address connected to is checked as for any other request. Kept per policy, the last
// TLS_DISPATCHERS_KEPT used, keyed by a SHA-256 of the PEM texts (never the texts themselves, and
// never logged); the oldest is closed when another is made.
import { createHash, createPrivateKey, X509Certificate } from 'node:crypto';
import { createSecureContext, rootCertificates, type SecureContextOptions } from 'node:tls';
import type { Agent } from 'undici';
import type { OutboundPolicy } from '../../outbound/policy.ts';
import { StepError } from '../step-error.ts';

/** TLS settings of one request (PEM texts). */
export interface RequestTls {
  clientCertificate?: { certificate: string; key: string; passphrase: string | null; intermediates: string[] };
  /** Certificates to trust; `strict`: only them, else beside the built-in roots. */
  serverCertificates?: { certificates: string[]; strict: boolean };
}

export const TLS_DISPATCHERS_KEPT = 32;

const kept = new WeakMap<object, Map<string, Agent>>();

function keyOf(tls: RequestTls): string {
  const client = tls.clientCertificate;
  const server = tls.serverCertificates;
  return createHash('sha256')
    .update(
      JSON.stringify([
        client?.certificate ?? null,
        client?.key ?? null,
        client?.passphrase ?? null,
        client?.intermediates ?? [],
        server?.certificates ?? null,
        server?.strict ?? null,
      ]),
    )
    .digest('hex');
}

/** The connect options of the settings, checked now: a PEM that does not load is a clear step error. */
function optionsOf(tls: RequestTls): SecureContextOptions {
  const options: SecureContextOptions = {};
  const client = tls.clientCertificate;
  if (client) {
    options.cert = [client.certificate, ...client.intermediates].join('\n');
    options.key = client.key;
    if (client.passphrase) options.passphrase = client.passphrase;
  }
  if (tls.serverCertificates)
    options.ca = tls.serverCertificates.strict
      ? tls.serverCertificates.certificates
      : [...rootCertificates, ...tls.serverCertificates.certificates];
  checkPem(tls);
  try {
    createSecureContext(options);
  } catch (error) {
    // OpenSSL's reason names what failed, never the PEM's content.
    const reason = (error as { reason?: string }).reason ?? (error as Error).message;
    throw new StepError('Bad request', `tls_client_cert: the key does not go with the certificate (${reason})`);
  }
  return options;
}

/** Each PEM read on its own, so the error says which one does not load. */
function checkPem(tls: RequestTls): void {
  const certificate = (pem: string, what: string) => {
    try {
      new X509Certificate(pem);
    } catch {
      throw new StepError('Bad request', `${what} is not a PEM certificate`);
    }
  };
  const client = tls.clientCertificate;
  if (client) {
    certificate(client.certificate, 'tls_client_cert: the certificate');
    client.intermediates.forEach((pem, i) => certificate(pem, `tls_client_cert: intermediate ${i + 1}`));
    try {
      createPrivateKey({
        key: client.key,
        format: 'pem',
        ...(client.passphrase ? { passphrase: client.passphrase } : {}),
      });
    } catch (error) {
      const code = (error as { code?: string }).code ?? '';
      throw new StepError(
        'Bad request',
        code === 'ERR_MISSING_PASSPHRASE'
          ? 'tls_client_cert: the key is encrypted and no passphrase was given'
          : 'tls_client_cert: the key is not a PEM private key, or the passphrase is wrong',
      );
    }
  }
  tls.serverCertificates?.certificates.forEach((pem, i) => certificate(pem, `tls_server_certs: certificate ${i + 1}`));
}

/** The dispatcher of these TLS settings under this policy (made once, reused while kept). */
export function tlsDispatcher(outbound: Pick<OutboundPolicy, 'tlsAgent'>, tls: RequestTls): Agent {
  let byKey = kept.get(outbound);
  if (!byKey) {
    byKey = new Map();
    kept.set(outbound, byKey);
  }
  const key = keyOf(tls);
  const found = byKey.get(key);
  if (found) {
    byKey.delete(key);
    byKey.set(key, found);
    return found;
  }
  const agent = outbound.tlsAgent(optionsOf(tls));
  byKey.set(key, agent);
  if (byKey.size > TLS_DISPATCHERS_KEPT) {
    const [oldestKey, oldest] = byKey.entries().next().value!;
    byKey.delete(oldestKey);
    // Requests still on it finish first.
    void oldest.close().catch(() => undefined);
  }
  return agent;
}

/** Closes the dispatchers kept for this policy (the policy is closed). */
export async function closeTlsDispatchers(outbound: Pick<OutboundPolicy, 'tlsAgent'>): Promise<void> {
  const byKey = kept.get(outbound);
  if (!byKey) return;
  kept.delete(outbound);
  await Promise.all([...byKey.values()].map((agent) => agent.close().catch(() => undefined)));
}

/** How many dispatchers are kept for this policy (tests). */
export function tlsDispatchersKept(outbound: Pick<OutboundPolicy, 'tlsAgent'>): number {
  return kept.get(outbound)?.size ?? 0;
}
