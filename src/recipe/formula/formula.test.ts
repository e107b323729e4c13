// The formula language: parser, operators, every method of the table, and the bounds.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parseFormula } from './parser.ts';
import { FormulaSyntaxError } from './lexer.ts';
import { Budget, type FormulaEnv } from './env.ts';
import { evaluate } from './interpreter.ts';
import { FormulaError } from './errors.ts';
import { METHODS } from './methods.ts';
import { fromPlain, newHash, toPlain, type Hash, type Value } from './values.ts';
import type { Pill } from '../datapills.ts';

const NOW = Date.parse('2026-01-15T10:00:00.000Z'); // 02:00 in Los Angeles

function env(pills: Record<string, unknown> = {}, lookup?: (table: string, criteria: Hash) => Hash | null): FormulaEnv {
  return {
    resolvePill: (p: Pill) =>
      p.type === 'output'
        ? fromPlain(
            p.path.reduce<unknown>(
              (v, k) =>
                typeof k === 'string' && v && typeof v === 'object' ? (v as Record<string, unknown>)[k] : null,
              pills[p.line],
            ),
          )
        : null,
    lookup: lookup ?? (() => null),
    now: () => NOW,
    timeZone: 'America/Los_Angeles',
    budget: new Budget(),
  };
}

function run(src: string, e: FormulaEnv = env()): unknown {
  return toPlain(evaluate(parseFormula(src), e));
}

const pill = (line: string, ...path: string[]) =>
  `_dp('${JSON.stringify({ pill_type: 'output', provider: 'p', line, path })}')`;

/** [formula, expected plain value]: one or more per method. */
const CASES: Array<[string, unknown]> = [
  // any value
  ["'x'.present?", true],
  ["''.present?", false],
  ['nil.present?', false],
  ['0.present?', true],
  ['[].present?', false],
  ["'  '.blank?", true],
  ["'a'.blank?", false],
  ['nil.blank?', true],
  ["''.presence", null],
  ["'a'.presence", 'a'],
  ['nil.nil?', true],
  ["'a'.nil?", false],
  ["''.empty?", true],
  ['[1].empty?', false],
  ['{}.empty?', true],
  ["'yes'.is_true?", true],
  ["'0'.is_true?", false],
  ['1.is_true?', true],
  ["'false'.is_not_true?", true],
  ['true.is_not_true?', false],
  ['12.to_s', '12'],
  ['1.5.to_s', '1.5'],
  ['2.0.to_s', '2.0'],
  ['nil.to_s', ''],
  ["[1,'a'].to_s", '[1,"a"]'],
  ["{ 'a' => [1, nil] }.to_json", '{"a":[1,null]}'],
  ["'x'.to_json", '"x"'],
  ["'12abc'.to_i", 12],
  ["'abc'.to_i", 0],
  ['3.9.to_i', 3],
  ['nil.to_i', 0],
  ["'-4'.to_i", -4],
  ["'2.5'.to_f", 2.5],
  ["'x'.to_f", 0],
  ['3.to_f / 2', 1.5],
  ['nil.to_a', []],
  ["{ 'a' => 1 }.to_a", [['a', 1]]],
  ["'héllo'.length", 5],
  ['[1,2].length', 2],
  ['{a: 1}.size', 1],
  ["'abc'.size", 3],
  ["'hello'[1]", 'e'],
  ["'hello'[1, 3]", 'ell'],
  ["'hello'[-1]", 'o'],
  ['[1,2,3][0]', 1],
  ['[1,2,3][-1]', 3],
  ['[1,2,3][5]', null],
  ["{ 'a' => 1 }['a']", 1],
  ['{ a: 1 }[:a]', 1],
  ["{ a: 1 }['zz']", null],
  ["'team'.include?('ea')", true],
  ['[1,2].include?(2)', true],
  ["{a: 1}.include?('a')", true],
  ["'team'.exclude?('z')", true],
  ['[1].exclude?(1)', false],
  ["'abc'.reverse", 'cba'],
  ['[1,2,3].reverse', [3, 2, 1]],
  ["'hello'.slice(1, 2)", 'el'],
  ["{ 'a' => 1, 'b' => 2, 'c' => 3 }.slice('a', 'c')", { a: 1, c: 3 }],
  [`'{"a":[1,2]}'.parse_json['a'].last`, 2],
  // strings
  ["'  a b  '.strip", 'a b'],
  ["'  a'.lstrip", 'a'],
  ["'a  '.rstrip", 'a'],
  ["'AbC'.downcase", 'abc'],
  ["'abc'.upcase", 'ABC'],
  ["'hELLO wORLD'.capitalize", 'Hello world'],
  ["'man from the_boondocks'.titleize", 'Man From The Boondocks'],
  ["'a-b-c'.gsub('-', '+')", 'a+b+c'],
  ["'a1b22'.gsub(/[0-9]+/, '#')", 'a#b#'],
  ["'John Smith'.gsub(/(\\w+) (\\w+)/, '\\\\2, \\\\1')", 'Smith, John'],
  ["'a-b-c'.sub('-', '+')", 'a+b-c'],
  ["'aXbX'.sub(/x/i, '_')", 'a_bX'],
  ["'a,b,,c,,'.split(',')", ['a', 'b', '', 'c']],
  ["' a  b '.split", ['a', 'b']],
  ["'a1b2'.split(/[0-9]/)", ['a', 'b']],
  ["'Hello'.starts_with?('He')", true],
  ["'Hello'.start_with?('x', 'H')", true],
  ["'Hello'.ends_with?('lo')", true],
  ["'Hello'.end_with?('x')", false],
  ["'abc123'.match?(/^[a-z]+\\d+$/)", true],
  ["'abc'.match?('b')", true],
  ["'2024-05'.match(/(\\d+)-(\\d+)/)", ['2024-05', '2024', '05']],
  ["'a1b22c333'.scan(/\\d+/)", ['1', '22', '333']],
  [
    "'k=v;x=y'.scan(/(\\w)=(\\w)/)",
    [
      ['k', 'v'],
      ['x', 'y'],
    ],
  ],
  ["'7'.rjust(3, '0')", '007'],
  ["'ab'.ljust(4, '.')", 'ab..'],
  ["'hello'.encode_base64", 'aGVsbG8='],
  ["'aGVsbG8='.decode_base64", 'hello'],
  ["'a?b'.encode_urlsafe_base64", 'YT9i'],
  ["'a b&c'.encode_url", 'a%20b%26c'],
  ["'a+b%26c'.decode_url", 'a b&c'],
  ["'abc'.encode_sha256.encode_hex", 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad'],
  ["'abc'.md5_hexdigest", '900150983cd24fb0d6963f7d28e17f72'],
  ["'abc'.sha256_hexdigest", 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad'],
  ["'(555) 123-4567'.to_phone", '555-123-4567'],
  ['1234567.891.to_currency', '$1,234,567.89'],
  ["'12.5'.to_currency(unit: '€', precision: 1)", '€12.5'],
  // numbers
  ['2.5.round', 3],
  ['-2.5.round', -3],
  ['3.14159.round(2)', 3.14],
  ['-4.abs', 4],
  ['4.2.ceil', 5],
  ['4.8.floor', 4],
  ['4.even?', true],
  ['3.odd?', true],
  ['0.zero?', true],
  ['2.positive?', true],
  ['-2.negative?', true],
  ['22.ordinalize', '22nd'],
  ['13.ordinalize', '13th'],
  // lists
  ['[1,2,3].first', 1],
  ['[1,2,3].first(2)', [1, 2]],
  ['[1,2,3].last', 3],
  ['[1,2,3].last(2)', [2, 3]],
  ['[].first', null],
  ['[1,2,3].take(2)', [1, 2]],
  ['[1,2,3].drop(1)', [2, 3]],
  ['[1,2,2].count', 3],
  ['[1,2,2].count(2)', 2],
  ['[1,2.5].sum', 3.5],
  ['[3,1,2].max', 3],
  ['[3,1,2].min', 1],
  ["['b','a'].sort", ['a', 'b']],
  ['[1,1,2].uniq', [1, 2]],
  ['[1,[2,[3]]].flatten', [1, 2, 3]],
  ['[1,[2,[3]]].flatten(1)', [1, 2, [3]]],
  ['[1,nil,2].compact', [1, 2]],
  ['{ a: nil, b: 1 }.compact', { b: 1 }],
  ['[1].concat([2],[3])', [1, 2, 3]],
  ['[5,6].index(6)', 1],
  ["'hello'.index('l')", 2],
  ['[5].index(9)', null],
  ["['a','b'].join('-')", 'a-b'],
  ["['a', nil, ' ', 'b '].smart_join(', ')", 'a, b'],
  ["[{'s' => 'CA', 'n' => 1}, {'s' => 'NY', 'n' => 5}].where('s': 'CA').pluck('n')", [1]],
  ["[{'n' => 1}, {'n' => 5}, {'n' => 9}].where('n >': 1, 'n <=': 5).pluck('n')", [5]],
  ["[{'s' => 'CA'}, {'s' => 'NY'}, {'s' => 'TX'}].where('s': ['CA', 'TX']).size", 2],
  ["[{'s' => 'CA'}, {'s' => 'NY'}].where('s !=': 'CA').first['s']", 'NY'],
  ["[{'a' => 1, 'b' => 2}].pluck('a', 'b')", [[1, 2]]],
  ["[{'name' => 'Ann', 'email' => 'a@x'}].format_map('%{name} <%{email}>')", ['Ann <a@x>']],
  ['[nil, false].any?', false],
  ['[nil, 1].any?', true],
  // hashes
  ['{ a: 1, b: 2 }.keys', ['a', 'b']],
  ['{ a: 1, b: 2 }.values', [1, 2]],
  ['{ a: 1, b: 2 }.except(:a)', { b: 2 }],
  ['{ a: 1 }.merge({ b: 2 }, { a: 3 })', { a: 3, b: 2 }],
  ["{ 'a' => { 'b' => [10, 20] } }.dig('a', 'b', 1)", 20],
  ["{ 'a' => nil }.dig('a', 'b')", null],
  ["{ a: 1 }.has_key?('a')", true],
  ["{ a: 1 }.key?('b')", false],
  ["{ 'q' => 'a b', 'n' => 1 }.to_param", 'n=1&q=a%20b'],
  // dates and times (now is 2026-01-15T02:00 in Los Angeles)
  ['now', '2026-01-15T02:00:00.000-08:00'],
  ['today', '2026-01-15'],
  ['now.to_date', '2026-01-15'],
  ["'03/05/2024'.to_date(format: 'MM/DD/YYYY')", '2024-03-05'],
  ["'2024-03-05T10:00:00Z'.to_date", '2024-03-05'],
  ["'2024-03-05T10:00:00+02:00'.to_time", '2024-03-05T08:00:00.000+00:00'],
  ["'05.03.2024 14:30'.to_time(format: 'DD.MM.YYYY HH:mm')", '2024-03-05T14:30:00.000+00:00'],
  ["'2024-03-05'.to_date.strftime('%d %b %Y (%A)')", '05 Mar 2024 (Tuesday)'],
  ["now.strftime('%Y-%m-%d %H:%M %z')", '2026-01-15 02:00 -0800'],
  ["now.in_time_zone('Europe/Paris')", '2026-01-15T11:00:00.000+01:00'],
  ["now.in_time_zone('UTC').beginning_of_day", '2026-01-15T00:00:00.000+00:00'],
  ['now.beginning_of_hour', '2026-01-15T02:00:00.000-08:00'],
  ['now.beginning_of_day', '2026-01-15T00:00:00.000-08:00'],
  ['today.beginning_of_week', '2026-01-12'],
  ['today.beginning_of_month', '2026-01-01'],
  ['today.beginning_of_year', '2026-01-01'],
  ['now.end_of_day', '2026-01-15T23:59:59.999-08:00'],
  ['today.end_of_week', '2026-01-18'],
  ['today.end_of_month', '2026-01-31'],
  ['today.end_of_year', '2026-12-31'],
  ['today.wday', 4],
  ['today.yday', 15],
  ['today.year', 2026],
  ['today.month', 1],
  ['today.day', 15],
  ['now.hour', 2],
  ['now.min', 0],
  ['now.sec', 0],
  ['2.days.ago', '2026-01-13T02:00:00.000-08:00'],
  ['3.hours.from_now', '2026-01-15T05:00:00.000-08:00'],
  ['now + 30.minutes', '2026-01-15T02:30:00.000-08:00'],
  ['now - 1.second', '2026-01-15T01:59:59.000-08:00'],
  ['(today + 1.week).to_s', '2026-01-22'],
  ['today + 1.fortnight', '2026-01-29'],
  ["'2024-01-31'.to_date + 1.month", '2024-02-29'],
  ['today + 1.year', '2027-01-15'],
  ['today - 3', '2026-01-12'],
  ["today - '2026-01-01'.to_date", 14],
  ['today.next_day', '2026-01-16'],
  ['today.prev_day(2)', '2026-01-13'],
  ['today.next_month', '2026-02-15'],
  ['today.prev_month', '2025-12-15'],
  ['(now + 90.seconds).sec', 30],
  ['today + 2.fortnights', '2026-02-12'],
  ['today + 2.months', '2026-03-15'],
  ['today - 2.years', '2024-01-15'],
  ['now + 1.minute + 1.hour + 1.day', '2026-01-16T03:01:00.000-08:00'],
  ["'2024-03-10T12:00:00Z'.to_time.iso8601", '2024-03-10T12:00:00.000+00:00'],
  ['(now + 1.day).to_date.to_s', '2026-01-16'],
  ['1.month.from_now.to_date', '2026-02-15'],
  ['2.weeks.ago.to_date', '2026-01-01'],
];

describe('formula methods', () => {
  for (const [src, expected] of CASES) {
    test(src, () => assert.deepEqual(run(src), expected));
  }

  test('every method in the table has at least one case above', () => {
    const text = CASES.map(([src]) => src).join('\n');
    const untested = Object.keys(METHODS).filter(
      (name) => !text.includes(`.${name}`) && !(name === '[]' && text.includes('[')),
    );
    assert.deepEqual(untested, []);
  });
});

describe('formula operators and syntax', () => {
  const cases: Array<[string, unknown]> = [
    ['7 / 2', 3],
    ['-7 / 2', -4],
    ['7.0 / 2', 3.5],
    ['7 % 3', 1],
    ['-7 % 3', 2],
    ['2 ** 10', 1024],
    ['1 + 2 * 3', 7],
    ['(1 + 2) * 3', 9],
    ["'a' + 'b'", 'ab'],
    ["'ab' * 2", 'abab'],
    ['[1, 2] + [3]', [1, 2, 3]],
    ['[1, 2, 3] - [2]', [1, 3]],
    ["[1, 2] * ','", '1,2'],
    ['1 == 1.0', true],
    ["'a' != 'b'", true],
    ['2 > 1', true],
    ["'b' >= 'a'", true],
    ['1 <= 0', false],
    ['true && false', false],
    ['nil || 5', 5],
    ['!true', false],
    ['not true or true', true],
    ['false and true', false],
    ["1 > 2 ? 'yes' : 'no'", 'no'],
    ["nil.present? ? 1 : 'x'.upcase", 'X'],
    ["'abc' =~ /b/", 1],
    ["{ 'A' => 'x', b: 2 }['A']", 'x'],
    ["{ 'a' => 1 }['a'].to_s + 'z'", '1z'],
    ['nil&.upcase', null],
    ["'x'&.upcase", 'X'],
    ['[[1, 2], [3]].flatten.sum', 6],
    ["'2'.to_i + '3'.to_i", 5],
    ['1_000 + 1', 1001],
    ['1.5e2', 150],
    ['null', null],
    ['nil', null],
    ['uuid.length', 36],
    ['uuid().length', 36],
  ];
  for (const [src, expected] of cases) test(src, () => assert.deepEqual(run(src), expected));

  test('datapills resolve through the environment', () => {
    assert.equal(
      run(`'guest: ' + ${pill('trigger', 'request', 'email')}`, env({ trigger: { request: { email: 'a@b.c' } } })),
      'guest: a@b.c',
    );
    assert.equal(run(`${pill('trigger', 'missing')}.present? ? 1 : 2`, env({ trigger: {} })), 2);
    assert.equal(
      run("_('data.rest.abc.body.id')", {
        ...env(),
        resolvePill: (p) =>
          p.type === 'output' && p.line === 'abc' && p.provider === 'rest' ? JSON.stringify(p.path) : null,
      }),
      '["body","id"]',
    );
  });

  test('lookup() reads through the environment and answers nil on a miss', () => {
    const e = env({}, (table, criteria) =>
      table === 'Codes' && criteria.code === 'FR' ? newHash([['name', 'France']]) : null,
    );
    assert.equal(run("lookup('Codes', 'code': 'FR')['name']", e), 'France');
    assert.equal(run("lookup('Codes', code: 'XX')", e), null);
  });

  test('keyword values: skip and clear are instructions, not strings', () => {
    assert.equal(typeof evaluate(parseFormula('skip'), env()), 'symbol');
    assert.equal(typeof evaluate(parseFormula('clear'), env()), 'symbol');
  });
});

describe('formula errors', () => {
  const syntax: string[] = [
    '1 +',
    "'unterminated",
    'foo',
    '(1',
    '[1, 2',
    '"a#{1}"',
    '1 ? 2',
    '_dp(1)',
    "_dp('not json')",
    "_('nope')",
    'x.',
    '{ 1 }',
    '@',
  ];
  for (const src of syntax) {
    test(`syntax error: ${src}`, () => assert.throws(() => parseFormula(src), FormulaSyntaxError));
  }

  const runtime: Array<[string, RegExp]> = [
    ["'a' + 1", /no implicit conversion of Integer into String/],
    ['nil.upcase', /undefined method 'upcase' for nil/],
    ["'a'.bogus", /undefined method 'bogus'/],
    ['1 / 0', /divided by 0/],
    ['nil > 1', /comparison of nil with Integer failed/],
    ["'x'.to_date(format: 'YYYY')", /does not match the format/],
    ["'2024-02-30'.to_date", /invalid date/],
    ["'a'.in_time_zone('Mars/Base')", /cannot parse|unknown time zone/],
  ];
  for (const [src, message] of runtime) {
    test(`runtime error: ${src}`, () =>
      assert.throws(
        () => run(src),
        (e: Error) => e instanceof FormulaError && message.test(e.message),
      ));
  }
});

describe('formula bounds', () => {
  test('a string that would exceed the size limit fails before it is built', () => {
    assert.throws(() => run("'x' * 1000000000"), /string too long/);
    assert.throws(() => run("('x' * 4000000) + ('y' * 4000000)"), /string too long/);
    assert.throws(() => run('[1] * 100000000'), /list too long/);
  });

  test('a formula past its step budget stops', () => {
    const e = {
      ...env(),
      budget: new Budget({ maxSteps: 50, maxMillis: 1000, maxStringLength: 1000, maxListLength: 1000 }),
    };
    const long = Array.from({ length: 100 }, () => '1').join(' + ');
    assert.throws(() => evaluate(parseFormula(long), e), /budget of 50 steps/);
  });

  test('a formula past its time stops, also when each method works on a long string (many steps at once)', () => {
    const e = {
      ...env(),
      budget: new Budget({ maxSteps: 10_000_000, maxMillis: 20, maxStringLength: 5_000_000, maxListLength: 1000 }),
    };
    const heavy = `('abc ' * 1000000)${'.upcase.downcase'.repeat(40)}.length`;
    assert.throws(() => evaluate(parseFormula(heavy), e), /formula ran longer than 20 ms/);
  });

  test('regular expressions that can backtrack without bound are refused', () => {
    assert.throws(() => run("'aaaaaaaaaaaaaaaaaaaaaaaaaaaa!'.match?(/(a+)+$/)"), /nested repetition/);
    assert.throws(() => run("'aa'.match?(/(a*)*b/)"), /nested repetition/);
    assert.throws(() => run("'aa'.match?(/(a)\\1/)"), /backreferences/);
    assert.equal(run("'aa'.match?(/(ab)+/)"), false);
  });

  test('nesting past the parser depth limit is a syntax error, not a crash', () => {
    assert.throws(() => parseFormula('('.repeat(5000) + '1' + ')'.repeat(5000)), FormulaSyntaxError);
    assert.throws(() => parseFormula('!'.repeat(5000) + 'true'), FormulaSyntaxError);
  });

  test('prototype keys are plain missing keys', () => {
    assert.equal(run("{}['constructor']"), null);
    assert.equal(run("{}['__proto__']"), null);
    assert.deepEqual(run("{ '__proto__' => 1 }.keys"), ['__proto__']);
    // Stored as an own key, in hashes and in their plain (stored) form; no prototype changes.
    const stored = toPlain(
      fromPlain(JSON.parse('{"__proto__": {"polluted": true}, "constructor": 2, "a": 3}')),
    ) as Record<string, unknown>;
    assert.deepEqual(Object.keys(stored), ['__proto__', 'constructor', 'a']);
    assert.equal(Object.getPrototypeOf(stored), Object.prototype);
    assert.equal((stored as { polluted?: unknown }).polluted, undefined);
    assert.equal(JSON.stringify(stored), '{"__proto__":{"polluted":true},"constructor":2,"a":3}');
    assert.equal(({} as { polluted?: unknown }).polluted, undefined);
  });
});

export type { Value };
