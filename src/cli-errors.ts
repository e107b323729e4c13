// How the command line reports a command's failure: the message alone for what the user gave or
// what failed in a known way (exit status 2 and 1), a stack trace only for the unforeseen.
import { ConfigError } from './config.ts';
import { SecretKeyError } from './crypto/secret-box.ts';
import { ConnectorRunFailed, ConnectorUsageError } from './connectors/sdk/cli-options.ts';

/** What the user gave cannot be used: the message, exit status 2. */
export class UsageError extends Error {}

/** What `deploy` or `test` checked failed (already reported): exit status 1. */
export class CheckFailed extends Error {
  override name = 'CheckFailed';
}

/** What a command's error says, and its exit status: 2 for what the user gave, 1 for what failed. */
export async function explain(error: unknown, usage: string): Promise<number> {
  if (error instanceof UsageError || error instanceof ConfigError || error instanceof SecretKeyError) {
    process.stderr.write(`switchboard: ${error.message}\n`);
    return 2;
  }
  if (error instanceof CheckFailed) return 1;
  if (error instanceof ConnectorUsageError) {
    process.stderr.write(`switchboard: ${error.message}\n`);
    return 2;
  }
  if (error instanceof ConnectorRunFailed) {
    process.stderr.write(`${error.message}\n`);
    return 1;
  }
  if (error instanceof TypeError && (error as NodeJS.ErrnoException).code?.startsWith('ERR_PARSE_ARGS')) {
    process.stderr.write(`switchboard: ${error.message}\nUsage: ${usage}\n`);
    return 2;
  }
  // The other errors come from modules the command loaded; loading them again here costs nothing.
  const [{ DatabaseConfigError }, { AppError }, { BackupError }, { storageFailureOf }, { STORAGE_FAILURE_TEXT }] =
    await Promise.all([
      import('./db/index.ts'),
      import('./errors.ts'),
      import('./db/backup.ts'),
      import('./db/dialect.ts'),
      import('./db/storage-health.ts'),
    ]);
  if (error instanceof DatabaseConfigError || error instanceof AppError) {
    process.stderr.write(`switchboard: ${error.message}\n`);
    return 2;
  }
  // A port serve cannot listen on (src/server.ts's ListenError, loaded only by serve).
  if (error instanceof BackupError || (error instanceof Error && error.name === 'ListenError')) {
    process.stderr.write(`switchboard: ${error.message}\n`);
    return 1;
  }
  const failure = storageFailureOf(error);
  if (failure !== undefined) {
    process.stderr.write(
      `switchboard: the database cannot be used: ${STORAGE_FAILURE_TEXT[failure]} (${(error as Error).message})\n`,
    );
    return 1;
  }
  process.stderr.write(`switchboard: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  return 1;
}
