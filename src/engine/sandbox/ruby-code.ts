// Ruby code steps (workato_custom_code) run in the Ruby runtime of custom connectors
// (src/connectors/sdk/, docs/adr/0020): CRuby on WebAssembly in worker threads, off the event loop,
// bounded in CPU time, wall time and memory, and isolated by key: a step of one workspace never runs
// on an interpreter another workspace's step or connector used since it was restored from the
// snapshot. The code's requests (`get`, `post`...) are sent with the limits of the HTTP connector's
// steps; `account_property` and `lookup` read the recipe's environment.
import { createDirectHost, type DirectHostOptions } from '../../connectors/sdk/direct-host.ts';
import { installedRubySnapshotFile, rubySnapshotFile } from '../../connectors/sdk/ruby-sandbox.ts';
import { createConnectorRuntime, type ConnectorRuntime } from '../../connectors/sdk/runtime.ts';
import type { RubyStepCall, RubyStepRunner } from '../../connectors/types.ts';

export interface RubyCodeRunnerOptions {
  /** Worker threads (one interpreter each). */
  workers: number;
  /** What a step may allocate beyond the interpreter at rest. */
  memoryBytes: number;
  /** Workers without work this long are released (0: never). */
  idleMs?: number;
  /** The server's data directory: a snapshot made by a full load is kept there too. */
  dataDir: string;
  httpTimeoutMs: number;
  httpMaxResponseBytes: number;
  /** The server's outbound policy: the code's requests go through it as the HTTP connector's do. */
  outbound?: DirectHostOptions['outbound'];
  /**
   * The process's runtime of custom connectors, when its memory cap is this one's: the steps run on
   * its pool (it is closed with the app, not here) rather than on a second pool of interpreters.
   */
  shared?: (() => ConnectorRuntime) | undefined;
}

export type { RubyStepCall };

export type RubyCodeRunner = RubyStepRunner;

export function createRubyCodeRunner(options: RubyCodeRunnerOptions): RubyCodeRunner {
  let runtime: ConnectorRuntime | null = null;
  let http: ReturnType<typeof createDirectHost> | null = null;
  const runtimeOf = (): ConnectorRuntime =>
    options.shared?.() ??
    (runtime ??= createConnectorRuntime({
      workers: options.workers,
      memoryBytes: options.memoryBytes,
      idleMs: options.idleMs,
      snapshotFiles: [rubySnapshotFile(options.dataDir), installedRubySnapshotFile()],
    }));
  const httpOf = () =>
    (http ??= createDirectHost({
      timeoutMs: options.httpTimeoutMs,
      maxResponseBytes: options.httpMaxResponseBytes,
      ...(options.outbound ? { outbound: options.outbound } : {}),
    }));
  return {
    run(call) {
      const transport = httpOf();
      return runtimeOf().runCode(
        {
          code: call.code,
          input: call.input,
          workspaceId: call.workspaceId,
          scope: call.scope,
          timeoutMs: call.timeoutMs,
          wallTimeoutMs: call.timeoutMs,
        },
        {
          http: (request) => transport.http(request),
          accountProperty: call.accountProperty,
          lookup: call.lookup,
        },
      );
    },
    warm() {
      runtimeOf().warm();
    },
    async close() {
      await Promise.all([runtime?.close(), http?.close()]);
      runtime = null;
      http = null;
    },
  };
}
