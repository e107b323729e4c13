// A custom connector's requests with TLS settings of their own in recipe steps (contract 21 §3:
// `tls_client_cert(certificate:, key:, passphrase:, intermediates:)`, `tls_server_certs(certificates:,
// strict:)`): made by the Ruby runtime's request thread through a dispatcher of those settings,
// with the outbound policy's address checks. The stand-in is HTTPS on loopback with a certificate
// of a private CA made for this test (trusted only through `tls_server_certs`) and requires a client
// certificate of that CA. Certificates and keys are made in a temporary directory by the openssl
// command line (node:crypto makes keys but not certificates); nothing with a private key is committed.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createPrivateKey } from 'node:crypto';
import fs from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { TLSSocket } from 'node:tls';
import { after, before, describe, test } from 'node:test';
import { createTestApp, tempDir, type TestApp } from '../../test/helpers.ts';
import { action, fire, pill, webhookTrigger } from '../../test/recipes.ts';
import type { Agent } from 'undici';
import {
  closeTlsDispatchers,
  TLS_DISPATCHERS_KEPT,
  tlsDispatcher,
  tlsDispatchersKept,
} from './http/tls-dispatchers.ts';

const dir = tempDir('sb-connector-tls-');
const openssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
const read = (name: string) => fs.readFileSync(path.join(dir, name), 'utf8');

/** A private CA, a server certificate for 127.0.0.1 and a client certificate, all of that CA (one day). */
function makeCertificates() {
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  openssl(
    'req',
    '-x509',
    ...ec,
    '-keyout',
    'ca.key',
    '-out',
    'ca.crt',
    '-days',
    '1',
    '-subj',
    '/CN=Switchboard test CA',
  );
  fs.writeFileSync(path.join(dir, 'server.ext'), 'subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\n');
  fs.writeFileSync(path.join(dir, 'client.ext'), 'extendedKeyUsage=clientAuth\n');
  for (const [name, cn] of [
    ['server', '127.0.0.1'],
    ['client', 'switchboard-client'],
  ] as const) {
    openssl('req', ...ec, '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', `/CN=${cn}`);
    openssl(
      'x509',
      '-req',
      '-in',
      `${name}.csr`,
      '-CA',
      'ca.crt',
      '-CAkey',
      'ca.key',
      '-CAcreateserial',
      '-out',
      `${name}.crt`,
      '-days',
      '1',
      '-extfile',
      `${name}.ext`,
    );
  }
  const clientKey = read('client.key');
  return {
    ca: read('ca.crt'),
    serverKey: read('server.key'),
    serverCert: read('server.crt'),
    clientCert: read('client.crt'),
    clientKey,
    // The same key encrypted (PKCS#8, AES-256-CBC): read with its passphrase.
    clientKeyEncrypted: createPrivateKey(clientKey)
      .export({ type: 'pkcs8', format: 'pem', cipher: 'aes-256-cbc', passphrase: 'p4ss-phrase' })
      .toString(),
  };
}

// In the vendor's documented style: the certificates are connection fields, the request names them.
const CODE = `{
  title: 'Acme Bank',
  connection: {
    fields: [
      { name: 'base_url' },
      { name: 'client_cert', control_type: 'text-area' },
      { name: 'client_key', control_type: 'password' },
      { name: 'passphrase', control_type: 'password', optional: true },
      { name: 'server_ca', control_type: 'text-area' },
      { name: 'check', optional: true }
    ],
    authorization: { type: 'custom_auth' },
    base_uri: lambda { |connection| connection['base_url'] }
  },
  test: lambda do |connection|
    if connection['check'] == 'tls'
      get('/whoami')
        .tls_client_cert(certificate: connection['client_cert'], key: connection['client_key'],
                         passphrase: connection['passphrase'])
        .tls_server_certs(certificates: [connection['server_ca']], strict: true)
    else
      true
    end
  end,
  actions: {
    whoami: {
      title: 'Who am I',
      execute: lambda do |connection, _input|
        get('/whoami')
          .tls_client_cert(certificate: connection['client_cert'], key: connection['client_key'],
                           passphrase: connection['passphrase'])
          .tls_server_certs(certificates: [connection['server_ca']], strict: true)
      end
    },
    without_trust: {
      title: 'Without trusting the CA',
      execute: lambda do |connection, _input|
        get('/whoami').tls_client_cert(certificate: connection['client_cert'], key: connection['client_key'],
                                       passphrase: connection['passphrase'])
      end
    },
    without_certificate: {
      title: 'Without a client certificate',
      execute: lambda do |connection, _input|
        get('/whoami').tls_server_certs(certificates: [connection['server_ca']], strict: true)
      end
    },
    metadata: {
      title: 'Cloud metadata',
      execute: lambda do |connection, _input|
        get('https://169.254.169.254/latest/meta-data/')
          .tls_client_cert(certificate: connection['client_cert'], key: connection['client_key'])
      end
    }
  }
}
`;

describe('a custom connector request with TLS settings of its own, in a recipe step', () => {
  let t: TestApp;
  let server: Server;
  let url = '';
  let provider = '';
  let certs: ReturnType<typeof makeCertificates>;
  const seen: Array<string | null> = [];

  before(async () => {
    certs = makeCertificates();
    server = createServer(
      { key: certs.serverKey, cert: certs.serverCert, ca: certs.ca, requestCert: true, rejectUnauthorized: true },
      (req, res) => {
        const peer = (req.socket as TLSSocket).getPeerCertificate();
        seen.push(typeof peer.subject?.CN === 'string' ? peer.subject.CN : null);
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ client: peer.subject?.CN ?? null, path: req.url }));
      },
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
    t = await createTestApp();
    provider = await released(t);
  });
  after(async () => {
    await t.close();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  async function released(app: TestApp): Promise<string> {
    const made = await app.call('POST', '/api/custom_connectors', { body: { title: 'Acme Bank', code: CODE } });
    assert.equal(made.status, 200, made.text);
    assert.equal((await app.call('POST', `/api/custom_connectors/${made.body.data.id}/release`)).status, 200);
    return made.body.data.name as string;
  }

  async function run(actionName: string, input: Record<string, string>, app = t, as = provider) {
    const t = app;
    const provider = as;
    const connection = await t.call('POST', '/api/connections', {
      body: { name: `Bank ${actionName} ${seen.length}`, provider, input, shell_connection: false },
    });
    assert.equal(connection.status, 200, connection.text);
    assert.equal(connection.body.authorization_status, 'success', connection.text);
    const code = webhookTrigger([
      action(provider, actionName, 'call', {}),
      action('logger', 'log_message', 'said', { message: `client=${pill(provider, 'call', 'client')}` }),
    ]);
    const created = await t.call('POST', '/api/recipes', {
      body: {
        recipe: {
          name: `TLS ${actionName} ${seen.length}`,
          code: JSON.stringify(code),
          config: JSON.stringify([{ keyword: 'application', provider, account_id: connection.body.id }]),
        },
      },
    });
    assert.equal(created.status, 200, created.text);
    const id = created.body.id as number;
    const started = await t.call('PUT', `/api/recipes/${id}/start`);
    assert.deepEqual(started.body, { success: true }, started.text);
    const recipe = await t.call('GET', `/api/recipes/${id}`);
    return fire(t, new URL(recipe.body.webhook_url as string).pathname, {});
  }

  const connectionOf = (extra: Record<string, string> = {}) => ({
    base_url: url,
    client_cert: certs.clientCert,
    client_key: certs.clientKey,
    server_ca: certs.ca,
    ...extra,
  });

  test('a client certificate and a private CA trusted through tls_server_certs: the service sees the certificate', async () => {
    const job = await run('whoami', connectionOf());
    assert.equal(job.status, 'succeeded', job.error ?? '');
    assert.deepEqual(seen.at(-1), 'switchboard-client');
    // An encrypted key with its passphrase works the same (another dispatcher: other settings).
    const encrypted = await run(
      'whoami',
      connectionOf({ client_key: certs.clientKeyEncrypted, passphrase: 'p4ss-phrase' }),
    );
    assert.equal(encrypted.status, 'succeeded', encrypted.error ?? '');
    assert.equal(seen.length, 2);
  });

  test('without tls_server_certs the private CA is not trusted; without a client certificate the service refuses', async () => {
    const untrusted = await run('without_trust', connectionOf());
    assert.equal(untrusted.status, 'failed');
    assert.match(untrusted.error ?? '', /Acme Bank \(actions\.without_trust\.execute\)/);
    assert.match(untrusted.error ?? '', /certificate|CERT/i);
    const anonymous = await run('without_certificate', connectionOf());
    assert.equal(anonymous.status, 'failed');
    assert.match(anonymous.error ?? '', /Acme Bank \(actions\.without_certificate\.execute\)/);
    assert.equal(seen.length, 2, 'neither reached the service');
  });

  test('a key that is not PEM, or a wrong passphrase, is a clear step error naming the connector and the action; no PEM in it', async () => {
    const bad = await run(
      'whoami',
      connectionOf({ client_key: '-----BEGIN PRIVATE KEY-----\nnot a key\n-----END PRIVATE KEY-----' }),
    );
    assert.equal(bad.status, 'failed');
    assert.match(bad.error ?? '', /Acme Bank \(actions\.whoami\.execute\)/);
    assert.match(bad.error ?? '', /tls_client_cert: the key is not a PEM private key, or the passphrase is wrong/);
    const wrong = await run('whoami', connectionOf({ client_key: certs.clientKeyEncrypted, passphrase: 'wrong' }));
    assert.equal(wrong.status, 'failed');
    assert.match(wrong.error ?? '', /tls_client_cert: the key is not a PEM private key, or the passphrase is wrong/);
    const notCertificate = await run('whoami', connectionOf({ server_ca: 'not a certificate' }));
    assert.equal(notCertificate.status, 'failed');
    assert.match(
      notCertificate.error ?? '',
      /Acme Bank \(actions\.whoami\.execute\): tls_server_certs: certificate 1 is not a PEM certificate/,
    );
    for (const error of [bad.error ?? '', wrong.error ?? '']) {
      assert.ok(!error.includes('BEGIN'), error);
      assert.ok(!error.includes(certs.clientKey.split('\n')[1]!), error);
    }
  });

  test("a connection's test makes its TLS request the same way: authorized, or failed with the reason", async () => {
    const before = seen.length;
    const good = await t.call('POST', '/api/connections', {
      body: { name: 'Bank tested', provider, input: connectionOf({ check: 'tls' }), shell_connection: false },
    });
    assert.equal(good.status, 200, good.text);
    assert.equal(good.body.authorization_status, 'success', good.text);
    assert.equal(seen.length, before + 1);
    assert.equal(seen.at(-1), 'switchboard-client');
    const bad = await t.call('POST', '/api/connections', {
      body: {
        name: 'Bank tested badly',
        provider,
        input: connectionOf({ check: 'tls', client_cert: 'not a certificate' }),
        shell_connection: false,
      },
    });
    assert.equal(bad.status, 200, bad.text);
    assert.equal(bad.body.authorization_status, 'failed', bad.text);
    assert.match(bad.body.authorization_error, /tls_client_cert: the certificate is not a PEM certificate/);
    assert.equal(seen.length, before + 1);
  });

  test('one dispatcher per distinct TLS settings, the last 32 kept, the oldest closed', async () => {
    const made: Array<{ closed: boolean }> = [];
    const outbound = {
      tlsAgent: () => {
        const agent = { closed: false, close: async () => void (agent.closed = true) };
        made.push(agent);
        return agent as unknown as Agent;
      },
    };
    const settings = (i: number) => ({
      clientCertificate: {
        certificate: certs.clientCert,
        key: certs.clientKey,
        passphrase: `p${i}`,
        intermediates: [],
      },
    });
    const first = tlsDispatcher(outbound, settings(0));
    assert.equal(tlsDispatcher(outbound, settings(0)), first, 'the same settings share one');
    for (let i = 1; i <= TLS_DISPATCHERS_KEPT; i++) tlsDispatcher(outbound, settings(i));
    assert.equal(made.length, TLS_DISPATCHERS_KEPT + 1);
    assert.equal(tlsDispatchersKept(outbound), TLS_DISPATCHERS_KEPT);
    assert.equal(made[0]!.closed, true, 'the least recently used was closed');
    assert.equal(made.filter((a) => a.closed).length, 1);
    await closeTlsDispatchers(outbound);
    assert.equal(made.filter((a) => a.closed).length, TLS_DISPATCHERS_KEPT + 1);
    assert.equal(tlsDispatchersKept(outbound), 0);
  });

  test('the outbound policy still checks the address: a client certificate does not reach cloud metadata', async () => {
    const job = await run('metadata', connectionOf());
    assert.equal(job.status, 'failed');
    assert.match(job.error ?? '', /Acme Bank \(actions\.metadata\.execute\)/);
    assert.match(job.error ?? '', /link-local|metadata/);
  });

  test('a name resolving to a refused address is refused with a client certificate too (loopback not allowed)', async () => {
    const reached = seen.length;
    const strict = await createTestApp({ env: { OUTBOUND_ALLOW_LOOPBACK: 'false' } });
    try {
      const job = await run(
        'whoami',
        connectionOf({ base_url: url.replace('127.0.0.1', 'localhost') }),
        strict,
        await released(strict),
      );
      assert.equal(job.status, 'failed');
      assert.match(job.error ?? '', /Acme Bank \(actions\.whoami\.execute\)/);
      assert.match(job.error ?? '', /is refused: .*loopback/);
      assert.equal(seen.length, reached, 'the service was not reached');
    } finally {
      await strict.close();
    }
  });
});
