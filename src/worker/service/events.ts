/**
 * The trainer service's events to the page, batched: at most four sends a second, so the main
 * thread only renders; an urgent event (a phase change) goes at once with what waits. Every event
 * is also seen by the saved runs (savedRuns.ts), which keep the live run's metrics for its next
 * save.
 */
import type { RunPhase } from '../../core/runnerTypes';
import type { TrainerEvent } from '../protocol';

export interface Events {
  send(event: TrainerEvent, urgent?: boolean): void;
  flush(): void;
  /** Where the batches go (the page's handler, given at init). */
  setEmit(emit: (events: TrainerEvent[]) => void): void;
  readonly phase: RunPhase;
  setPhase(next: RunPhase, message: string): void;
  /**
   * Work that set a phase of its own (`own`: loading, saving, evaluating) hands back `next` when
   * it ends, unless a command changed the phase meanwhile (Stop, Pause): that one stands, and
   * only the message is said. Returns whether the phase was handed back.
   */
  endPhase(own: RunPhase, next: RunPhase, message: string): boolean;
}

export function createEvents(observe: (event: TrainerEvent) => void): Events {
  let emit: (events: TrainerEvent[]) => void = () => undefined;
  let queue: TrainerEvent[] = [];
  let timer: ReturnType<typeof setTimeout> | null = null;
  let phase: RunPhase = 'idle';
  const flush = () => {
    if (timer) clearTimeout(timer);
    timer = null;
    if (queue.length === 0) return;
    const events = queue;
    queue = [];
    emit(events);
  };
  const send = (event: TrainerEvent, urgent = false) => {
    observe(event);
    queue.push(event);
    if (urgent) flush();
    else timer ??= setTimeout(flush, 250);
  };
  return {
    send,
    flush,
    setEmit: (next) => {
      emit = next;
    },
    get phase() {
      return phase;
    },
    setPhase(next, message) {
      phase = next;
      send({ type: 'phase', phase: next, message }, true);
    },
    endPhase(own, next, message) {
      const mine = phase === own;
      this.setPhase(mine ? next : phase, message);
      return mine;
    },
  };
}
