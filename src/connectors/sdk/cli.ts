// `switchboard connector exec PATH` and `switchboard connector check FILE`: a custom connector run
// from the command line without a server, as the vendor's gem runs one (`workato exec`). Requests
// go out directly (through the proxy the environment names); `--verbose` shows each one with the
// connection's secrets masked.
import { readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import type { Config } from '../../config.ts';
import { createDirectHost, maskSecrets } from './direct-host.ts';
import { installedRubySnapshotFile, rubySnapshotFile } from './ruby-sandbox.ts';
import { createConnectorRuntime, type ConnectorParams, type ConnectorRuntime } from './runtime.ts';
import { ConnectorRunFailed, ConnectorUsageError } from './cli-options.ts';

type Values = Record<string, string | boolean | undefined>;

const SECRET_NAME = /pass|secret|token|key|auth|credential|private|signature|cert/i;

function readText(file: string, what: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    throw new ConnectorUsageError(
      `cannot read the ${what} ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
    );
  }
}

function readJson(file: string | undefined, what: string): unknown {
  if (file === undefined) return undefined;
  const text = readText(file, what);
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new ConnectorUsageError(`the ${what} ${file} is not JSON: ${(error as Error).message}`);
  }
}

/** The settings file: JSON or YAML; with `--connection`, the named entry of a file holding several. */
function readSettings(file: string | undefined, connection: string | undefined): Record<string, unknown> {
  if (file === undefined) return {};
  if (file.endsWith('.enc'))
    throw new ConnectorUsageError(
      'encrypted settings files are not read: decrypt it (workato edit) into plain YAML or JSON',
    );
  const text = readText(file, 'settings file');
  let value: unknown;
  try {
    value = /\.ya?ml$/i.test(file) ? parseYaml(text) : JSON.parse(text);
  } catch (error) {
    try {
      value = parseYaml(text);
    } catch {
      throw new ConnectorUsageError(`the settings file ${file} is neither JSON nor YAML: ${(error as Error).message}`);
    }
  }
  if (connection !== undefined) value = (value as Record<string, unknown> | null)?.[connection];
  if (value === null || value === undefined) return {};
  if (typeof value !== 'object' || Array.isArray(value))
    throw new ConnectorUsageError(`the settings file ${file} must hold an object of connection values`);
  return value as Record<string, unknown>;
}

/**
 * Writes the connection's new values (what `acquire` or `refresh` returned during the call) into
 * the settings file, as the vendor's gem offers to: the file's other keys (and, with
 * `--connection`, its other connections) kept; JSON stays JSON, YAML stays YAML (comments are not
 * kept). Written beside and renamed over, so an interrupted write leaves the old file whole.
 */
function writeSettingsBack(file: string, connection: string | undefined, updated: Record<string, unknown>): void {
  const yaml = /\.ya?ml$/i.test(file);
  const text = readText(file, 'settings file');
  let whole: unknown;
  try {
    whole = yaml ? parseYaml(text) : JSON.parse(text);
  } catch {
    whole = parseYaml(text);
  }
  const root = (whole !== null && typeof whole === 'object' && !Array.isArray(whole) ? whole : {}) as Record<
    string,
    unknown
  >;
  const current = (connection === undefined ? root : root[connection]) as Record<string, unknown> | undefined;
  const merged = { ...(current ?? {}), ...withoutHostValues(updated) };
  const next = connection === undefined ? merged : { ...root, [connection]: merged };
  const out = yaml || !/^\s*[{[]/.test(text) ? stringifyYaml(next) : `${JSON.stringify(next, null, 2)}\n`;
  const temp = `${file}.${process.pid}.tmp`;
  try {
    writeFileSync(temp, out, { mode: statSync(file).mode & 0o777 });
    renameSync(temp, file);
  } catch (error) {
    throw new ConnectorRunFailed(`cannot write the new connection values to ${file}: ${(error as Error).message}`);
  }
}

/** Values the host adds for a call (a custom OAuth profile) are not the connection's: never written. */
function withoutHostValues(settings: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(settings).filter(([name]) => !name.startsWith('__')));
}

/** Values of the settings that are secrets: never shown by --verbose. */
function secretsOf(settings: Record<string, unknown>): string[] {
  return Object.entries(settings).flatMap(([name, value]) =>
    typeof value === 'string' && SECRET_NAME.test(name) ? [value] : [],
  );
}

function runtimeFor(config: Config, timeoutMs: number): ConnectorRuntime {
  return createConnectorRuntime({
    workers: 1,
    memoryBytes: config.connectorMemoryBytes,
    snapshotFiles: [installedRubySnapshotFile(), rubySnapshotFile(config.dataDir)],
    timeoutMs,
    wallTimeoutMs: Math.max(config.connectorWallTimeoutMs, timeoutMs),
  });
}

function timeoutOf(values: Values, config: Config): number {
  const raw = values['timeout-ms'];
  if (raw === undefined) return Math.max(config.connectorTimeoutMs, 300_000);
  if (typeof raw !== 'string' || !/^\d{1,9}$/.test(raw))
    throw new ConnectorUsageError('--timeout-ms must be a whole number');
  return Number(raw);
}

const PATH_FORM =
  /^(test|describe|connection\.(base_uri|authorize|authorization\.\w+)|(actions|triggers)\.\w+(\.\w+)?|methods\.\w+|pick_lists\.\w+|object_definitions\.\w+\.fields)$/;

export async function connectorExec(
  path: string,
  values: Values,
  config: Config,
  out: { stdout(text: string): void; stderr(text: string): void },
): Promise<void> {
  if (!PATH_FORM.test(path))
    throw new ConnectorUsageError(
      `${path} is not a path: test, actions.NAME.execute, actions.NAME.input_fields, triggers.NAME.poll, methods.NAME, pick_lists.NAME, connection.authorization.acquire...`,
    );
  const connectorFile = typeof values.connector === 'string' ? values.connector : 'connector.rb';
  const source = readText(connectorFile, 'connector');
  const settings = readSettings(values.settings as string | undefined, values.connection as string | undefined);
  const params: ConnectorParams = { settings };
  const json = (option: string, key: keyof ConnectorParams, what: string) => {
    const value = readJson(values[option] as string | undefined, what);
    if (value !== undefined) (params as Record<string, unknown>)[key] = value;
  };
  json('input', 'input', 'input file');
  json('args', 'args', 'arguments file');
  json('closure', 'closure', 'closure file');
  json('continue', 'continue', 'continue file');
  json('config-fields', 'config_fields', 'config fields file');
  json('extended-input-schema', 'extended_input_schema', 'extended input schema file');
  json('extended-output-schema', 'extended_output_schema', 'extended output schema file');
  json('webhook-payload', 'payload', 'webhook payload file');
  json('webhook-params', 'params', 'webhook params file');
  json('webhook-headers', 'headers', 'webhook headers file');
  json('webhook-subscribe-output', 'webhook_subscribe_output', 'webhook subscribe output file');
  for (const [option, key] of [
    ['webhook-url', 'webhook_url'],
    ['oauth2-code', 'oauth2_code'],
    ['redirect-url', 'redirect_url'],
    ['refresh-token', 'refresh_token'],
  ] as const)
    if (typeof values[option] === 'string') params[key] = values[option];
  if (path.startsWith('methods.') && params.args !== undefined && !Array.isArray(params.args))
    params.args = [params.args];

  const verbose = values.verbose === true;
  const secrets = secretsOf(settings);
  const trace = verbose ? (line: string) => out.stderr(`${line}\n`) : undefined;
  if (trace) {
    trace('SETTINGS');
    trace(maskSecrets(JSON.stringify(maskedSettings(settings), null, 2), secrets));
    if (params.input !== undefined) {
      trace('INPUT');
      trace(maskSecrets(JSON.stringify(params.input, null, 2), secrets));
    }
  }
  const host = createDirectHost({
    proxy: config.outboundProxy,
    caFiles: config.sslCertFile ? [config.sslCertFile] : [],
    secrets,
    ...(trace ? { trace } : {}),
    onConnectionUpdate(updated) {
      for (const value of Object.values(updated))
        if (typeof value === 'string' && value.length >= 4) secrets.push(value);
      trace?.('the connection got new values (acquire or refresh): they are written to the settings file');
    },
  });
  const runtime = runtimeFor(config, timeoutOf(values, config));
  try {
    const outcome = await runtime.invoke(
      { source, connectorName: connectorFile, workspaceId: 'cli', path, params },
      host,
    );
    if (outcome.logs) out.stderr(maskSecrets(outcome.logs, secrets));
    // Kept even when the call then failed: a service that rotates refresh tokens has spent the old one.
    if (outcome.settings && typeof values.settings === 'string') {
      writeSettingsBack(values.settings, values.connection as string | undefined, outcome.settings);
      out.stderr(`${values.settings}: updated with the connection's new values (acquire or refresh)\n`);
    }
    if (!outcome.ok) throw new ConnectorRunFailed(maskSecrets(outcome.error.message, secrets));
    const text = `${JSON.stringify(outcome.value, null, 2)}\n`;
    if (typeof values.output === 'string') {
      try {
        writeFileSync(values.output, text);
      } catch (error) {
        throw new ConnectorUsageError(`cannot write ${values.output}: ${(error as Error).message}`);
      }
    } else {
      if (trace) trace('OUTPUT');
      out.stdout(text);
    }
    if (trace && outcome.settings) {
      trace('NEW CONNECTION VALUES');
      trace(maskSecrets(JSON.stringify(maskedSettings(outcome.settings), null, 2), secrets));
    }
  } finally {
    await runtime.close();
    await host.close();
  }
}

function maskedSettings(settings: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(settings).map(([k, v]) => [k, SECRET_NAME.test(k) && typeof v === 'string' ? '[MASKED]' : v]),
  );
}

/** Evaluates every action's and trigger's fields; prints what fails. Throws ConnectorRunFailed when anything does. */
export async function connectorCheck(
  file: string,
  values: Values,
  config: Config,
  out: { stdout(text: string): void; stderr(text: string): void },
): Promise<void> {
  const source = readText(file, 'connector');
  const settings = readSettings(values.settings as string | undefined, values.connection as string | undefined);
  const secrets = secretsOf(settings);
  const host = createDirectHost({
    proxy: config.outboundProxy,
    caFiles: config.sslCertFile ? [config.sslCertFile] : [],
    secrets,
  });
  const runtime = runtimeFor(config, timeoutOf(values, config));
  const problems: string[] = [];
  let checked = 0;
  try {
    const call = { source, connectorName: file, workspaceId: 'cli' };
    const described = await runtime.describe(call);
    if (!described.ok) throw new ConnectorRunFailed(described.error.message);
    const definition = described.value as {
      title: string;
      actions: Record<string, unknown>;
      triggers: Record<string, unknown>;
      pick_lists: string[];
      problems: string[];
    };
    for (const problem of definition.problems) problems.push(`${file}: ${problem}`);
    const paths: string[] = [];
    for (const kind of ['actions', 'triggers'] as const)
      for (const name of Object.keys(definition[kind]))
        for (const part of ['input_fields', 'output_fields']) paths.push(`${kind}.${name}.${part}`);
    for (const path of paths) {
      checked++;
      const outcome = await runtime.invoke({ ...call, path, params: { settings } }, host);
      if (!outcome.ok) problems.push(maskSecrets(outcome.error.message, secrets));
      else if (!Array.isArray(outcome.value)) problems.push(`${file} (${path}): the fields are not a list of fields`);
      else {
        const bad = outcome.value.findIndex(
          (f) => typeof f !== 'object' || f === null || typeof (f as { name?: unknown }).name !== 'string',
        );
        if (bad >= 0) problems.push(`${file} (${path}): field ${bad + 1} has no name`);
      }
    }
    out.stdout(
      `${definition.title}: ${Object.keys(definition.actions).length} actions, ${Object.keys(definition.triggers).length} triggers, ${checked} field lists evaluated, ${problems.length} failed\n`,
    );
    for (const problem of problems) out.stdout(`  ${problem}\n`);
    if (problems.length) throw new ConnectorRunFailed(`${problems.length} of ${checked} field lists failed`);
  } finally {
    await runtime.close();
    await host.close();
  }
}
