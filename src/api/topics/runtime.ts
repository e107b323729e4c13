// The parts of the event streams API that live as long as the server: the topic cache, the
// group-commit publisher, the waiting consumers, the access checks and the retention sweep.
// buildApp creates one, starts the sweep when the server is ready, and stops everything on close.
import type { ServiceContext } from '../../context.ts';
import type { AccessResolver } from '../../auth/access.ts';
import { createConsumerWaits } from './consumer-waits.ts';
import { createPublisher } from './publisher.ts';
import { createRetentionSweeper } from './retention.ts';
import { createTopicAccess } from './topic-access.ts';
import { createTopicCache } from './topic-cache.ts';

export function createEventStreamsRuntime(ctx: ServiceContext, resolver: AccessResolver) {
  const runtime = {
    topics: createTopicCache(ctx),
    publisher: createPublisher(ctx),
    waits: createConsumerWaits(ctx.notifier),
    access: createTopicAccess(ctx, resolver),
    sweeper: createRetentionSweeper(ctx, { intervalMs: ctx.config.eventStreamsSweepIntervalMs }),
  };
  return {
    ...runtime,
    start(): void {
      runtime.sweeper.start();
    },
    /**
     * The server is closing (preClose, before the database closes): every long poll answers now
     * with what it has, and a sweep in progress finishes its statement and stops.
     */
    async beginShutdown(): Promise<void> {
      runtime.waits.shutdown();
      await runtime.sweeper.stop();
    },
    /** After the last request (onClose): no commit in flight. */
    async stop(): Promise<void> {
      await runtime.publisher.close();
    },
  };
}

export type EventStreams = ReturnType<typeof createEventStreamsRuntime>;
