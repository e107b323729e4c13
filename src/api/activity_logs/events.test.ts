// The README's list of events by route is the list the server records: a route added, removed or
// renamed without its line (or the reverse) fails here.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { describe, test } from 'node:test';
import { buildApp } from '../../app.ts';
import { loadConfig } from '../../config.ts';
import { createSecretBox } from '../../crypto/secret-box.ts';
import { openSqlite } from '../../db/index.ts';
import { createLogger } from '../../logger.ts';
import { changeOfRoute } from './events.ts';

interface RouteSeen {
  method: string | string[];
  url: string;
  config?: { privilege?: string; activity?: string };
}

async function eventLines(): Promise<string[]> {
  const db = openSqlite(':memory:');
  const lines: string[] = [];
  const app = await buildApp({
    config: loadConfig({ LOG_LEVEL: 'silent' }),
    database: { db, dialect: 'sqlite', location: ':memory:' },
    secretBox: createSecretBox(randomBytes(32)),
    logger: createLogger('silent'),
    onRoute: (route) => {
      const r = route as unknown as RouteSeen;
      for (const method of [r.method].flat()) {
        if (!r.url.startsWith('/api/') || r.config?.privilege === undefined) continue;
        if (method === 'GET' || method === 'HEAD') continue;
        const change = changeOfRoute(method, r.url);
        const event = change === null ? 'not recorded' : `\`${change.eventType}\``;
        const where = r.config.activity === 'in_service' ? ' (in the transaction of the change)' : '';
        lines.push(`| \`${method} ${r.url}\` | ${event}${where} |`);
      }
    },
  });
  await app.ready();
  await app.close();
  await db.destroy();
  return lines;
}

describe('activity log: events by route', () => {
  test("every route that changes something has its line in the area's README, and nothing else is listed", async () => {
    const readme = fs.readFileSync(new URL('./README.md', import.meta.url), 'utf8');
    const section = readme.slice(readme.indexOf('## Events by route'));
    const listed = section.split('\n').filter((l) => l.startsWith('| `'));
    const expected = await eventLines();
    assert.ok(expected.length > 50);
    assert.deepEqual([...listed].sort(), [...expected].sort());
    for (const line of expected) assert.match(line, /`[a-z_]+`|not recorded/);
  });
});
