// Change notifications between the parts of the server (and, with PostgreSQL, between nodes):
// a management change publishes, caches that depend on it subscribe and drop stale entries.
// In-process here (one node on SQLite); over LISTEN/NOTIFY between the nodes sharing a
// PostgreSQL database in src/db/pg-notifier.ts.
import { EventEmitter } from 'node:events';

export interface ChangeEvents {
  /** An access profile's credentials, state or grants changed (or its API client's state). */
  'api_access_profile.changed': { profileId: number };
  /** An API client was enabled, disabled or changed: every profile of it is affected. */
  'api_client.changed': { clientId: number };
  /** A connection's credentials may have changed (its input, a secret it references, its folder). */
  'connections.changed': { workspaceId: number };
  /**
   * A connection's values or authorization changed (updated, connected again, refreshed by a job):
   * this node's engine computes again the static webhook keys of the started recipes on it (the
   * index is in the database, so one node writing it is enough: node-local).
   */
  'connection.credentials_changed': { connectionId: number; workspaceId: number; environmentId: number };
  /** A developer API client's token, role, scope or IP list changed, or it was deleted. */
  'developer_api_clients.changed': { workspaceId: number };
  /** Collections or endpoints changed: gateway routes must be re-read. */
  'api_routes.changed': { environmentId: number };
  /** An event topic's name, schema, retention or folder changed, or it was purged or deleted. */
  'event_topic.changed': { topicId: number };
  /** Messages were committed to a topic, up to this sequence number: long-polling consumers wake. */
  'event_topic.published': { topicId: number; lastSeq: number };
  /**
   * A lookup table of the environment was created, deleted, renamed, re-schemed or moved (or its
   * project deleted): the remembered tables of the environment are read again.
   */
  'lookup_tables.changed': { environmentId: number };
  /** Environment or project properties changed: the engine's copy must be re-read. */
  'properties.changed': { environmentId: number };
  /** A package's export or import ended (completed or failed). */
  'package.finished': { packageId: number; status: 'completed' | 'failed' };
  /** A deployment applied its build to the target environment. */
  'deployment.succeeded': { deploymentId: number; projectId: number; environmentType: 'test' | 'prod' };
  /** A deployment failed: nothing of it was applied, or it was applied but a recipe could not start again (named in its error). */
  'deployment.failed': { deploymentId: number; projectId: number; environmentType: 'test' | 'prod'; error: string };
  /** Stopped recipes were deleted with their jobs (alone, or with their folder or project). */
  'recipes.deleted': { recipeIds: number[] };
  /**
   * A job a caller waits for (jobs.awaited) ended and is recorded, on a node where that caller is
   * not: the node where it is reads the job's end from the database and answers.
   */
  'job.ended': { handle: string };
  /** cancel_jobs asked a running job to stop: the node running it ends it before its next step. */
  'job.cancel_requested': { handle: string };
  /** A recipe was started or stopped (on any node: the others arm or disarm its trigger). `origin` is the engine that did it. */
  'recipe.running_changed': { recipeId: number; running: boolean; origin: string };
  /**
   * Changes may have been missed (the link to the other nodes was lost, or an event was too big
   * to send): every cache drops everything, every waiting consumer and subscription reads again.
   */
  'everything.changed': Record<string, never>;
}

/**
 * Events about work this node did, for listeners on this node only: sent to the other nodes,
 * each would act on them again (announce a deployment twice).
 */
export const NODE_LOCAL_EVENTS: ReadonlySet<keyof ChangeEvents> = new Set([
  'package.finished',
  'deployment.succeeded',
  'deployment.failed',
  'connection.credentials_changed',
]);

export interface Notifier {
  publish<K extends keyof ChangeEvents>(topic: K, payload: ChangeEvents[K]): void;
  subscribe<K extends keyof ChangeEvents>(topic: K, listener: (payload: ChangeEvents[K]) => void): () => void;
}

export function createInProcessNotifier(): Notifier {
  const emitter = new EventEmitter();
  emitter.setMaxListeners(0);
  return {
    publish(topic, payload) {
      emitter.emit(topic, payload);
    },
    subscribe(topic, listener) {
      emitter.on(topic, listener as (p: unknown) => void);
      return () => emitter.off(topic, listener as (p: unknown) => void);
    },
  };
}
