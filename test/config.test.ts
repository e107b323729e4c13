import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, test } from 'node:test';
import { CONFIG_VARIABLES, ConfigError, loadConfig } from '../src/config.ts';

describe('loadConfig', () => {
  test('defaults', () => {
    const c = loadConfig({});
    assert.equal(c.port, 3000);
    assert.equal(c.host, '127.0.0.1');
    assert.equal(c.dataDir, path.resolve('./data'));
    assert.equal(c.databaseUrl, undefined);
    assert.equal(c.logLevel, 'info');
    assert.equal(c.adminToken, undefined);
    assert.equal(c.publicBaseUrl, 'http://127.0.0.1:3000');
    assert.equal(c.publicAuthUrl, c.publicBaseUrl);
    assert.equal(c.publicEventStreamsUrl, c.publicBaseUrl);
    assert.equal(c.eventStreamsPort, undefined, 'one port serves everything');
    assert.equal(c.bodyLimitBytes, 1024 * 1024);
    assert.equal(c.recipeBodyLimitBytes, 32 * 1024 * 1024, 'exported recipes reach megabytes');
    assert.equal(c.smtpUrl, undefined);
    assert.equal(c.smtpFrom, 'Switchboard <switchboard@localhost>');
    assert.equal(c.lookupTableMaxRows, 1_000_000, "ten times the vendor's 100,000");
    assert.equal(c.jobBacklogPerRecipe, 500);
    assert.equal(c.jobBacklogPerWorkspace, 10_000, "the vendor's queue size");
    assert.equal(c.jobRetentionHours, 720, "the vendor's 30 days");
    assert.equal(c.jobsSweepIntervalMs, 60_000);
    assert.equal(c.pythonInterpreters, 3, 'two steps at once and a spare fit a small container');
    assert.deepEqual([c.imageWorkers, c.imageQueueMax], [2, 100]);
    assert.ok(Object.isFrozen(c));
  });

  test('reads and normalises settings', () => {
    const c = loadConfig({
      PORT: '8080',
      HOST: '0.0.0.0',
      LOG_LEVEL: 'DEBUG',
      PUBLIC_BASE_URL: 'https://sb.example.com/',
      PUBLIC_AUTH_URL: 'https://auth.example.com',
      SWITCHBOARD_ADMIN_TOKEN: 'x'.repeat(40),
    });
    assert.equal(c.port, 8080);
    assert.equal(c.logLevel, 'debug');
    assert.equal(c.publicBaseUrl, 'https://sb.example.com');
    assert.equal(c.publicAuthUrl, 'https://auth.example.com');
    assert.equal(c.publicEventStreamsUrl, 'https://sb.example.com');
    assert.equal(loadConfig({ HOST: '0.0.0.0' }).publicBaseUrl, 'http://localhost:3000');
    assert.equal(loadConfig({ LOOKUP_TABLE_MAX_ROWS: '2500000' }).lookupTableMaxRows, 2_500_000);
    assert.equal(loadConfig({ JOB_BACKLOG_PER_RECIPE: '50' }).jobBacklogPerRecipe, 50);
    assert.equal(loadConfig({ JOB_BACKLOG_PER_WORKSPACE: '200' }).jobBacklogPerWorkspace, 200);
    assert.equal(loadConfig({ JOB_RETENTION_HOURS: '2160' }).jobRetentionHours, 2160);
    assert.equal(loadConfig({ RECIPE_BODY_LIMIT_BYTES: '67108864' }).recipeBodyLimitBytes, 64 * 1024 * 1024);
    assert.equal(loadConfig({ PYTHON_INTERPRETERS: '1' }).pythonInterpreters, 1);
    assert.equal(loadConfig({ IMAGE_WORKERS: '4' }).imageWorkers, 4);
    assert.equal(loadConfig({ IMAGE_QUEUE_MAX: '0' }).imageQueueMax, 0, 'no waiting: busy threads refuse at once');
  });

  test('refuses invalid settings with a message naming the variable', () => {
    const bad: Array<Record<string, string>> = [
      { PORT: 'abc' },
      { PORT: '70000' },
      { LOG_LEVEL: 'loud' },
      { PUBLIC_BASE_URL: 'not a url' },
      { PUBLIC_AUTH_URL: 'ftp://x' },
      { SWITCHBOARD_ADMIN_TOKEN: 'short' },
      { SWITCHBOARD_ADMIN_TOKEN: `${'x'.repeat(20)} ${'y'.repeat(20)}` },
      { SQLITE_SYNCHRONOUS: 'OFF' },
      { TRUST_PROXY: 'maybe' },
      { LOOKUP_TABLE_MAX_ROWS: '0' },
      { LOOKUP_TABLE_MAX_ROWS: 'lots' },
      { JOB_BACKLOG_PER_RECIPE: '0' },
      { JOB_BACKLOG_PER_RECIPE: 'many' },
      { JOB_BACKLOG_PER_WORKSPACE: '0' },
      { JOB_BACKLOG_PER_WORKSPACE: '1.5' },
      { JOB_RETENTION_HOURS: '0' },
      { JOB_RETENTION_HOURS: 'forever' },
      { JOB_RETENTION_HOURS: '1.5' },
      { JOB_RETENTION_HOURS: '876001' },
      { JOBS_SWEEP_INTERVAL_MS: '5' },
      { JOBS_SWEEP_INTERVAL_MS: '1m' },
      { RECIPE_BODY_LIMIT_BYTES: '32MB' },
      { RECIPE_BODY_LIMIT_BYTES: '100' },
      { RECIPE_BODY_LIMIT_BYTES: String(256 * 1024 * 1024 + 1) },
      { PYTHON_INTERPRETERS: '0' },
      { PYTHON_INTERPRETERS: '65' },
      { IMAGE_WORKERS: '0' },
      { IMAGE_WORKERS: 'two' },
      { IMAGE_QUEUE_MAX: '100001' },
      { EVENT_STREAMS_PORT: '0' },
      { EVENT_STREAMS_PORT: '65536' },
      { EVENT_STREAMS_PORT: '40o1' },
      { EVENT_STREAMS_PORT: '-1' },
      { EVENT_STREAMS_PORT: '3000' },
      { EVENT_STREAMS_PORT: '8080', PORT: '8080' },
    ];
    for (const env of bad) {
      const name = Object.keys(env)[0]!;
      assert.throws(
        () => loadConfig(env),
        (e: unknown) => e instanceof ConfigError && e.message.includes(name),
        name,
      );
    }
  });

  test('EVENT_STREAMS_PORT: a listener of its own, advertised by default; PUBLIC_EVENT_STREAMS_URL still wins', () => {
    const c = loadConfig({ EVENT_STREAMS_PORT: ' 4001 ' });
    assert.equal(c.eventStreamsPort, 4001);
    assert.equal(c.publicEventStreamsUrl, 'http://127.0.0.1:4001');
    assert.equal(c.publicBaseUrl, 'http://127.0.0.1:3000');
    assert.equal(
      loadConfig({ EVENT_STREAMS_PORT: '4001', HOST: '0.0.0.0' }).publicEventStreamsUrl,
      'http://localhost:4001',
    );
    assert.equal(loadConfig({ EVENT_STREAMS_PORT: '4001', HOST: '::1' }).publicEventStreamsUrl, 'http://[::1]:4001');
    const proxied = loadConfig({ EVENT_STREAMS_PORT: '4001', PUBLIC_EVENT_STREAMS_URL: 'https://events.example.com/' });
    assert.equal(proxied.publicEventStreamsUrl, 'https://events.example.com');
    assert.equal(proxied.eventStreamsPort, 4001);
    assert.equal(loadConfig({ EVENT_STREAMS_PORT: '' }).eventStreamsPort, undefined, 'empty counts as unset');
    assert.throws(() => loadConfig({ EVENT_STREAMS_PORT: '3000' }), /EVENT_STREAMS_PORT must differ from PORT/);
  });

  test('SMTP settings: smtp:// or smtps:// URLs; a refused URL is never echoed (it may hold a password)', () => {
    assert.equal(
      loadConfig({ SMTP_URL: 'smtp://user:pw@mail.example.com:587' }).smtpUrl,
      'smtp://user:pw@mail.example.com:587',
    );
    assert.equal(loadConfig({ SMTP_URL: 'smtps://mail.example.com' }).smtpUrl, 'smtps://mail.example.com');
    assert.equal(loadConfig({ SMTP_FROM: 'Ops <ops@example.com>' }).smtpFrom, 'Ops <ops@example.com>');
    for (const value of ['https://user:hunter2@mail.example.com', 'mail.example.com:587', 'smtp://user:hunter2@']) {
      assert.throws(
        () => loadConfig({ SMTP_URL: value }),
        (e: unknown) => e instanceof ConfigError && e.message.includes('SMTP_URL') && !e.message.includes('hunter2'),
        value,
      );
    }
    assert.throws(
      () => loadConfig({ SMTP_FROM: 'nobody' }),
      (e: unknown) => e instanceof ConfigError && e.message.includes('SMTP_FROM'),
    );
  });
});

describe('settings are never secrets', () => {
  test('every variable loadConfig reads is listed in CONFIG_VARIABLES, so the env: secret provider never exposes it', () => {
    const read = new Set<string>();
    const env = new Proxy({} as Record<string, string | undefined>, {
      get(_target, name) {
        if (typeof name === 'string') read.add(name);
        return undefined;
      },
    });
    loadConfig(env);
    assert.ok(read.size > 10, `loadConfig read ${read.size} variables`);
    assert.deepEqual(
      [...read].filter((name) => !CONFIG_VARIABLES.includes(name)),
      [],
    );
  });
});
