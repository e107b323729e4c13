// The Go-decoding check itself: it must fail where Go's encoding/json fails, or the CLI tests prove nothing.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { GO_ZERO_TIME, GoDecodeError, goDecode, ptr, slice, struct } from './go-decode.ts';

const Tag = struct({ handle: 'string', title: 'string', description: 'string', color: 'string' });
const Entry = struct({ id: 'int', when: 'time', at: ptr('time'), tags: slice(Tag) });

describe('goDecode (encoding/json as the vendor CLI decodes)', () => {
  test('fills what is sent, zero values for what is missing or null, ignores unknown keys', () => {
    assert.deepEqual(goDecode({ handle: 'tag-a', title: 'T', description: null, extra: [1] }, Tag), {
      handle: 'tag-a',
      title: 'T',
      description: '',
      color: '',
    });
    assert.deepEqual(goDecode({ id: 3, when: null }, Entry), { id: 3, when: GO_ZERO_TIME, at: null, tags: null });
  });

  test('a value of the wrong JSON type fails the whole decode, naming the path', () => {
    assert.throws(() => goDecode({ handle: 7 }, Tag), /cannot unmarshal number into string at \$\.handle/);
    assert.throws(() => goDecode({ id: '3' }, Entry), /cannot unmarshal string into int at \$\.id/);
    assert.throws(() => goDecode({ id: 1.5 }, Entry), GoDecodeError);
    assert.throws(() => goDecode({ tags: {} }, Entry), /into slice at \$\.tags/);
    assert.throws(() => goDecode({ tags: [{ title: false }] }, Entry), /\$\.tags\[0\]\.title/);
    assert.throws(() => goDecode([], Tag), /into struct/);
  });

  test('time fields take RFC 3339 only', () => {
    for (const ok of ['2025-03-04T10:11:12Z', '2025-03-04T10:11:12.345-08:00', '2025-03-04T10:11:12.345+00:00'])
      assert.equal(goDecode({ when: ok }, Entry) && ok, ok);
    for (const bad of ['2025-03-04 10:11:12', '2025-03-04', '2025-03-04T10:11:12', 'yesterday'])
      assert.throws(() => goDecode({ when: bad }, Entry), /RFC 3339/, bad);
  });

  test('a wrong wrapper does not fail, it empties', () => {
    const Wrapped = struct({ data: struct({ tags: slice(Tag) }) });
    assert.deepEqual(goDecode({ tags: [{ handle: 'tag-a' }] }, Wrapped), { data: { tags: null } });
    assert.throws(() => goDecode({ data: [] }, Wrapped), /into struct at \$\.data/);
  });
});
