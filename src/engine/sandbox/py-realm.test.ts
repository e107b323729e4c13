// The Python sandbox's JavaScript realm on its own: nothing of the host in it, no code from
// strings, no import(), and the web APIs it defines for Pyodide behave as the standard ones.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createRealm } from './py-realm.ts';

describe('the Python sandbox realm', () => {
  test('holds nothing of the host: no process, require, module, fetch, Buffer, timers of Node, streaming WebAssembly', () => {
    const { run } = createRealm();
    const kinds = run<string>(
      "[typeof process, typeof require, typeof module, typeof fetch, typeof Buffer, typeof setImmediate, typeof setTimeout, typeof structuredClone, typeof WebAssembly.compileStreaming, typeof WebAssembly.instantiateStreaming].join(',')",
      'probe.js',
    );
    assert.equal(
      kinds,
      'undefined,undefined,undefined,undefined,undefined,undefined,undefined,undefined,undefined,undefined',
    );
    // Every object's constructors are the realm's own.
    assert.equal(
      run<string>(
        '[globalThis.constructor.constructor === Function, [].constructor.constructor === Function, (async () => {}).constructor.constructor === Function].join()',
        'probe.js',
      ),
      'true,true,true',
    );
  });

  test('makes no code from strings: Function and its kinds, eval; an import() is a rejection of the realm', async () => {
    const { run } = createRealm();
    for (const code of [
      "Function('return 1')()",
      "(async function () {}).constructor('return 1')",
      "(function* () {}).constructor('yield 1')",
      "eval('1 + 1')",
      "globalThis.eval('1')",
    ]) {
      assert.throws(
        () => run(code, 'probe.js'),
        (error: Error) => /Code generation from strings disallowed|import is not available/.test(error.message),
        code,
      );
    }
    const reason = await run<Promise<unknown>>(
      '__refuseImport("node:fs").catch((e) => [e.constructor.constructor === Function, e.message].join(" "))',
      'probe.js',
    );
    assert.equal(reason, 'true import() is not available in the sandbox');
  });

  test('TextEncoder and TextDecoder round-trip UTF-8 (astral characters, invalid bytes as U+FFFD, fatal mode) and latin1', () => {
    const { run } = createRealm();
    const text = 'héllo ✓ 𝄞 中文';
    const bytes = run<Uint8Array>(`new TextEncoder().encode(${JSON.stringify(text)})`, 'probe.js');
    assert.deepEqual(Buffer.from(bytes), Buffer.from(text, 'utf8'));
    assert.equal(
      run<string>(`new TextDecoder().decode(new TextEncoder().encode(${JSON.stringify(text)}))`, 'probe.js'),
      text,
    );
    assert.equal(
      run<string>('new TextDecoder().decode(new Uint8Array([0x61, 0xff, 0x62, 0xe2, 0x82]))', 'probe.js'),
      'a\ufffdb\ufffd',
    );
    assert.throws(
      () => run("new TextDecoder('utf-8', { fatal: true }).decode(new Uint8Array([0xc3]))", 'probe.js'),
      /not valid/,
    );
    assert.equal(
      run<string>("new TextDecoder('latin1').decode(new Uint8Array([0x63, 0x61, 0x66, 0xe9]))", 'probe.js'),
      'café',
    );
    assert.equal(
      run<string>("new TextDecoder('utf-16le').decode(new Uint8Array([0x68, 0, 0x69, 0]))", 'probe.js'),
      'hi',
    );
    assert.equal(
      run<string>("JSON.stringify(new TextEncoder().encodeInto('ab✓', new Uint8Array(3)))", 'probe.js'),
      '{"read":2,"written":2}',
    );
  });

  test('WebAssembly memory does not grow past the cap, and the cap cannot be undone from the realm', () => {
    const { realm, run } = createRealm();
    realm.setMemoryCap(4 * 65536);
    assert.equal(
      run<number>(
        'globalThis.m = new WebAssembly.Memory({ initial: 1, maximum: 100 }); m.grow(2); m.buffer.byteLength',
        'probe.js',
      ),
      3 * 65536,
    );
    assert.throws(() => run('m.grow(2)', 'probe.js'), /the memory limit is reached/);
    assert.throws(
      () => run("'use strict'; WebAssembly.Memory.prototype.grow = function () { return 0; }", 'probe.js'),
      /Cannot assign to read only property 'grow'/,
    );
    assert.throws(
      () => run("Object.defineProperty(WebAssembly.Memory.prototype, 'grow', { value: 1 })", 'probe.js'),
      /Cannot redefine property: grow/,
    );
  });

  test('random bytes come from the pool the host fills', () => {
    const { realm, run } = createRealm();
    realm.pool().fill(7);
    assert.deepEqual([...run<Uint8Array>('crypto.getRandomValues(new Uint8Array(4))', 'probe.js')], [7, 7, 7, 7]);
  });
});
