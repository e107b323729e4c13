import assert from 'node:assert/strict';
import { test } from 'node:test';
import { manualClock } from '../time.ts';
import { createFailureLimiter } from './failure-limiter.ts';

test('limits each kind of key on its own, in fixed windows', () => {
  const clock = manualClock();
  const limiter = createFailureLimiter(clock, { limits: { id: 2, ip: 3 }, windowSeconds: 60 });
  limiter.recordFailure(['id:a', 'ip:1']);
  limiter.recordFailure(['id:a', 'ip:1']);
  assert.equal(limiter.retryAfter(['id:a', 'ip:1']), 60, 'id:a reached its limit');
  assert.equal(limiter.retryAfter(['id:b', 'ip:1']), 0, 'the address has one failure left');
  limiter.recordFailure(['id:b', 'ip:1']);
  assert.equal(limiter.retryAfter(['id:c', 'ip:1']), 60, 'the address reached its limit whatever the id');
  assert.equal(limiter.retryAfter(['id:c', 'ip:2']), 0);
  clock.advance(45_000);
  assert.equal(limiter.retryAfter(['id:a', 'ip:2']), 15);
  clock.advance(15_000);
  assert.equal(limiter.retryAfter(['id:a', 'ip:1']), 0, 'a new window forgives');
});

test('memory stays bounded under a flood of distinct keys', () => {
  const limiter = createFailureLimiter(manualClock(), { limits: { id: 1 }, windowSeconds: 60, maxKeys: 100 });
  for (let i = 0; i < 1000; i++) limiter.recordFailure([`id:${i}`]);
  assert.equal(limiter.retryAfter(['id:999']), 60);
  assert.equal(limiter.retryAfter(['id:0']), 0, 'the oldest entries were dropped');
});
