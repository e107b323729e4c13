// The process's Ruby runtime of custom connectors, started at its first use (worker threads and
// their interpreters cost memory and a second or two) and closed with the app. Shared by the
// engine's steps and the connections service's tests, so one pool of interpreters serves both.
import type { Config } from '../../config.ts';
import { createConnectorRuntime, type ConnectorRuntime } from './runtime.ts';
import { installedRubySnapshotFile } from './ruby-sandbox.ts';

export interface LazyConnectorRuntime {
  get(): ConnectorRuntime;
  close(): Promise<void>;
}

export function lazyConnectorRuntime(config: Config): LazyConnectorRuntime {
  let runtime: ConnectorRuntime | null = null;
  return {
    get() {
      runtime ??= createConnectorRuntime({
        workers: config.connectorWorkers,
        idleMs: config.sandboxIdleMs,
        memoryBytes: config.connectorMemoryBytes,
        snapshotFiles: [installedRubySnapshotFile()],
        timeoutMs: config.connectorTimeoutMs,
        wallTimeoutMs: config.connectorWallTimeoutMs,
      });
      return runtime;
    },
    async close() {
      const open = runtime;
      runtime = null;
      await open?.close();
    },
  };
}
