// Job handles: the vendor's shape, and no repeats across the refills of their random bytes.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { newJobHandle } from './queue.store.ts';

test('job handles have the vendor shape and do not repeat across refills of their random bytes', () => {
  // 4 KB of random bytes make 273 handles: 2,000 handles draw them eight times.
  const handles = Array.from({ length: 2_000 }, () => newJobHandle());
  for (const handle of handles) assert.match(handle, /^j-[A-Za-z0-9]{8}-[A-Za-z0-9]{7}$/);
  assert.equal(new Set(handles).size, handles.length);
  // Every character of the alphabet turns up: the bytes are random, not one value repeated.
  const characters = new Set(handles.map((handle) => handle.slice(2).replace('-', '')).join(''));
  assert.equal(characters.size, 62);
});
