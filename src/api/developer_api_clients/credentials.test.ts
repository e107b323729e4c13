import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { generateToken, hashToken, ipAllowed, parseIpAllowList, projectInScope } from '../../auth/credentials.ts';

describe('tokens', () => {
  test('are prefixed by environment, random, and hashed to 64 hex characters', () => {
    const a = generateToken('prod');
    assert.match(a, /^wrkprod-[0-9a-f]{64}$/);
    assert.notEqual(a, generateToken('prod'));
    assert.match(hashToken(a), /^[0-9a-f]{64}$/);
    assert.notEqual(hashToken(a), a);
  });
});

describe('IP allow lists', () => {
  test('parse arrays and strings, and report what is not an address or range', () => {
    assert.deepEqual(parseIpAllowList(['203.0.113.10', '198.51.100.0/24']), { value: '203.0.113.10,198.51.100.0/24' });
    assert.deepEqual(parseIpAllowList('10.0.0.1, 10.0.0.1  2001:db8::/32'), { value: '10.0.0.1,2001:db8::/32' });
    assert.deepEqual(parseIpAllowList(''), { value: '' });
    assert.deepEqual(parseIpAllowList(['1.2.3.4/33', 'host.example', '1.2.3.4/8/9']), {
      invalid: ['1.2.3.4/33', 'host.example', '1.2.3.4/8/9'],
    });
  });

  test('match addresses and ranges, IPv4-mapped IPv6 included; empty allows all', () => {
    assert.equal(ipAllowed('', '8.8.8.8'), true);
    assert.equal(ipAllowed('198.51.100.0/24', '198.51.100.77'), true);
    assert.equal(ipAllowed('198.51.100.0/24', '198.51.101.1'), false);
    assert.equal(ipAllowed('127.0.0.1', '::ffff:127.0.0.1'), true);
    assert.equal(ipAllowed('2001:db8::/32', '2001:db8::1'), true);
    assert.equal(ipAllowed('10.0.0.1', 'not-an-ip'), false);
  });
});

describe('projectInScope', () => {
  test('all_folders sees every project; otherwise only the listed project folders', () => {
    assert.equal(projectInScope({ allFolders: true, folderIds: [] }, 5), true);
    assert.equal(projectInScope({ allFolders: false, folderIds: [4, 5] }, 5), true);
    assert.equal(projectInScope({ allFolders: false, folderIds: [4] }, 5), false);
  });
});
