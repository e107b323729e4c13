// What services receive explicitly: the database handle, the clock, a logger, the secret box,
// the secret resolver and, in the server, the mailer.
// No container, no singletons: the server, the CLI, tests and (later) the engine build one.
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Database } from './db/types.ts';
import type { Clock } from './time.ts';
import type { SecretBox } from './crypto/secret-box.ts';
import type { Config } from './config.ts';
import type { Notifier } from './notifier.ts';
import type { Mailer } from './mail/mailer.ts';
import type { SecretResolver } from './api/secrets_management/secret-resolver.ts';
import type { RecipeEngine } from './engine/engine.ts';

export interface ServiceContext {
  readonly db: Kysely<Database>;
  readonly clock: Clock;
  readonly log: Logger;
  /** Encrypts credentials at rest (AES-256-GCM under SWITCHBOARD_SECRET_KEY). */
  readonly secretBox: SecretBox;
  readonly config: Config;
  /** Change notifications (cache invalidation), in-process for SQLite. */
  readonly notifier: Notifier;
  /** Sends e-mail through SMTP_URL; absent when no SMTP server is configured. */
  readonly mailer?: Mailer;
  /** PUBLIC_BASE_URL, for links in what the server sends out (e-mails); absent outside the server. */
  readonly publicBaseUrl?: string;
  /** Resolves secret references (built-in store, environment variables, files), with its cache. */
  readonly secrets: SecretResolver;
  /** The recipe engine (triggers, job queue, workers); absent in the CLI's contexts. */
  readonly engine?: RecipeEngine;
}
