// What services receive explicitly: the database handle, the clock, a logger, the settings.
// No container, no singletons: the server, the CLI, tests and (later) the engine build one.
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Database } from './db/types.ts';
import type { Clock } from './time.ts';
import type { SecretBox } from './crypto/secret-box.ts';
import type { Config } from './config.ts';
import type { GroupCommit } from './db/group-commit.ts';

export interface ServiceContext {
  readonly db: Kysely<Database>;
  readonly clock: Clock;
  readonly log: Logger;
  /** Encrypts credentials at rest (AES-256-GCM under SWITCHBOARD_SECRET_KEY). */
  readonly secretBox: SecretBox;
  /** The settings read once at start (src/config.ts). */
  readonly config: Config;
  /** Small writes that arrive together share one transaction and one commit (src/db/group-commit.ts). */
  readonly groupCommit: GroupCommit;
}
