import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestApp, type TestApp } from '../../../test/helpers.ts';
import { goDecode, ptr, slice, struct } from '../../../test/go-decode.ts';
import { WK } from '../../../test/wk.ts';

let t: TestApp;
before(async () => {
  t = await createTestApp();
});
after(() => t.close());

// The fuller member object other clients read (contract 05 §6.2), with wk's fields.
const Member = struct({
  id: 'int',
  name: 'string',
  email: 'string',
  external_id: ptr('string'),
  time_zone: 'string',
  created_at: 'time',
  grant_type: 'string',
  roles: slice(struct({ environment_type: 'string', role_name: 'string' })),
  last_activity_log: ptr(struct({ id: 'int', event_type: 'string', created_at: 'time' })),
});
const MemberList = struct({ data: slice(Member), total: 'int' });

describe('GET /api/members', () => {
  test('the owner, then open invitations, as {"data": [...], "total": n}', async () => {
    for (const [name, email] of [
      ['Ana López', 'ana@example.com'],
      ['Bo Chen', 'bo@example.com'],
    ])
      assert.equal(
        (await t.call('POST', '/api/member_invitations', { body: { name, email, role_name: 'Operator' } })).status,
        200,
      );
    const res = await t.call('GET', '/api/members');
    assert.equal(res.status, 200, res.text);
    goDecode(res.body, MemberList);
    goDecode(res.body, struct({ data: slice(WK.WorkspaceUser) }));
    assert.equal(res.body.total, 3);
    const [owner, ana, bo] = res.body.data;
    assert.equal(owner.email, 'integrations@example.com');
    assert.equal(owner.grant_type, 'owner');
    assert.equal(owner.status, 'active');
    assert.equal(typeof owner.id, 'number');
    assert.deepEqual(owner.roles, [
      { environment_type: 'dev', role_name: 'Admin' },
      { environment_type: 'test', role_name: 'Admin' },
      { environment_type: 'prod', role_name: 'Admin' },
    ]);
    assert.equal(ana.name, 'Ana López');
    assert.equal(ana.id, null);
    assert.equal(ana.grant_type, 'invitation');
    assert.equal(ana.status, 'invited');
    assert.equal(ana.invitation.status, 'pending');
    assert.equal(typeof ana.invitation.id, 'number');
    assert.equal(ana.roles[0].role_name, 'Operator');
    assert.equal(bo.email, 'bo@example.com');
    // The owner's last activity is the workspace's latest change (clients act for the owner).
    assert.equal(owner.last_activity_log.event_type, 'member_invitation_created');
  });

  test('email filters on the exact address in any case; paging straddles members and invitations', async () => {
    const one = await t.call('GET', '/api/members?email=ANA@example.com');
    assert.deepEqual(
      one.body.data.map((m: { email: string }) => m.email),
      ['ana@example.com'],
    );
    assert.equal(one.body.total, 1);
    const owner = await t.call('GET', '/api/members?email=integrations@EXAMPLE.com');
    assert.equal(owner.body.data[0].grant_type, 'owner');
    assert.deepEqual((await t.call('GET', '/api/members?email=nobody@example.com')).body, { data: [], total: 0 });
    const page2 = await t.call('GET', '/api/members?per_page=2&page=2');
    assert.deepEqual(
      page2.body.data.map((m: { email: string }) => m.email),
      ['bo@example.com'],
    );
    assert.equal(page2.body.total, 3);
    const page1 = await t.call('GET', '/api/members?per_page=2');
    assert.deepEqual(
      page1.body.data.map((m: { email: string }) => m.email),
      ['integrations@example.com', 'ana@example.com'],
    );
  });

  test("another workspace's people are never listed", async () => {
    const other = await t.newWorkspace('Members Elsewhere');
    const res = await t.call('GET', '/api/members', { token: other.adminToken });
    assert.deepEqual(
      res.body.data.map((m: { email: string }) => m.email),
      ['members-elsewhere@example.com'],
    );
  });

  test('401 without a token; 403 without collaborators:read or outside the dev environment; bad input', async () => {
    assert.equal((await t.call('GET', '/api/members', { token: null })).status, 401);
    const noCollab = await t.tokenWith('No collaborators', ['tags:read']);
    assert.equal((await t.call('GET', '/api/members', { token: noCollab })).status, 403);
    const prod = await t.tokenFor('Admin', 'prod');
    const res = await t.call('GET', '/api/members', { token: prod });
    assert.equal(res.status, 403);
    assert.match(res.body.message, /dev environment/);
    assert.equal((await t.call('GET', `/api/members?email=${'a'.repeat(321)}`)).status, 400);
  });
});
