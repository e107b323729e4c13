// Long polling without polling: a consumer with nothing to read registers here and sleeps until
// a commit to its topic passes its cursor (event_topic.published on the notifier), the topic
// changes (event_topic.changed), its time is up, its connection closes, or the server stops.
import type { Notifier } from '../../notifier.ts';

export type WakeReason = 'published' | 'changed' | 'timeout' | 'closed' | 'shutdown';

export interface Wait {
  /** Resolves once, with the first reason that came (at once if one already did). */
  until(timeoutMs: number): Promise<WakeReason>;
  /** Leave without waiting (the consumer found messages, or its connection closed). */
  cancel(reason?: WakeReason): void;
}

interface Waiter {
  afterSeq: number;
  wake(reason: WakeReason): void;
}

export function createConsumerWaits(notifier: Notifier) {
  const byTopic = new Map<number, Set<Waiter>>();
  let waiting = 0;
  let closing = false;

  const wakeTopic = (topicId: number, reason: WakeReason, lastSeq?: number) => {
    const waiters = byTopic.get(topicId);
    if (!waiters) return;
    for (const waiter of [...waiters]) if (lastSeq === undefined || lastSeq > waiter.afterSeq) waiter.wake(reason);
  };
  notifier.subscribe('event_topic.published', ({ topicId, lastSeq }) => wakeTopic(topicId, 'published', lastSeq));
  notifier.subscribe('event_topic.changed', ({ topicId }) => wakeTopic(topicId, 'changed'));
  // Publishes may have been missed: every waiting consumer reads again.
  notifier.subscribe('everything.changed', () => {
    for (const topicId of [...byTopic.keys()]) wakeTopic(topicId, 'changed');
  });

  return {
    /**
     * Register before reading, so that a commit between the read and the wait still wakes it.
     * `afterSeq`: the consumer's cursor; commits that do not pass it are not news.
     */
    register(topicId: number, afterSeq: number): Wait {
      let reason: WakeReason | null = null;
      let notify: ((r: WakeReason) => void) | null = null;
      let timer: NodeJS.Timeout | null = null;
      const waiter: Waiter = {
        afterSeq,
        wake(r) {
          if (reason !== null) return;
          reason = r;
          if (timer) clearTimeout(timer);
          const set = byTopic.get(topicId);
          if (set?.delete(waiter)) waiting -= 1;
          if (set && set.size === 0) byTopic.delete(topicId);
          notify?.(r);
        },
      };
      if (closing) reason = 'shutdown';
      else {
        let set = byTopic.get(topicId);
        if (!set) byTopic.set(topicId, (set = new Set()));
        set.add(waiter);
        waiting += 1;
      }
      return {
        until(timeoutMs) {
          if (reason !== null) return Promise.resolve(reason);
          return new Promise<WakeReason>((resolve) => {
            notify = resolve;
            timer = setTimeout(() => waiter.wake('timeout'), Math.max(0, timeoutMs));
          });
        },
        cancel(r = 'closed') {
          waiter.wake(r);
        },
      };
    },
    /** The server is stopping: every consumer answers now with what it has, and none waits again. */
    shutdown(): void {
      closing = true;
      for (const topicId of [...byTopic.keys()]) wakeTopic(topicId, 'shutdown');
    },
    /** Consumers waiting right now (a gauge on /metrics). */
    waiting(): number {
      return waiting;
    },
  };
}

export type ConsumerWaits = ReturnType<typeof createConsumerWaits>;
