// Ruby code steps on the process's one pool of interpreters: given the custom connectors' runtime
// (same memory cap), a step runs there with its own limits and isolation scope, and closing the
// code runner leaves that runtime to its owner (the app).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { ConnectorRuntime, RubyCodeCall } from '../../connectors/sdk/runtime.ts';
import { createRubyCodeRunner } from './ruby-code.ts';

function recordingRuntime() {
  const calls: RubyCodeCall[] = [];
  let closed = false;
  const runtime: ConnectorRuntime = {
    invoke: () => Promise.reject(new Error('not used')),
    describe: () => Promise.reject(new Error('not used')),
    runCode: async (call) => {
      calls.push(call);
      return { ok: true, value: { ran: call.code }, logs: '' };
    },
    warm: () => undefined,
    workerMemory: async () => [],
    close: async () => {
      closed = true;
    },
  };
  return { runtime, calls, closed: () => closed };
}

describe('createRubyCodeRunner({ shared })', () => {
  test("a step runs on the shared runtime with the step's limits and scope; close leaves it open", async () => {
    const shared = recordingRuntime();
    const runner = createRubyCodeRunner({
      workers: 2,
      memoryBytes: 128 << 20,
      dataDir: '/nonexistent',
      httpTimeoutMs: 1000,
      httpMaxResponseBytes: 1000,
      shared: () => shared.runtime,
    });
    const outcome = await runner.run({
      code: '1 + 1',
      input: {},
      workspaceId: 7,
      scope: 'recipe:3',
      timeoutMs: 1500,
      accountProperty: async () => null,
      lookup: async () => null,
    });
    assert.deepEqual(outcome, { ok: true, value: { ran: '1 + 1' }, logs: '' });
    assert.equal(shared.calls.length, 1);
    assert.equal(shared.calls[0]!.workspaceId, 7);
    assert.equal(shared.calls[0]!.scope, 'recipe:3');
    assert.equal(shared.calls[0]!.timeoutMs, 1500);
    await runner.close();
    assert.equal(shared.closed(), false, 'the app closes the shared runtime');
  });
});
