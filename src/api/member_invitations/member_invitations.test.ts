import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { SMTPServer } from 'smtp-server';
import { createTestApp, type TestApp } from '../../../test/helpers.ts';
import { createLogger } from '../../logger.ts';
import { manualClock } from '../../time.ts';
import { countInvitations } from './member_invitations.store.ts';
import { listInvitations } from './member_invitations.service.ts';

const URL_PATH = '/api/member_invitations';
const clock = manualClock('2026-03-02T09:00:00.000Z');
const logLines: string[] = [];
const sink = new Writable({
  write(chunk, _enc, done) {
    logLines.push(...String(chunk).split('\n').filter(Boolean));
    done();
  },
});

let t: TestApp;
let noCollaborators: string;
before(async () => {
  t = await createTestApp({ clock, logger: createLogger('info', sink) });
  noCollaborators = await t.tokenWith('Roles only', ['collaborator_roles:read', 'collaborator_roles:write']);
});
after(() => t.close());

const invite = (body: unknown, token?: string) =>
  t.call('POST', URL_PATH, { body, ...(token !== undefined ? { token } : {}) });
const invitations = () => listInvitations(t.ctx, t.workspaceId);

describe('POST /api/member_invitations (no SMTP server configured)', () => {
  test('records a pending invitation with its role, answers {"result":"ok"} and logs it without the full address', async () => {
    const res = await invite({ name: 'Ana López', email: 'ana.lopez@example.com', role_name: 'Operator' });
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, { result: 'ok' });
    const recorded = (await invitations()).find((i) => i.email === 'ana.lopez@example.com');
    assert.ok(recorded);
    assert.equal(recorded.name, 'Ana López');
    assert.equal(recorded.status, 'pending');
    assert.equal(recorded.sent_at, null);
    assert.deepEqual(
      recorded.roles,
      ['dev', 'test', 'prod'].map((env) => ({
        environment_type: env,
        role_name: 'Operator',
        role_type: 'privilege_group',
      })),
    );
    const logged = logLines.map((l) => JSON.parse(l)).find((l) => l.invitation_id === recorded.id);
    assert.ok(logged, 'the pending invitation is logged');
    assert.match(logged.msg, /pending.*SMTP_URL/);
    assert.equal(logged.email, 'a***@example.com');
    assert.equal(logged.roles, 'Operator');
    assert.ok(!logLines.join('\n').includes('ana.lopez@example.com'));
  });

  test('roles: the system role Admin, custom roles in any case, env_roles (name or role_name) over role_name', async () => {
    assert.equal((await invite({ name: 'Root', email: 'root@example.com', role_name: 'admin' })).status, 200);
    assert.equal(
      (
        await invite({
          name: 'Mixed',
          email: 'mixed@example.com',
          role_name: 'analyst',
          env_roles: [
            { environment_type: 'PROD', name: 'Admin', role_type: 'privilege_group' },
            { environment_type: 'test', role_name: 'OPERATOR' },
          ],
        })
      ).status,
      200,
    );
    assert.equal(
      (
        await invite({
          name: 'Dev only',
          email: 'dev.only@example.com',
          env_roles: [{ environment_type: 'dev', name: 'Operator', role_type: 'environment' }],
        })
      ).status,
      200,
    );
    const all = await invitations();
    assert.deepEqual(
      all.find((i) => i.email === 'root@example.com')?.roles.map((r) => [r.environment_type, r.role_name, r.role_type]),
      [
        ['dev', 'Admin', 'system'],
        ['test', 'Admin', 'system'],
        ['prod', 'Admin', 'system'],
      ],
    );
    assert.deepEqual(
      all.find((i) => i.email === 'mixed@example.com')?.roles.map((r) => [r.environment_type, r.role_name]),
      [
        ['dev', 'Analyst'],
        ['test', 'Operator'],
        ['prod', 'Admin'],
      ],
    );
    assert.deepEqual(
      all.find((i) => i.email === 'dev.only@example.com')?.roles.map((r) => [r.environment_type, r.role_name]),
      [['dev', 'Operator']],
    );
  });

  test('a role copied through POST /api/roles/:role_id/copy can be used at once', async () => {
    const analyst = (await t.call('GET', '/api/roles')).body.find((r: { name: string }) => r.name === 'Analyst');
    assert.equal((await t.call('POST', `/api/roles/${analyst.id}/copy`, { body: { name: 'Auditor' } })).status, 200);
    assert.equal((await invite({ name: 'Audrey', email: 'audrey@example.com', role_name: 'Auditor' })).status, 200);
    assert.equal((await invitations()).find((i) => i.email === 'audrey@example.com')?.roles[0]?.role_name, 'Auditor');
  });

  test('one invitation per e-mail and workspace every 20 minutes: 429 with Retry-After, then renewed', async () => {
    assert.equal((await invite({ name: 'Bo', email: 'bo@example.com', role_name: 'Analyst' })).status, 200);
    const first = (await invitations()).find((i) => i.email === 'bo@example.com');
    clock.advance(5 * 60 * 1000);
    const again = await invite({ name: 'Bo', email: 'BO@Example.com', role_name: 'Operator' });
    assert.equal(again.status, 429);
    assert.deepEqual(again.body, { message: 'Invitation already sent recently' });
    assert.equal(again.headers['retry-after'], String(15 * 60));
    clock.advance(15 * 60 * 1000 - 1000);
    const almost = await invite({ name: 'Bo', email: 'bo@example.com', role_name: 'Operator' });
    assert.equal(almost.status, 429);
    assert.equal(almost.headers['retry-after'], '1');
    assert.deepEqual(
      (await invitations()).find((i) => i.email === 'bo@example.com'),
      first,
      'a refused repeat changes nothing',
    );
    clock.advance(1000);
    const renewed = await invite({ name: 'Bo Berg', email: 'bo@example.com', role_name: 'Operator' });
    assert.equal(renewed.status, 200);
    const after = (await invitations()).find((i) => i.email === 'bo@example.com');
    assert.equal(after?.id, first?.id, 'one invitation per address');
    assert.equal(after?.name, 'Bo Berg');
    assert.equal(after?.roles[0]?.role_name, 'Operator');
    assert.equal(after?.invited_at, clock.now().toISOString());
  });

  test('the 20-minute rule is per workspace', async () => {
    assert.equal((await invite({ name: 'Cy', email: 'cy@example.com', role_name: 'Analyst' })).status, 200);
    const other = await t.newWorkspace('Invites elsewhere');
    assert.equal(
      (await invite({ name: 'Cy', email: 'cy@example.com', role_name: 'Analyst' }, other.adminToken)).status,
      200,
    );
    assert.equal((await listInvitations(t.ctx, other.workspaceId)).length, 1);
  });

  test('an unknown role, bad env_roles and other bad input: a 400 naming the field, and nothing recorded', async () => {
    const before = await countInvitations(t.ctx.db, t.workspaceId);
    const cases: Array<[unknown, string]> = [
      [{ name: 'X', email: 'x@example.com', role_name: 'Superuser' }, 'role_name'],
      [{ name: 'X', email: 'x@example.com' }, 'role_name'],
      [{ name: 'X', email: 'x@example.com', role_name: '  ' }, 'role_name'],
      [{ name: 'X', email: 'x@example.com', role_name: null, env_roles: [] }, 'role_name'],
      [
        { name: 'X', email: 'x@example.com', env_roles: [{ environment_type: 'staging', name: 'Admin' }] },
        'env_roles.0.environment_type',
      ],
      [
        {
          name: 'X',
          email: 'x@example.com',
          env_roles: [
            { environment_type: 'dev', name: 'Admin' },
            { environment_type: 'DEV', name: 'Analyst' },
          ],
        },
        'env_roles.1.environment_type',
      ],
      [{ name: 'X', email: 'x@example.com', env_roles: [{ environment_type: 'dev' }] }, 'env_roles.0.name'],
      [
        { name: 'X', email: 'x@example.com', env_roles: [{ environment_type: 'dev', name: 'Ghost' }] },
        'env_roles.0.name',
      ],
      [
        {
          name: 'X',
          email: 'x@example.com',
          env_roles: [{ environment_type: 'dev', name: 'Admin', role_type: 'superuser' }],
        },
        'env_roles.0.role_type',
      ],
      [{ name: 'X', email: 'x@example.com', env_roles: { dev: 'Admin' } }, 'env_roles'],
      [{ name: 'X', email: 'x@example.com', role_name: 'Admin', user_group_ids: [7] }, 'user_group_ids'],
      [{ name: 'X', email: 'x@example.com', role_name: 'Admin', user_group_ids: ['abc'] }, 'user_group_ids.0'],
      [{ email: 'x@example.com', role_name: 'Admin' }, 'name'],
      [{ name: '  ', email: 'x@example.com', role_name: 'Admin' }, 'name'],
      [{ name: 'Line\nbreak', email: 'x@example.com', role_name: 'Admin' }, 'name'],
      [{ name: 'x'.repeat(256), email: 'x@example.com', role_name: 'Admin' }, 'name'],
      [{ name: 42, email: 'x@example.com', role_name: 'Admin' }, 'name'],
      [{ name: 'X', role_name: 'Admin' }, 'email'],
      [{ name: 'X', email: 'not-an-email', role_name: 'Admin' }, 'email'],
      [{ name: 'X', email: 'x@localhost', role_name: 'Admin' }, 'email'],
      [{ name: 'X', email: 'x@example.com\r\nBcc: all@example.com', role_name: 'Admin' }, 'email'],
      [{ name: 'X', email: `${'x'.repeat(250)}@example.com`, role_name: 'Admin' }, 'email'],
      [{ name: 'X', email: ['x@example.com'], role_name: 'Admin' }, 'email'],
      [{ name: 'X', email: 'x@example.com', role_name: 5 }, 'role_name'],
    ];
    for (const [body, field] of cases) {
      const res = await invite(body);
      assert.equal(res.status, 400, `${JSON.stringify(body).slice(0, 90)} -> ${res.status} ${res.text}`);
      assert.ok(res.body.errors?.[field], `errors names ${field}: ${res.text}`);
      assert.equal(typeof res.body.message, 'string');
    }
    assert.equal(
      (await t.call('POST', URL_PATH, { raw: '{"name": "X",', headers: { 'content-type': 'application/json' } }))
        .status,
      400,
    );
    assert.equal(
      (
        await t.call('POST', URL_PATH, {
          raw: 'name=X',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
        })
      ).status,
      415,
    );
    assert.equal(
      (await t.call('POST', URL_PATH, { raw: '', headers: { 'content-type': 'application/json' } })).status,
      400,
    );
    assert.equal(await countInvitations(t.ctx.db, t.workspaceId), before);
  });

  test('422 for the e-mail of a member of the workspace (any case); nothing recorded', async () => {
    const before = await countInvitations(t.ctx.db, t.workspaceId);
    const res = await invite({ name: 'Owner', email: 'Integrations@Example.com', role_name: 'Admin' });
    assert.equal(res.status, 422);
    assert.deepEqual(res.body, {
      message: 'Already a member of this workspace',
      errors: { email: ['is already a member of this workspace'] },
    });
    assert.equal(await countInvitations(t.ctx.db, t.workspaceId), before);
  });

  test('401 without a token; 403 without the collaborators privilege, and for clients outside dev', async () => {
    const before = await countInvitations(t.ctx.db, t.workspaceId);
    const body = { name: 'Dana', email: 'dana@example.com', role_name: 'Analyst' };
    assert.equal((await invite(body, null as unknown as string)).status, 401);
    const forbidden = await invite(body, noCollaborators);
    assert.equal(forbidden.status, 403);
    assert.match(forbidden.body.message, /collaborators:write/);
    for (const env of ['test', 'prod'] as const) {
      const res = await invite(body, await t.tokenFor('Admin', env));
      assert.equal(res.status, 403, env);
      assert.match(res.body.message, /dev environment/);
    }
    assert.equal(await countInvitations(t.ctx.db, t.workspaceId), before);
    assert.equal((await t.call('GET', URL_PATH)).status, 404, 'there is no list route');
  });
});

// ---------------------------------------------------------------------------------------------

interface Received {
  envelopeTo: string[];
  raw: string;
}

const SMTP_USER = 'switchboard-mailer';
const SMTP_PASSWORD = 'smtp-Pa55-word-that-must-stay-secret';

async function startSmtpServer(): Promise<{ port: number; received: Received[]; close(): Promise<void> }> {
  const received: Received[] = [];
  const server = new SMTPServer({
    secure: false,
    disabledCommands: ['STARTTLS'],
    allowInsecureAuth: true,
    logger: false,
    onAuth(auth, _session, callback) {
      if (auth.username === SMTP_USER && auth.password === SMTP_PASSWORD) return callback(null, { user: SMTP_USER });
      return callback(new Error('Invalid username or password'));
    },
    onRcptTo(address, _session, callback) {
      if (address.address.endsWith('@bounce.example.com'))
        return callback(Object.assign(new Error('Mailbox unavailable'), { responseCode: 550 }));
      return callback();
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        received.push({
          envelopeTo: session.envelope.rcptTo.map((r) => r.address),
          raw: Buffer.concat(chunks).toString('utf8'),
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  return { port, received, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

/** Headers and the decoded text body of a simple text/plain message. */
function parseMessage(raw: string): { headers: Record<string, string>; body: string } {
  const split = raw.indexOf('\r\n\r\n');
  const headerText = raw.slice(0, split).replace(/\r\n[ \t]+/g, ' ');
  const headers: Record<string, string> = {};
  for (const line of headerText.split('\r\n')) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
  }
  let body = raw.slice(split + 4);
  if (/quoted-printable/i.test(headers['content-transfer-encoding'] ?? '')) {
    body = Buffer.from(
      body
        .replace(/=\r\n/g, '')
        .replace(/=([0-9A-F]{2})/g, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16))),
      'latin1',
    ).toString('utf8');
  }
  return { headers, body: body.replace(/\r\n/g, '\n') };
}

describe('POST /api/member_invitations (SMTP server on loopback)', () => {
  let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
  let s: TestApp;
  const smtpLogs: string[] = [];
  const smtpSink = new Writable({
    write(chunk, _enc, done) {
      smtpLogs.push(...String(chunk).split('\n').filter(Boolean));
      done();
    },
  });

  before(async () => {
    smtp = await startSmtpServer();
    s = await createTestApp({
      logger: createLogger('trace', smtpSink),
      env: {
        SMTP_URL: `smtp://${SMTP_USER}:${SMTP_PASSWORD}@127.0.0.1:${smtp.port}`,
        SMTP_FROM: 'Acme Ops <ops@acme.example.com>',
        PUBLIC_BASE_URL: 'https://switchboard.acme.example.com',
      },
    });
  });
  after(async () => {
    await s.close();
    await smtp.close();
  });

  test('sends the invitation: recipient, sender, subject, role and the server link; recorded as sent', async () => {
    const res = await s.call('POST', URL_PATH, {
      body: { name: 'Eve Adams', email: 'eve@example.com', role_name: 'Operator' },
    });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body, { result: 'ok' });
    assert.equal(smtp.received.length, 1);
    const [mail] = smtp.received;
    assert.deepEqual(mail!.envelopeTo, ['eve@example.com']);
    const { headers, body } = parseMessage(mail!.raw);
    assert.equal(headers.to, 'Eve Adams <eve@example.com>');
    assert.equal(headers.from, 'Acme Ops <ops@acme.example.com>');
    assert.equal(headers.subject, 'You are invited to Acme Integrations on Switchboard');
    assert.match(body, /^Hello Eve Adams,/);
    assert.match(body, /workspace "Acme Integrations"/);
    assert.match(body, /^Your role: Operator$/m);
    assert.match(body, /^Switchboard: https:\/\/switchboard\.acme\.example\.com$/m);
    const recorded = (await listInvitations(s.ctx, s.workspaceId)).find((i) => i.email === 'eve@example.com');
    assert.equal(recorded?.status, 'sent');
    assert.ok(recorded?.sent_at);
    assert.equal(recorded?.delivery_error, null);
  });

  test('per-environment roles are listed by environment', async () => {
    const res = await s.call('POST', URL_PATH, {
      body: {
        name: 'Finn',
        email: 'finn@example.com',
        env_roles: [
          { environment_type: 'dev', name: 'Operator' },
          { environment_type: 'prod', name: 'Analyst' },
        ],
      },
    });
    assert.equal(res.status, 200, res.text);
    const { body } = parseMessage(smtp.received.at(-1)!.raw);
    assert.match(body, /Your roles:\n {2}Development: Operator\n {2}Production: Analyst\n/);
  });

  test('a refused recipient: 502, recorded as failed with the SMTP reply, and may be retried at once', async () => {
    const sent = smtp.received.length;
    const res = await s.call('POST', URL_PATH, {
      body: { name: 'Gil', email: 'gil@bounce.example.com', role_name: 'Analyst' },
    });
    assert.equal(res.status, 502);
    assert.deepEqual(res.body, { message: 'The invitation was recorded but the e-mail could not be sent; try again' });
    const failed = (await listInvitations(s.ctx, s.workspaceId)).find((i) => i.email === 'gil@bounce.example.com');
    assert.equal(failed?.status, 'failed');
    assert.match(failed?.delivery_error ?? '', /550/);
    const retry = await s.call('POST', URL_PATH, {
      body: { name: 'Gil', email: 'gil@bounce.example.com', role_name: 'Analyst' },
    });
    assert.equal(retry.status, 502, 'a failed e-mail does not start the 20-minute wait');
    assert.equal(smtp.received.length, sent);
    assert.ok(smtpLogs.some((l) => /could not be sent/.test(l) && l.includes('g***@bounce.example.com')));
  });

  test('an unreachable or refusing SMTP server is a 502, never a 500; the SMTP password never reaches the logs', async () => {
    const closed = await startSmtpServer();
    await closed.close();
    const unreachable = await createTestApp({
      logger: createLogger('trace', smtpSink),
      env: { SMTP_URL: `smtp://${SMTP_USER}:${SMTP_PASSWORD}@127.0.0.1:${closed.port}` },
    });
    const wrongPassword = await createTestApp({
      logger: createLogger('trace', smtpSink),
      env: { SMTP_URL: `smtp://${SMTP_USER}:wrong-${SMTP_PASSWORD}@127.0.0.1:${smtp.port}` },
    });
    try {
      const a = await unreachable.call('POST', URL_PATH, {
        body: { name: 'Hal', email: 'hal@example.com', role_name: 'Admin' },
      });
      assert.equal(a.status, 502);
      assert.match(
        (await listInvitations(unreachable.ctx, unreachable.workspaceId))[0]?.delivery_error ?? '',
        /ECONNREFUSED/,
      );
      const b = await wrongPassword.call('POST', URL_PATH, {
        body: { name: 'Ida', email: 'ida@example.com', role_name: 'Admin' },
      });
      assert.equal(b.status, 502);
      const stored = (await listInvitations(wrongPassword.ctx, wrongPassword.workspaceId))[0]?.delivery_error ?? '';
      assert.match(stored, /EAUTH/);
      assert.ok(!stored.includes(SMTP_PASSWORD));
    } finally {
      await unreachable.close();
      await wrongPassword.close();
    }
    assert.ok(smtpLogs.length > 0);
    assert.ok(!smtpLogs.join('\n').includes(SMTP_PASSWORD), 'the SMTP password reached the logs');
  });
});
