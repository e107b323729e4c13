// What the Ruby SDK runtime's tests share: a runtime over the installed snapshot, a direct host
// (account properties, a lookup table, connection updates recorded), the demo API on loopback
// (test/stand-ins/sdk-demo-api.ts), all closed after the file; and the call of a connector path
// with the demo's settings, read back as its value.
import assert from 'node:assert/strict';
import { after, before } from 'node:test';
import { createDirectHost } from '../src/connectors/sdk/direct-host.ts';
import { installedRubySnapshotFile } from '../src/connectors/sdk/ruby-sandbox.ts';
import { createConnectorRuntime, type ConnectorOutcome, type ConnectorParams } from '../src/connectors/sdk/runtime.ts';
import { startDemoApi, type DemoApi } from './stand-ins/sdk-demo-api.ts';
import { DEMO } from './stand-ins/sdk-demo-connector.ts';

export interface SdkRuntimeKit {
  runtime: ReturnType<typeof createConnectorRuntime>;
  host: ReturnType<typeof createDirectHost>;
  /** Connection settings the connector asked to keep (refreshed tokens), in order. */
  updates: Array<Record<string, unknown>>;
  /** The demo API (started before the file's tests). */
  readonly api: DemoApi;
  /** The demo API's settings: its URL, user ada, password lovelace. */
  settings(): Record<string, unknown>;
  /** Runs `path` of `source` (the demo connector by default) for a workspace, with the demo settings. */
  run(path: string, params?: ConnectorParams, source?: string, workspaceId?: number): Promise<ConnectorOutcome>;
  /** The outcome's value; a failure fails the test with its message. The values are the connector's JSON. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  value(outcome: ConnectorOutcome): any;
}

export function sdkRuntimeKit(): SdkRuntimeKit {
  const runtime = createConnectorRuntime({
    workers: 2,
    memoryBytes: 64 * 1024 * 1024,
    snapshotFiles: [installedRubySnapshotFile()],
    timeoutMs: 20_000,
  });
  const updates: Array<Record<string, unknown>> = [];
  const host = createDirectHost({
    accountProperties: { region: 'eu-west' },
    lookupTables: { countries: [{ code: 'FR', name: 'France' }] },
    onConnectionUpdate: (settings) => {
      updates.push(settings);
    },
  });
  let api: DemoApi | undefined;
  before(async () => {
    api = await startDemoApi();
  });
  after(async () => {
    await runtime.close();
    await host.close();
    await api?.close();
  });
  const kit: SdkRuntimeKit = {
    runtime,
    host,
    updates,
    get api() {
      if (!api) throw new Error('the demo API starts before the tests');
      return api;
    },
    settings: () => ({ base: kit.api.url, user: 'ada', password: 'lovelace' }),
    run: (path, params = {}, source = DEMO, workspaceId = 1) =>
      runtime.invoke(
        { source, connectorName: 'Acme', workspaceId, path, params: { settings: kit.settings(), ...params } },
        host,
      ),
    value(outcome) {
      if (!outcome.ok) assert.fail(`expected success, got ${outcome.error.message}`);
      return outcome.value;
    },
  };
  return kit;
}
