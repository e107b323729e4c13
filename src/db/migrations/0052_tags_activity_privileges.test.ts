// Roles made before the tags and activity log privileges existed keep their meaning after 0052.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestApp, type TestApp } from '../../../test/helpers.ts';
import { dialectOf } from '../dialect.ts';
import { up } from './0052_tags_activity_privileges.ts';

let t: TestApp;
before(async () => {
  t = await createTestApp();
});
after(() => t.close());

const NEW = ['tags:read', 'tags:write', 'activity_logs:read', 'activity_logs:write'];

async function privilegesOf(name: string): Promise<string[]> {
  const row = await t.ctx.db
    .selectFrom('developer_api_client_roles')
    .select('privileges')
    .where('workspace_id', '=', t.workspaceId)
    .where('name', '=', name)
    .executeTakeFirstOrThrow();
  return JSON.parse(row.privileges) as string[];
}

async function setPrivileges(name: string, privileges: string[]): Promise<void> {
  await t.ctx.db
    .updateTable('developer_api_client_roles')
    .set({ privileges: JSON.stringify(privileges) })
    .where('workspace_id', '=', t.workspaceId)
    .where('name', '=', name)
    .execute();
}

describe('migration 0052_tags_activity_privileges', () => {
  test('a role with every privilege before gets the new ones; every read: the new reads; others: nothing', async () => {
    const admin = (await privilegesOf('Admin')).filter((p) => !NEW.includes(p));
    const reads = (await privilegesOf('Read only')).filter((p) => !NEW.includes(p));
    assert.ok(admin.length > reads.length);
    await setPrivileges('Admin', admin);
    await setPrivileges('Read only', reads);
    await t.tokenWith('Narrow', ['recipes:read']);
    await up(t.ctx.db as never, dialectOf(t.ctx.db));
    assert.deepEqual((await privilegesOf('Admin')).filter((p) => NEW.includes(p)).sort(), [...NEW].sort());
    assert.deepEqual((await privilegesOf('Read only')).filter((p) => NEW.includes(p)).sort(), [
      'activity_logs:read',
      'tags:read',
    ]);
    assert.deepEqual(await privilegesOf('Narrow'), ['recipes:read']);
    // Running it again changes nothing.
    const before = await privilegesOf('Admin');
    await up(t.ctx.db as never, dialectOf(t.ctx.db));
    assert.deepEqual(await privilegesOf('Admin'), before);
  });
});
