// The interpreter's snapshot on disk and the memory cap written into the module.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { tempDir } from '../../../test/helpers.ts';
import { rubyModulePath, withMemoryMaximum } from './ruby-vm.ts';
import { decodeSnapshot, encodeSnapshot, readSnapshotFile, writeSnapshotFile } from './snapshot-file.ts';

describe('snapshot file', () => {
  const memory = new Uint8Array(5 * 65536 + 100);
  memory.set([1, 2, 3], 10);
  memory.set([9], 3 * 65536 + 7);
  memory[memory.length - 1] = 255;

  test('keeps only the pages that are not zeros, and gives the memory back exactly', () => {
    const file = encodeSnapshot(memory);
    assert.ok(file.length < 4 * 65536, `${file.length} bytes for 3 pages that are not zeros`);
    const back = decodeSnapshot(file);
    assert.ok(back);
    assert.deepEqual(new Uint8Array(back), memory);
  });

  test('a damaged or foreign file reads as no snapshot (the interpreter then loads in full)', () => {
    const file = encodeSnapshot(memory);
    assert.equal(decodeSnapshot(file.subarray(0, file.length - 1)), null);
    assert.equal(decodeSnapshot(Buffer.concat([file, Buffer.from([0])])), null);
    assert.equal(decodeSnapshot(Buffer.from('not a snapshot at all')), null);
    const dir = tempDir();
    assert.equal(readSnapshotFile(path.join(dir, 'missing.snapshot')), null);
    assert.ok(writeSnapshotFile(path.join(dir, 'cache', 'x.snapshot'), memory));
    assert.deepEqual(new Uint8Array(readSnapshotFile(path.join(dir, 'cache', 'x.snapshot'))!), memory);
  });
});

describe('memory cap written into the module', () => {
  test("the memory section's maximum is the cap, the rest of the module unchanged", () => {
    const original = readFileSync(rubyModulePath());
    const capped = withMemoryMaximum(original, 2000);
    const limits = memoryLimits(capped);
    assert.equal(limits.max, 2000);
    assert.equal(limits.min, memoryLimits(original).min);
    assert.ok(Math.abs(capped.length - original.length) < 16);
    // Compiles: the rewritten module is valid WebAssembly.
    assert.ok(new WebAssembly.Module(capped));
  });
});

function memoryLimits(binary: Uint8Array): { min: number; max: number | null } {
  const leb = (at: number): [number, number] => {
    let value = 0;
    let shift = 0;
    let byte: number;
    do {
      byte = binary[at++]!;
      value += (byte & 0x7f) * 2 ** shift;
      shift += 7;
    } while (byte & 0x80);
    return [value, at];
  };
  let at = 8;
  while (at < binary.length) {
    const id = binary[at]!;
    const [size, body] = leb(at + 1);
    if (id === 5) {
      const [, limits] = leb(body);
      const flags = binary[limits]!;
      const [min, next] = leb(limits + 1);
      return { min, max: flags & 1 ? leb(next)[0] : null };
    }
    at = body + size;
  }
  throw new Error('no memory section');
}
