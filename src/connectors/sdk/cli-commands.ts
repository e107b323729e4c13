// The command line's custom connector commands (src/cli.ts lists them with the others): connector
// exec and check for connector authors, prepare-ruby for npm install.
import type { ParseArgsConfig } from 'node:util';
import type { Config } from '../../config.ts';
import { EXEC_OPTIONS } from './cli-options.ts';

/** The shape of a command of src/cli.ts (declared here so that the two files do not import each other). */
interface ConnectorCommand {
  summary: string;
  usage: string;
  options: NonNullable<ParseArgsConfig['options']>;
  positionals?: readonly string[];
  run(values: Record<string, string | boolean | undefined>, config: Config, positionals: string[]): Promise<void>;
}

const help = { type: 'boolean', short: 'h' } as const;

const cliOutput = {
  stdout: (text: string) => process.stdout.write(text),
  stderr: (text: string) => process.stderr.write(text),
};

export const CONNECTOR_COMMANDS: Record<string, ConnectorCommand> = {
  'connector exec': {
    summary:
      "Run a path of a custom connector written in the vendor's Ruby SDK (test, actions.NAME.execute, triggers.NAME.poll, methods.NAME, pick_lists.NAME...), as `workato exec` does",
    usage:
      'switchboard connector exec PATH [--connector connector.rb] [--settings settings.json|yaml] [--input input.json] [--args args.json] [--closure closure.json] [--output out.json] [--verbose] (and --config-fields, --extended-input-schema, --extended-output-schema, --webhook-payload, --webhook-params, --webhook-headers, --webhook-subscribe-output, --webhook-url, --oauth2-code, --redirect-url, --refresh-token, --continue, --connection NAME, --timeout-ms)',
    options: { help, ...EXEC_OPTIONS },
    positionals: ['PATH'],
    async run(values, config, positionals) {
      const { connectorExec } = await import('./cli.ts');
      await connectorExec(positionals[0]!, values, config, cliOutput);
    },
  },
  'connector check': {
    summary: "Evaluate every action's and trigger's fields of a custom connector and report what fails",
    usage: 'switchboard connector check connector.rb [--settings settings.json|yaml] [--connection NAME]',
    options: {
      help,
      settings: EXEC_OPTIONS.settings,
      connection: EXEC_OPTIONS.connection,
      'timeout-ms': EXEC_OPTIONS['timeout-ms'],
    },
    positionals: ['FILE'],
    async run(values, config, positionals) {
      const { connectorCheck } = await import('./cli.ts');
      await connectorCheck(positionals[0]!, values, config, cliOutput);
    },
  },
  'prepare-ruby': {
    summary:
      "Load the Ruby interpreter of custom connectors once and keep its memory snapshot beside the installation, so a fresh process's first custom connector call starts at once (npm install runs it)",
    usage: 'switchboard prepare-ruby',
    options: { help },
    async run() {
      const { installedRubySnapshotFile, prepareRubySnapshot } = await import('./ruby-sandbox.ts');
      const file = installedRubySnapshotFile();
      const started = Date.now();
      await prepareRubySnapshot(file);
      process.stderr.write(
        `the Ruby interpreter's snapshot is ready in ${file} (${((Date.now() - started) / 1000).toFixed(1)} s)\n`,
      );
    },
  },
};
