// What services receive explicitly: the database handle, the clock, a logger, the secret box
// and the secret resolver.
// No container, no singletons: the server, the CLI, tests and (later) the engine build one.
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Database } from './db/types.ts';
import type { Clock } from './time.ts';
import type { SecretBox } from './crypto/secret-box.ts';
import type { SecretResolver } from './api/secrets_management/secret-resolver.ts';

export interface ServiceContext {
  readonly db: Kysely<Database>;
  readonly clock: Clock;
  readonly log: Logger;
  /** Encrypts credentials at rest (AES-256-GCM under SWITCHBOARD_SECRET_KEY). */
  readonly secretBox: SecretBox;
  /** Resolves secret references (built-in store, environment variables, files), with its cache. */
  readonly secrets: SecretResolver;
}
