// Lifecycle events of the engine (docs/events.md): typed, in-process, for tests, metrics and
// (later) RecipeOps-style triggers. Listeners must not throw; an error in one is logged and ignored.
import { EventEmitter } from 'node:events';

export interface EngineEvents {
  'recipe.started': { recipeId: number };
  'recipe.stopped': { recipeId: number };
  'job.queued': { recipeId: number; jobId: string };
  'job.started': { recipeId: number; jobId: string };
  'job.succeeded': { recipeId: number; jobId: string; durationMs: number };
  'job.failed': { recipeId: number; jobId: string; durationMs: number; error: string; interrupted: boolean };
}

export type EngineEventName = keyof EngineEvents;

export interface EngineEventBus {
  emit<K extends EngineEventName>(name: K, payload: EngineEvents[K]): void;
  on<K extends EngineEventName>(name: K, listener: (payload: EngineEvents[K]) => void): () => void;
}

export function createEventBus(onListenerError: (error: unknown, name: string) => void): EngineEventBus {
  const emitter = new EventEmitter();
  emitter.setMaxListeners(0);
  return {
    emit(name, payload) {
      for (const listener of emitter.listeners(name)) {
        try {
          (listener as (p: unknown) => void)(payload);
        } catch (error) {
          onListenerError(error, name);
        }
      }
    },
    on(name, listener) {
      emitter.on(name, listener as (p: unknown) => void);
      return () => emitter.off(name, listener as (p: unknown) => void);
    },
  };
}
