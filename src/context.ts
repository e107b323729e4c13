// What services receive explicitly: the database handle, the clock, a logger, the settings, the
// secret box and resolver, change notifications, group commit and, in the server, the mailer.
// No container, no singletons: the server, the CLI and tests build one with createServiceContext.
// The recipe engine is not part of it: it is passed to the few places that use it.
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Config } from './config.ts';
import type { SecretBox } from './crypto/secret-box.ts';
import { createGroupCommit, type GroupCommit } from './db/group-commit.ts';
import type { Database } from './db/types.ts';
import type { Mailer } from './mail/mailer.ts';
import { createInProcessNotifier, type Notifier } from './notifier.ts';
import { LookupTableCache } from './api/lookup_tables/lookup_tables.cache.ts';
import { createFirstRowLookups, type FirstRowLookups } from './api/lookup_tables/lookup_tables.batch.ts';
import { secretResolverFor, type SecretResolver } from './api/secrets_management/secret-resolver.ts';
import { systemClock, type Clock } from './time.ts';
import { createOutboundPolicy, type OutboundPolicy } from './outbound/policy.ts';
import { lazyConnectorRuntime, type LazyConnectorRuntime } from './connectors/sdk/lazy-runtime.ts';

export interface ServiceContext {
  readonly db: Kysely<Database>;
  readonly clock: Clock;
  readonly log: Logger;
  /** Encrypts credentials at rest (AES-256-GCM under SWITCHBOARD_SECRET_KEY). */
  readonly secretBox: SecretBox;
  /** The settings read once at start (src/config.ts). */
  readonly config: Config;
  /** Change notifications (cache invalidation), in-process for SQLite. */
  readonly notifier: Notifier;
  /** Resolves secret references (built-in store, environment variables, files), with its cache. */
  readonly secrets: SecretResolver;
  /** The lookup tables' facts that lookups and row writes need, kept current through the notifier. */
  readonly lookupTables: LookupTableCache;
  /** Lookups by one column in a remembered table; those arriving together share a statement on PostgreSQL. */
  readonly lookupRows: FirstRowLookups;
  /** Small writes that arrive together share one transaction and one commit (src/db/group-commit.ts). */
  readonly groupCommit: GroupCommit;
  /** Sends e-mail through SMTP_URL; absent when no SMTP server is configured. */
  readonly mailer?: Mailer;
  /** PUBLIC_BASE_URL, for links in what the server sends out (e-mails). */
  readonly publicBaseUrl?: string;
  /** This process among the nodes sharing the database: the holder of its job claims and leases. */
  readonly nodeId: string;
  /** What requests made for users may reach (connectors, the HTTP connector, proxies, JWKS): docs/adr/0019. */
  readonly outbound: OutboundPolicy;
  /** The Ruby runtime of custom connectors (src/connectors/sdk/), started at its first use. */
  readonly rubyConnectors: LazyConnectorRuntime;
}

export interface ContextParts {
  db: Kysely<Database>;
  config: Config;
  secretBox: SecretBox;
  log: Logger;
  clock?: Clock | undefined;
  secrets?: SecretResolver | undefined;
  notifier?: Notifier | undefined;
  mailer?: Mailer | undefined;
  nodeId?: string | undefined;
  outbound?: OutboundPolicy | undefined;
}

/** Host, process and a random part: unique among the nodes, readable in the jobs table and the logs. */
export function newNodeId(): string {
  return `${os.hostname().slice(0, 40)}/${process.pid}/${randomBytes(4).toString('hex')}`;
}

/** One context from its parts; what is not given is made here (resolver, notifier, group commit). */
export function createServiceContext(parts: ContextParts): ServiceContext {
  const clock = parts.clock ?? systemClock;
  const notifier = parts.notifier ?? createInProcessNotifier();
  return {
    db: parts.db,
    clock,
    log: parts.log,
    secretBox: parts.secretBox,
    config: parts.config,
    notifier,
    lookupTables: new LookupTableCache(notifier),
    lookupRows: createFirstRowLookups(parts.db),
    secrets: parts.secrets ?? secretResolverFor(parts.config, clock, parts.secretBox),
    groupCommit: createGroupCommit(parts.db),
    publicBaseUrl: parts.config.publicBaseUrl,
    nodeId: parts.nodeId ?? newNodeId(),
    outbound: parts.outbound ?? outboundPolicyFor(parts.config),
    rubyConnectors: lazyConnectorRuntime(parts.config),
    ...(parts.mailer ? { mailer: parts.mailer } : {}),
  };
}

/** The outbound policy the settings describe. */
export function outboundPolicyFor(config: Config): OutboundPolicy {
  return createOutboundPolicy({
    allowLoopback: config.outboundAllowLoopback,
    allowPrivate: config.outboundAllowPrivate,
    allowAddresses: config.outboundAllowAddresses,
    ownPorts: [config.port, ...(config.eventStreamsPort === undefined ? [] : [config.eventStreamsPort])],
    ownUrls: [config.publicBaseUrl, config.publicAuthUrl, config.publicGatewayUrl, config.publicEventStreamsUrl],
  });
}
