// The command line's commands (src/cli.ts is its entry): `npx switchboard <command>` or
// `npm run switchboard -- <command>`.
// Secrets go to standard output only when a command exists to print one; logs go to stderr.
import path from 'node:path';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { pino } from 'pino';
import { loadConfig, type Config } from './config.ts';
import { createLogger } from './logger.ts';
import type { ServiceContext } from './context.ts';
import type { EnvironmentType, InvitationStatus } from './db/types.ts';
import type { DbHandle } from './db/index.ts';
import { CheckFailed, explain, UsageError } from './cli-errors.ts';
import { CONNECTOR_COMMANDS } from './connectors/sdk/commands.ts';

// Each command loads the modules it needs when it runs (the server's HTTP app only for serve, the
// database's only for the commands that open it), so that a command starts in a fraction of the
// server's start-up.

interface Command {
  summary: string;
  usage: string;
  options: NonNullable<ParseArgsConfig['options']>;
  /** Names of the positional arguments the command takes (all required). */
  positionals?: readonly string[];
  run(values: Record<string, string | boolean | undefined>, config: Config, positionals: string[]): Promise<void>;
}

const help = { type: 'boolean', short: 'h' } as const;
const text = { type: 'string' } as const;
const flag = { type: 'boolean' } as const;
/** The secrets commands' options: the environment and the workspace whose store they use. */
const SECRET_SCOPE = { help, env: { type: 'string', default: 'dev' }, workspace: text } as const;
/** Options of the commands that call a running server and wait for test cases (deploy, test). */
const SERVER_CALL = { url: text, token: text, timeout: text, junit: text, 'allow-empty': flag } as const;

/** The developer API token of a command that calls a running server: --token, else SWITCHBOARD_TOKEN. */
function cliToken(values: Record<string, string | boolean | undefined>, config: Config, missing: string): string {
  const token = typeof values.token === 'string' ? values.token : config.cliToken;
  if (!token) throw new UsageError(missing);
  return token;
}

/** --timeout in seconds (600 by default), 1 to 86400. */
function timeoutSeconds(values: Record<string, string | boolean | undefined>): number {
  const timeout = values.timeout === undefined ? 600 : Number(values.timeout);
  if (!Number.isInteger(timeout) || timeout < 1 || timeout > 86_400)
    throw new UsageError('--timeout must be a whole number of seconds from 1 to 86400');
  return timeout;
}

/** --url, else this configuration's own server (on loopback when it listens on every address). */
function serverUrl(values: Record<string, string | boolean | undefined>, config: Config): string {
  return typeof values.url === 'string'
    ? values.url
    : `http://${config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host}:${config.port}`;
}

/** Runs a server call that prints its progress: a refusal of the server is a usage error, a non-zero end a failed check. */
async function serverCheck(call: () => Promise<number>): Promise<void> {
  const { CallRefused } = await import('./cli-http.ts');
  const code = await call().catch((error: unknown) => {
    throw error instanceof CallRefused ? new UsageError(error.message) : error;
  });
  if (code !== 0) throw new CheckFailed();
}

const COMMANDS: Record<string, Command> = {
  serve: {
    summary: 'Run the HTTP server (migrates and, on first start, creates the workspace and prints an admin token)',
    usage: 'switchboard serve',
    options: { help },
    async run(_values, config) {
      const { startServer } = await import('./server.ts');
      await startServer(config);
    },
  },
  migrate: {
    summary: 'Apply pending database migrations and exit',
    usage: 'switchboard migrate',
    options: { help },
    async run(_values, config) {
      const { createDb } = await import('./db/index.ts');
      const { migrateToLatest } = await import('./db/migrate.ts');
      const database = createDb(config);
      try {
        const applied = await migrateToLatest(database.db, database.dialect);
        process.stderr.write(applied.length > 0 ? `applied: ${applied.join(', ')}\n` : 'the database is up to date\n');
      } finally {
        await database.db.destroy();
      }
    },
  },
  init: {
    summary: 'Migrate and create the first workspace with its admin client; prints the admin token once',
    usage: 'switchboard init [--workspace-name NAME] [--owner-email EMAIL]',
    options: { help, 'workspace-name': text, 'owner-email': text },
    async run(values, config) {
      const { prepare, printAdminToken } = await import('./prepare.ts');
      const { ADMIN_ROLE_NAME, DEFAULT_WORKSPACE } = await import('./workspaces/workspaces.service.ts');
      const workspace = {
        name: typeof values['workspace-name'] === 'string' ? values['workspace-name'] : DEFAULT_WORKSPACE.name,
        ownerEmail: typeof values['owner-email'] === 'string' ? values['owner-email'] : DEFAULT_WORKSPACE.ownerEmail,
      };
      const { database, firstStart } = await prepare(config, cliLogger(config), workspace);
      try {
        if (firstStart.printableToken) printAdminToken(process.stdout, firstStart.printableToken, config);
        else
          process.stderr.write(
            `workspace ${firstStart.workspace.id} already exists; use "switchboard tokens create --role ${ADMIN_ROLE_NAME}" for a new admin token\n`,
          );
      } finally {
        await database.db.destroy();
      }
    },
  },
  'tokens create': {
    summary: 'Create a developer API client with a role and print its token (only the token, on stdout)',
    usage: 'switchboard tokens create --role NAME [--name CLIENT_NAME] [--env dev|test|prod] [--workspace ID]',
    options: {
      help,
      role: text,
      name: text,
      env: { type: 'string', default: 'dev' },
      workspace: text,
    },
    async run(values, config) {
      const { prepare } = await import('./prepare.ts');
      const { createTokenForRole } = await import('./workspaces/workspaces.service.ts');
      const { createServiceContext } = await import('./context.ts');
      if (typeof values.role !== 'string')
        throw new UsageError('--role is required (e.g. --role Admin or --role "Read only")');
      const env = String(values.env).toLowerCase();
      if (env !== 'dev' && env !== 'test' && env !== 'prod') throw new UsageError('--env must be dev, test or prod');
      const { database, secretBox, secrets } = await prepare(config, cliLogger(config));
      try {
        const ctx = createServiceContext({ db: database.db, config, secretBox, log: cliLogger(config), secrets });
        const workspaceId = await workspaceIdFrom(values.workspace, database.db);
        const name = typeof values.name === 'string' ? values.name : `cli-${values.role}-${new Date().toISOString()}`;
        const { token, clientId } = await createTokenForRole(ctx, {
          workspaceId,
          roleName: values.role,
          clientName: name,
          environment: env as EnvironmentType,
        });
        process.stderr.write(`created developer API client ${clientId} ("${name}", role ${values.role}, env ${env})\n`);
        process.stdout.write(`${token}\n`);
      } finally {
        await database.db.destroy();
      }
    },
  },
  'workspaces create': {
    summary: 'Create another workspace (environments, seed roles, an admin client) and print its admin token',
    usage: 'switchboard workspaces create --name NAME --owner-email EMAIL',
    options: { help, name: text, 'owner-email': text },
    async run(values, config) {
      const { prepare, printAdminToken } = await import('./prepare.ts');
      const { ADMIN_ROLE_NAME, createTokenForRole, createWorkspace } =
        await import('./workspaces/workspaces.service.ts');
      const { createServiceContext } = await import('./context.ts');
      if (typeof values.name !== 'string' || typeof values['owner-email'] !== 'string')
        throw new UsageError('--name and --owner-email are required');
      const { database, secretBox, secrets } = await prepare(config, cliLogger(config));
      try {
        const ctx = createServiceContext({ db: database.db, config, secretBox, log: cliLogger(config), secrets });
        const workspace = await createWorkspace(ctx, { name: values.name, ownerEmail: values['owner-email'] });
        const { token } = await createTokenForRole(ctx, {
          workspaceId: workspace.id,
          roleName: ADMIN_ROLE_NAME,
          clientName: 'Bootstrap admin',
          environment: 'dev',
        });
        process.stderr.write(`created workspace ${workspace.id} ("${workspace.name}")\n`);
        printAdminToken(process.stdout, token, config);
      } finally {
        await database.db.destroy();
      }
    },
  },
  'api-policies create': {
    summary: 'Create an access policy (rate limit and/or quota) for API clients and access profiles',
    usage:
      'switchboard api-policies create --name NAME [--rate REQUESTS/SECONDS] [--quota REQUESTS/SECONDS] [--workspace ID]',
    options: {
      help,
      name: text,
      rate: text,
      quota: text,
      workspace: text,
    },
    async run(values, config) {
      const { prepare } = await import('./prepare.ts');
      const { insertPolicy } = await import('./api/api_clients/api_clients.store.ts');
      const { isUniqueViolation } = await import('./db/dialect.ts');
      if (typeof values.name !== 'string' || values.name.trim() === '') throw new UsageError('--name is required');
      const rate = typeof values.rate === 'string' ? parseWindow('--rate', values.rate) : undefined;
      const quota = typeof values.quota === 'string' ? parseWindow('--quota', values.quota) : undefined;
      if (!rate && !quota)
        throw new UsageError('give --rate and/or --quota, e.g. --rate 100/60 --quota 100000/2592000');
      const { database } = await prepare(config, cliLogger(config));
      try {
        const workspaceId = await workspaceIdFrom(values.workspace, database.db);
        const policy = await insertPolicy(database.db, {
          workspaceId,
          name: values.name.trim(),
          ...(rate ? { rate } : {}),
          ...(quota ? { quota } : {}),
          now: new Date().toISOString(),
        });
        process.stdout.write(`${policy.id}\n`);
        process.stderr.write(
          `created access policy ${policy.id} ("${policy.name}"); use it as api_policy_id on API clients and access profiles\n`,
        );
      } catch (error) {
        if (isUniqueViolation(error)) throw new UsageError(`an access policy named "${values.name}" already exists`);
        throw error;
      } finally {
        await database.db.destroy();
      }
    },
  },
  'api-policies list': {
    summary: 'List access policies',
    usage: 'switchboard api-policies list [--workspace ID]',
    options: { help, workspace: text },
    async run(values, config) {
      const { prepare } = await import('./prepare.ts');
      const { listPolicies } = await import('./api/api_clients/api_clients.store.ts');
      const { database } = await prepare(config, cliLogger(config));
      try {
        for (const p of await listPolicies(database.db, await workspaceIdFrom(values.workspace, database.db))) {
          const rate = p.rate_limit_requests ? `${p.rate_limit_requests}/${p.rate_limit_interval_seconds}s` : '-';
          const quota = p.quota_requests ? `${p.quota_requests}/${p.quota_interval_seconds}s` : '-';
          process.stdout.write(`${p.id}\t${p.name}\trate ${rate}\tquota ${quota}\n`);
        }
      } finally {
        await database.db.destroy();
      }
    },
  },
  'workspaces list': {
    summary: 'List the workspaces of this server',
    usage: 'switchboard workspaces list',
    options: { help },
    async run(_values, config) {
      const { prepare } = await import('./prepare.ts');
      const { listWorkspaces } = await import('./workspaces/workspaces.store.ts');
      const { database } = await prepare(config, cliLogger(config));
      try {
        for (const w of await listWorkspaces(database.db))
          process.stdout.write(`${w.id}\t${w.name}\t${w.owner_email}\n`);
      } finally {
        await database.db.destroy();
      }
    },
  },
  'invitations list': {
    summary: 'List the member invitations of a workspace (pending ones were not e-mailed: no SMTP_URL)',
    usage: 'switchboard invitations list [--status pending|sending|sent|failed] [--workspace ID]',
    options: { help, status: text, workspace: text },
    async run(values, config) {
      const { prepare } = await import('./prepare.ts');
      const { listInvitations, roleSummary } = await import('./api/member_invitations/member_invitations.service.ts');
      const statuses: readonly InvitationStatus[] = ['pending', 'sending', 'sent', 'failed'];
      const status = values.status;
      if (status !== undefined && !statuses.includes(status as InvitationStatus))
        throw new UsageError(`--status must be one of ${statuses.join(', ')}`);
      const { database } = await prepare(config, cliLogger(config));
      try {
        const workspaceId = await workspaceIdFrom(values.workspace, database.db);
        for (const i of await listInvitations(
          { db: database.db },
          workspaceId,
          status as InvitationStatus | undefined,
        )) {
          const columns = [i.id, i.email, i.name, roleSummary(i.roles), i.status, i.invited_at, i.delivery_error ?? ''];
          process.stdout.write(`${columns.map((c) => String(c).replace(/[\t\r\n]+/g, ' ')).join('\t')}\n`);
        }
      } finally {
        await database.db.destroy();
      }
    },
  },
  'secrets set': {
    summary:
      'Store a secret in the built-in store (value read from stdin); connections reference it as {"secret": "NAME"}',
    usage: 'printf %s "$VALUE" | switchboard secrets set NAME [--env dev|test|prod] [--workspace ID]',
    options: SECRET_SCOPE,
    positionals: ['NAME'],
    async run(values, config, [name]) {
      const { setStoredSecret } = await import('./api/secrets_management/secrets_management.service.ts');
      await withSecretScope(values, config, async (ctx, scope, label) => {
        if (process.stdin.isTTY)
          process.stderr.write(
            `Type the value of ${name}, then Enter and Ctrl-D (it is shown as you type; prefer a pipe)\n`,
          );
        const chunks: Buffer[] = [];
        for await (const chunk of process.stdin)
          chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk)));
        // One trailing newline is what `echo` and editors add; it is not part of the secret.
        const value = Buffer.concat(chunks)
          .toString('utf8')
          .replace(/\r?\n$/, '');
        await setStoredSecret(ctx, null, scope, name as string, value);
        process.stderr.write(`stored secret ${name} in ${label}\n`);
      });
    },
  },
  'secrets list': {
    summary: 'List the names of the built-in secrets of an environment (never their values)',
    usage: 'switchboard secrets list [--env dev|test|prod] [--workspace ID]',
    options: SECRET_SCOPE,
    async run(values, config) {
      const { listStoredSecrets } = await import('./api/secrets_management/secrets_management.service.ts');
      await withSecretScope(values, config, async (ctx, scope) => {
        for (const s of await listStoredSecrets(ctx, scope)) process.stdout.write(`${s.name}\t${s.updated_at}\n`);
      });
    },
  },
  'secrets delete': {
    summary: 'Delete a secret of the built-in store',
    usage: 'switchboard secrets delete NAME [--env dev|test|prod] [--workspace ID]',
    options: SECRET_SCOPE,
    positionals: ['NAME'],
    async run(values, config, [name]) {
      const { deleteStoredSecret } = await import('./api/secrets_management/secrets_management.service.ts');
      await withSecretScope(values, config, async (ctx, scope, label) => {
        await deleteStoredSecret(ctx, null, scope, name as string);
        process.stderr.write(`deleted secret ${name} from ${label}\n`);
      });
    },
  },
  deploy: {
    summary:
      "Build a project in dev and deploy it to test or prod through a running server; waits, prints progress and the target project's id, exits 0 when deployed (with --run-tests: and its test cases passed there)",
    usage:
      'switchboard deploy --project ID --to test|prod [--url URL] [--token TOKEN] [--description TEXT] [--include-data] [--include-test-cases] [--run-tests [--target-token TOKEN] [--junit FILE] [--allow-empty]] [--timeout SECONDS]',
    options: {
      help,
      ...SERVER_CALL,
      project: text,
      to: text,
      description: text,
      'include-data': flag,
      'include-test-cases': flag,
      'run-tests': flag,
      'target-token': text,
    },
    async run(values, config) {
      const { deployProject } = await import('./api/deployments/deploy-client.ts');
      const { junitAndEmpty } = await import('./api/test_cases/test-client.ts');
      const project = typeof values.project === 'string' ? values.project.trim() : '';
      if (!/^[fF]?\d{1,15}$/.test(project)) throw new UsageError('--project must be a project id (or f<folder id>)');
      if (values.to !== 'test' && values.to !== 'prod') throw new UsageError('--to must be test or prod');
      const token = cliToken(
        values,
        config,
        'a developer API token of the dev environment is needed: --token or SWITCHBOARD_TOKEN',
      );
      const runTests = values['run-tests'] === true;
      const targetToken = typeof values['target-token'] === 'string' ? values['target-token'] : config.cliTargetToken;
      if (runTests && !targetToken)
        throw new UsageError('--run-tests needs a token of the target: --target-token or SWITCHBOARD_TARGET_TOKEN');
      const timeout = timeoutSeconds(values);
      const environment = values.to;
      await serverCheck(() =>
        deployProject({
          baseUrl: serverUrl(values, config),
          token,
          project,
          environment,
          timeoutMs: timeout * 1000,
          pollMs: 1000,
          ...(typeof values.description === 'string' ? { description: values.description } : {}),
          includeData: values['include-data'] === true,
          includeTestCases: values['include-test-cases'] === true,
          ...(runTests ? { runTests: { targetToken: targetToken as string, ...junitAndEmpty(values) } } : {}),
          write: (line) => process.stdout.write(`${line}\n`),
        }),
      );
    },
  },
  test: {
    summary:
      'Run the test cases of a project (or --recipe, --folder) through a running server; prints failures, writes JUnit XML, exits 1 when one failed or there was none to run (unless --allow-empty)',
    usage:
      'switchboard test --project ID | --recipe ID | --folder ID [--junit FILE] [--allow-empty] [--url URL] [--token TOKEN] [--timeout SECONDS]',
    options: {
      help,
      ...SERVER_CALL,
      project: text,
      recipe: text,
      folder: text,
    },
    async run(values, config) {
      const { runTests, junitAndEmpty } = await import('./api/test_cases/test-client.ts');
      const given = (['project', 'recipe', 'folder'] as const).filter((k) => typeof values[k] === 'string');
      if (given.length !== 1) throw new UsageError('give exactly one of --project, --recipe or --folder');
      const key = given[0]!;
      const id = String(values[key]).trim();
      if (!/^\d{1,15}$/.test(id)) throw new UsageError(`--${key} must be an id`);
      const token = cliToken(values, config, 'a developer API token is needed: --token or SWITCHBOARD_TOKEN');
      const timeout = timeoutSeconds(values);
      const selector =
        key === 'project' ? { project_id: id } : key === 'recipe' ? { recipe_id: id } : { folder_id: id };
      await serverCheck(() =>
        runTests({
          baseUrl: serverUrl(values, config),
          token,
          selector,
          timeoutMs: timeout * 1000,
          pollMs: 500,
          ...junitAndEmpty(values),
          write: (line) => process.stdout.write(`${line}\n`),
        }),
      );
    },
  },
  ...CONNECTOR_COMMANDS,
  'prepare-python': {
    summary:
      "Load the Python interpreter once and keep its memory snapshot beside the installation, so a fresh server's first Python step starts at once (npm install runs it)",
    usage: 'switchboard prepare-python',
    options: { help },
    async run() {
      const { installedPythonSnapshotFile, preparePythonSnapshot } = await import('./engine/sandbox/py-sandbox.ts');
      const file = installedPythonSnapshotFile();
      const started = Date.now();
      await preparePythonSnapshot(file);
      process.stderr.write(
        `the Python interpreter's snapshot is ready in ${file} (${((Date.now() - started) / 1000).toFixed(1)} s)\n`,
      );
    },
  },
  backup: {
    summary: 'Copy the database to FILE, consistently, while the server keeps running (SQLite only)',
    usage: 'switchboard backup FILE [--force]',
    options: { help, force: { type: 'boolean', default: false } },
    positionals: ['FILE'],
    async run(values, config, [file]) {
      const { backupDatabase, secretKeyLocation } = await import('./db/backup.ts');
      const result = await backupDatabase(config, file as string, { force: values.force === true });
      const key = secretKeyLocation(config);
      process.stderr.write(
        `backed up ${config.dataDir} to ${result.file} (${result.bytes} bytes, ${result.migrations} migrations)\n` +
          `the credentials in it open only with the secret key: ${key.description}${key.present ? '' : ' (not there yet)'}; keep a copy of that key, stored apart from the backups\n`,
      );
    },
  },
  restore: {
    summary:
      'Put a backup in place as the database of DATA_DIR (the server must be stopped; the old database is kept aside)',
    usage: 'switchboard restore FILE',
    options: { help },
    positionals: ['FILE'],
    async run(_values, config, [file]) {
      const { restoreDatabase, secretKeyLocation } = await import('./db/backup.ts');
      const result = await restoreDatabase(config, file as string);
      const key = secretKeyLocation(config);
      process.stderr.write(
        `restored ${path.resolve(file as string)} into ${result.file} (${result.migrations} migrations${result.pending.length > 0 ? `; the server applies ${result.pending.length} more on start` : ''})\n` +
          (result.previous ? `the database that was there is kept as ${result.previous}\n` : '') +
          (!key.present
            ? `no secret key here yet: put the secret.key of the server the backup came from at ${key.description} (or set SWITCHBOARD_SECRET_KEY to it) before starting, or its credentials cannot be opened\n`
            : result.keyOpensCredentials === false
              ? `WARNING: the secret key (${key.description}) does not open the credentials in this backup: use the key of the server the backup came from before starting\n`
              : result.keyOpensCredentials === true
                ? `the secret key (${key.description}) opens the credentials in it\n`
                : `the credentials open only if ${key.description} is the key of the server the backup came from\n`),
      );
    },
  },
};

function parseWindow(flag: string, text: string): { requests: number; seconds: number } {
  const match = /^(\d{1,9})\/(\d{1,9})$/.exec(text.trim());
  if (!match || Number(match[1]) < 1 || Number(match[2]) < 1)
    throw new UsageError(`${flag} must be REQUESTS/SECONDS, e.g. 100/60`);
  return { requests: Number(match[1]), seconds: Number(match[2]) };
}

/** Open the database and find the workspace environment named by --workspace and --env. */
async function withSecretScope(
  values: Record<string, string | boolean | undefined>,
  config: Config,
  work: (ctx: ServiceContext, scope: { workspaceId: number; environmentId: number }, label: string) => Promise<void>,
): Promise<void> {
  const env = String(values.env).toLowerCase();
  if (env !== 'dev' && env !== 'test' && env !== 'prod') throw new UsageError('--env must be dev, test or prod');
  const { prepare } = await import('./prepare.ts');
  const { createServiceContext } = await import('./context.ts');
  const { findEnvironmentByType } = await import('./workspaces/workspaces.store.ts');
  const { database, secretBox, secrets } = await prepare(config, cliLogger(config));
  try {
    const ctx = createServiceContext({ db: database.db, config, secretBox, log: cliLogger(config), secrets });
    const workspaceId = await workspaceIdFrom(values.workspace, database.db);
    const environment = await findEnvironmentByType(database.db, workspaceId, env);
    if (!environment) throw new UsageError(`workspace ${workspaceId} does not exist`);
    await work(ctx, { workspaceId, environmentId: environment.id }, `workspace ${workspaceId}, environment ${env}`);
  } finally {
    await database.db.destroy();
  }
}

function cliLogger(config: Config) {
  return createLogger(config.logLevel === 'info' ? 'warn' : config.logLevel, pino.destination(2));
}

async function workspaceIdFrom(value: unknown, db: DbHandle['db']): Promise<number> {
  if (typeof value === 'string') {
    if (!/^\d+$/.test(value)) throw new UsageError('--workspace must be a workspace id');
    return Number(value);
  }
  const { findFirstWorkspace } = await import('./workspaces/workspaces.store.ts');
  const first = await findFirstWorkspace(db);
  if (!first) throw new UsageError('no workspace yet: run "switchboard init" first');
  return first.id;
}

function usage(): string {
  const lines = Object.entries(COMMANDS).map(([name, c]) => `  ${name.padEnd(18)} ${c.summary}`);
  return `Usage: switchboard <command> [options]\n\nCommands:\n${lines.join('\n')}\n\nRun "switchboard <command> --help" for the options of a command.\nConfiguration comes from the environment (see README: PORT, HOST, DATA_DIR, ...).\n`;
}

export async function main(argv: string[]): Promise<number> {
  const major = Number(process.versions.node.split('.')[0]);
  if (major < 24) {
    process.stderr.write(
      `switchboard needs Node.js 24 (this is ${process.version}); run it through npm ("npm start", "npx switchboard") so the project's own Node.js is used\n`,
    );
    return 1;
  }
  const [first, second] = argv;
  if (first === undefined || first === '--help' || first === '-h' || first === 'help') {
    process.stdout.write(usage());
    return first === undefined ? 1 : 0;
  }
  const twoWords = second !== undefined ? `${first} ${second}` : '';
  const name = COMMANDS[twoWords] ? twoWords : first;
  const command = COMMANDS[name];
  if (!command) {
    process.stderr.write(`unknown command "${argv.join(' ')}"\n\n${usage()}`);
    return 2;
  }
  const rest = argv.slice(name.split(' ').length);
  try {
    const { values, positionals } = parseArgs({
      args: rest,
      options: command.options,
      strict: true,
      allowPositionals: command.positionals !== undefined,
    });
    if (values.help) {
      process.stdout.write(`Usage: ${command.usage}\n\n${command.summary}\n`);
      return 0;
    }
    const expected = command.positionals ?? [];
    if (positionals.length !== expected.length)
      throw new UsageError(
        `expected ${expected.length === 0 ? 'no arguments' : expected.join(' ')}; usage: ${command.usage}`,
      );
    await command.run(values as Record<string, string | boolean | undefined>, loadConfig(), positionals);
    return 0;
  } catch (error) {
    return explain(error, command.usage);
  }
}
