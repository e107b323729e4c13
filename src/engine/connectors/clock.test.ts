// Scheduler: schedule arithmetic (intervals, times of day in a zone, weekdays, days of month,
// cron across DST), and scheduled jobs end to end with a manual clock, across an engine restart.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Cron } from 'croner';
import { CronTimes, nextFireTime, scheduleOf, type Schedule } from './clock.ts';
import { fromPlain, type Hash } from '../../recipe/formula/values.ts';
import { createTestApp, type TestApp } from '../../../test/helpers.ts';
import { createRecipe, log, numbered, startRecipe, readJob } from '../../../test/recipes.ts';
import { manualClock } from '../../time.ts';
import { createEngine } from '../engine.ts';

function schedule(input: Record<string, unknown>): Schedule {
  const s = scheduleOf(fromPlain(input) as Hash);
  if (Array.isArray(s)) throw new Error(JSON.stringify(s));
  return s;
}
const at = (iso: string) => Date.parse(iso);
const iso = (ms: number) => new Date(ms).toISOString();

describe('clock schedules', () => {
  test('intervals: the first run at once (or at start_after), then every N units; a missed run happens once, now', () => {
    const s = schedule({ time_unit: 'minutes', trigger_every: '5' });
    const now = at('2026-01-15T10:00:00Z');
    assert.equal(iso(nextFireTime(s, now, null)), '2026-01-15T10:00:00.000Z');
    assert.equal(iso(nextFireTime(s, now, now)), '2026-01-15T10:05:00.000Z');
    assert.equal(iso(nextFireTime(s, at('2026-01-15T12:00:00Z'), now)), '2026-01-15T12:00:00.000Z');
    const later = schedule({ time_unit: 'hours', trigger_every: '2', start_after: '2026-01-16T00:00:00Z' });
    assert.equal(iso(nextFireTime(later, now, null)), '2026-01-16T00:00:00.000Z');
  });

  test('days at a time of day in a time zone', () => {
    const s = schedule({ time_unit: 'days', trigger_every: '1', trigger_at: '09:30', timezone: 'Europe/Paris' });
    assert.equal(iso(nextFireTime(s, at('2026-01-15T10:00:00Z'), null)), '2026-01-16T08:30:00.000Z');
    const every2 = schedule({ time_unit: 'days', trigger_every: '2', trigger_at: '09:30:00', timezone: 'UTC' });
    assert.equal(
      iso(nextFireTime(every2, at('2026-01-15T09:30:00.001Z'), at('2026-01-15T09:30:00Z'))),
      '2026-01-17T09:30:00.000Z',
    );
    const pm = schedule({ time_unit: 'days', trigger_at: '05:15 pm', timezone: 'UTC' });
    assert.equal(iso(nextFireTime(pm, at('2026-01-15T10:00:00Z'), null)), '2026-01-15T17:15:00.000Z');
  });

  test('weeks on given weekdays (1 = Monday) and months on given days (L = last)', () => {
    const weeks = schedule({ time_unit: 'weeks', days_of_week: '1,3', trigger_at: '08:00', timezone: 'UTC' });
    assert.equal(iso(nextFireTime(weeks, at('2026-01-15T10:00:00Z'), null)), '2026-01-19T08:00:00.000Z'); // Thursday -> Monday
    const months = schedule({ time_unit: 'months', days_of_month: 'L', trigger_at: '00:00', timezone: 'UTC' });
    assert.equal(iso(nextFireTime(months, at('2026-02-03T00:00:00Z'), null)), '2026-02-28T00:00:00.000Z');
  });

  test('cron expressions follow the zone across daylight saving time', () => {
    const s = schedule({ time_unit: 'custom', cron_expression: '0 9 * * *', timezone: 'America/New_York' });
    assert.equal(iso(nextFireTime(s, at('2026-03-06T12:00:00Z'), null)), '2026-03-06T14:00:00.000Z');
    assert.equal(iso(nextFireTime(s, at('2026-03-09T12:00:00Z'), null)), '2026-03-09T13:00:00.000Z');
  });

  test('a pattern shared by schedules answers from its last run as croner does, whatever order it is asked in', () => {
    const pattern = '30 9 * * 1-5';
    const zone = 'Europe/Paris';
    const shared = new CronTimes(pattern, zone);
    const fresh = (ms: number) => new Cron(pattern, { timezone: zone, paused: true }).nextRun(new Date(ms))?.getTime();
    const start = at('2026-03-27T06:00:00Z');
    // Forward, backward, on a run itself and a millisecond either side of it, across the change to summer time.
    const times = [0, 3_600_000, 4 * 86_400_000, 60_000, 2 * 86_400_000].map((d) => start + d);
    const run = fresh(start)!;
    times.push(run, run - 1, run + 1, start + 10 * 86_400_000, start + 1);
    for (const ms of times) assert.equal(shared.after(ms), fresh(ms), iso(ms));
  });

  test('bad inputs are named', () => {
    const problems = (input: Record<string, unknown>) => {
      const s = scheduleOf(fromPlain(input) as Hash);
      return Array.isArray(s) ? s.map((p) => p[3]) : [];
    };
    assert.deepEqual(problems({ time_unit: 'fortnights' }), ['time_unit']);
    assert.deepEqual(problems({ trigger_every: '0' }), ['trigger_every']);
    assert.deepEqual(problems({ timezone: 'Mars/Olympus' }), ['timezone']);
    assert.deepEqual(problems({ time_unit: 'days', trigger_at: '25:99' }), ['trigger_at']);
    assert.deepEqual(problems({ time_unit: 'custom', cron_expression: '* *' }), ['cron_expression']);
    assert.deepEqual(problems({ time_unit: 'custom', cron_expression: '99 * * * *' }), ['cron_expression']);
    assert.deepEqual(problems({ time_unit: 'weeks', days_of_week: '0,9', trigger_at: '08:00' }), ['days_of_week']);
    assert.deepEqual(problems({ start_after: 'tomorrow' }), ['start_after']);
  });
});

describe('scheduled recipes', () => {
  const clock = manualClock('2026-01-15T10:00:00.000Z');
  let t: TestApp;
  before(async () => {
    // The test fires the schedules as it moves the clock; the engine's own timer (real time) would race it.
    t = await createTestApp({ clock, engine: { scheduleTimer: false } });
  });
  after(() => t.close());

  const scheduled = (input: Record<string, unknown>) =>
    numbered({
      keyword: 'trigger',
      provider: 'clock',
      name: 'scheduled_event',
      as: 'tick',
      input,
      block: [
        log('note', `#{_dp('{"pill_type":"output","provider":"clock","line":"tick","path":["scheduled_time"]}')}`),
      ],
    });

  test('a running schedule makes one job per firing; stopping it stops the jobs; a restart resumes it', async () => {
    const id = await createRecipe(t, scheduled({ time_unit: 'minutes', trigger_every: '1', timezone: 'UTC' }));
    await startRecipe(t, id);
    assert.equal(await t.engine.runDueSchedules(), 1);
    await t.engine.idle();
    clock.advance(30_000);
    assert.equal(await t.engine.runDueSchedules(), 0);
    clock.advance(31_000);
    assert.equal(await t.engine.runDueSchedules(), 1);
    await t.engine.idle();
    const jobs = await t.call('GET', `/api/recipes/${id}/jobs`);
    assert.equal(jobs.body.job_succeeded_count, 2);
    assert.match(jobs.body.items[0].title, /^Scheduler: new scheduled event: Start time=2026-01-15T10:01:00.000Z$/);
    const latest = await readJob(t, jobs.body.items[0].flow_run_id);
    assert.deepEqual(latest.output(1), { message: '2026-01-15T10:01:00.000+00:00' });
    const recipe = await t.call('GET', `/api/recipes/${id}`);
    assert.deepEqual(recipe.body.trigger_closure, { last_fired_at: '2026-01-15T10:01:00.000Z' });

    // A second engine on the same database (a restart) picks the schedule up where it was.
    await t.engine.close(1000);
    const restarted = createEngine(t.ctx, { pollMs: 50, scheduleTimer: false });
    await restarted.start();
    assert.equal(await restarted.runDueSchedules(), 0);
    clock.advance(60_000);
    assert.equal(await restarted.runDueSchedules(), 1);
    await restarted.idle();
    assert.equal((await t.call('GET', `/api/recipes/${id}`)).body.job_succeeded_count, 3);

    await t.call('PUT', `/api/recipes/${id}/stop`);
    restarted.recipeStopped(id);
    clock.advance(600_000);
    assert.equal(await restarted.runDueSchedules(), 0);
    await restarted.close(1000);
  });
});

describe('POST /api/recipes/:id/poll_now and /reset_trigger', () => {
  const clock = manualClock('2026-03-01T08:00:00.000Z');
  let t: TestApp;
  before(async () => {
    t = await createTestApp({ clock, engine: { scheduleTimer: false } });
  });
  after(() => t.close());

  test('poll_now fires a running schedule at once without moving it; reset_trigger forgets its last firing; other triggers and states are refused', async () => {
    const code = numbered({
      keyword: 'trigger',
      provider: 'clock',
      name: 'scheduled_event',
      as: 'tick',
      input: { time_unit: 'hours', trigger_every: '1', timezone: 'UTC' },
      block: [log('note', 'tick')],
    });
    const id = await createRecipe(t, code);
    const stoppedPoll = await t.call('POST', `/api/recipes/${id}/poll_now`);
    assert.equal(stoppedPoll.status, 400);
    await startRecipe(t, id);
    assert.equal(await t.engine.runDueSchedules(), 1);
    await t.engine.idle();
    const closure = (await t.call('GET', `/api/recipes/${id}`)).body.trigger_closure;
    assert.deepEqual((await t.call('POST', `/api/recipes/${id}/poll_now`)).body, { success: true });
    await t.engine.idle();
    const jobs = await t.call('GET', `/api/recipes/${id}/jobs`);
    assert.equal(jobs.body.items.length, 2, 'one job more, at once');
    assert.deepEqual(
      (await t.call('GET', `/api/recipes/${id}`)).body.trigger_closure,
      closure,
      'the schedule did not move',
    );
    assert.equal(await t.engine.runDueSchedules(), 0, 'the next firing is still an hour away');

    assert.equal(
      (await t.call('POST', `/api/recipes/${id}/reset_trigger`)).status,
      400,
      'a running recipe is not reset',
    );
    await t.call('PUT', `/api/recipes/${id}/stop`);
    assert.deepEqual((await t.call('POST', `/api/recipes/${id}/reset_trigger`)).body, { success: true });
    assert.equal((await t.call('GET', `/api/recipes/${id}`)).body.trigger_closure, null);

    const hook = await createRecipe(
      t,
      numbered({ keyword: 'trigger', provider: 'workato_webhooks', name: 'new_event', as: 'h', input: {}, block: [] }),
    );
    const reset = await t.call('POST', `/api/recipes/${hook}/reset_trigger`);
    assert.equal(reset.status, 400);
    assert.equal(
      reset.body.message,
      'reset_trigger applies to scheduled, topic and polling triggers; this recipe is triggered by workato_webhooks',
    );
    await startRecipe(t, hook);
    const poll = await t.call('POST', `/api/recipes/${hook}/poll_now`);
    assert.equal(poll.status, 400);
    assert.equal(
      poll.body.message,
      'poll_now applies to scheduled and polling triggers; this recipe is triggered by workato_webhooks',
    );
    assert.equal((await t.call('POST', '/api/recipes/999999/poll_now')).status, 404);
    assert.equal((await t.call('POST', '/api/recipes/999999/reset_trigger')).status, 404);
  });
});

describe('scheduled recipes on two nodes sharing the database', () => {
  const clock = manualClock('2026-05-04T06:00:00.000Z');
  let t: TestApp;
  before(async () => {
    t = await createTestApp({ clock, engine: { scheduleTimer: false } });
  });
  after(() => t.close());

  test('each tick fires once whichever node fires it, and a recipe started on one node is armed on the other', async () => {
    const code = (note: string) =>
      numbered({
        keyword: 'trigger',
        provider: 'clock',
        name: 'scheduled_event',
        as: 'tick',
        input: { time_unit: 'minutes', trigger_every: '1', timezone: 'UTC' },
        block: [log('note', note)],
      });
    const first = await createRecipe(t, code('first'));
    await startRecipe(t, first);
    // A second engine on the same database and notifier: another node.
    const other = createEngine(t.ctx, { pollMs: 50, scheduleTimer: false });
    await other.start();
    // Started through the first node's API: the other node arms it from the notification.
    const second = await createRecipe(t, code('second'));
    await startRecipe(t, second);
    await new Promise((resolve) => setTimeout(resolve, 100));
    try {
      // Both nodes' timers fire too (the manual clock makes every firing due at once): whoever
      // fires a tick, it is fired once.
      for (let tick = 0; tick < 5; tick++) {
        await Promise.all([
          t.engine.runDueSchedules(),
          other.runDueSchedules(),
          t.engine.runDueSchedules(),
          other.runDueSchedules(),
        ]);
        clock.advance(60_000);
      }
      // The other node alone fires both recipes' ticks (the second was armed there by the notification).
      await t.engine.close(1000);
      await other.runDueSchedules();
      clock.advance(60_000);
      await other.runDueSchedules();
      await other.idle();
      for (const id of [first, second]) {
        const jobs = await t.call('GET', `/api/recipes/${id}/jobs`);
        const times = jobs.body.items.map((j: { title: string }) => j.title.replace(/.*Start time=/, '')).sort();
        assert.deepEqual(
          times,
          [0, 1, 2, 3, 4, 5, 6].map((m) => `2026-05-04T06:0${m}:00.000Z`),
          `recipe ${id}: one job per tick, none twice`,
        );
      }
    } finally {
      await other.close(1000);
    }
  });
});

describe('an interval schedule armed by nodes at different times', () => {
  const clock = manualClock('2026-06-01T09:00:00.000Z');
  let t: TestApp;
  before(async () => {
    t = await createTestApp({ clock, engine: { scheduleTimer: false } });
  });
  after(() => t.close());

  for (const [unit, every, step] of [
    ['minutes', '1', 60_000],
    ['hours', '2', 7_200_000],
  ] as const) {
    test(`every ${every} ${unit}: each node arms it from its own start, yet every tick fires once, at the stored firing's pace`, async () => {
      const code = numbered({
        keyword: 'trigger',
        provider: 'clock',
        name: 'scheduled_event',
        as: 'tick',
        input: { time_unit: unit, trigger_every: every, timezone: 'UTC' },
        block: [log('note', 'tick')],
      });
      const id = await createRecipe(t, code);
      const startedAt = clock.now().getTime();
      await startRecipe(t, id);
      // Two more nodes start a few seconds apart: each arms the schedule from its own start
      // time, before the first node has fired (the stored closure says "never fired").
      const nodes = [t.engine];
      try {
        for (const offset of [3_000, 4_000]) {
          clock.advance(offset);
          const node = createEngine(t.ctx, { pollMs: 50, scheduleTimer: false });
          await node.start();
          nodes.push(node);
        }
        // Three ticks and a bit, in steps of a tenth of the period: every node's timer fires at
        // each step, in turn (the first node's first firing comes first, as when it fires at once).
        clock.set(new Date(startedAt));
        for (let at = startedAt; at <= startedAt + 3.5 * step; at += step / 10) {
          clock.set(new Date(at));
          for (const node of nodes) await node.runDueSchedules();
        }
        for (const node of nodes) await node.idle();
        const jobs = await t.call('GET', `/api/recipes/${id}/jobs?per_page=100`);
        const times = jobs.body.items.map((j: { title: string }) => j.title.replace(/.*Start time=/, '')).sort();
        assert.deepEqual(
          times,
          [0, 1, 2, 3].map((n) => new Date(startedAt + n * step).toISOString()),
          'one job per tick, at the first firing and a period after each',
        );
      } finally {
        await t.call('PUT', `/api/recipes/${id}/stop`);
        for (const node of nodes.slice(1)) await node.close(1000);
      }
    });
  }
});
