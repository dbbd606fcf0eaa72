// Posts one generation's events with at most two messages per turn of the event loop. An engine that emits a
// burst of tokens in one turn would otherwise cost the service worker one task per token, and those tasks run
// before the response's first bytes reach the caller. The first event of a turn goes at once, so a paced
// token never waits for the turn to end.
import type { EngineEvent } from '../../src/engine-protocol';

/** Runs `task` in a later macrotask. A MessageChannel, not setTimeout: nested timers are clamped to 4 ms. */
export function nextTurn(): (task: () => void) => void {
  const channel = new MessageChannel();
  const tasks: (() => void)[] = [];
  channel.port1.onmessage = () => tasks.shift()?.();
  return (task) => {
    tasks.push(task);
    channel.port2.postMessage(null);
  };
}

export class EventBatch {
  private held: EngineEvent[] = [];
  private turnOpen = false;

  constructor(
    private readonly send: (events: EngineEvent[]) => void,
    private readonly later: (task: () => void) => void,
  ) {}

  push(event: EngineEvent): void {
    if (this.turnOpen) {
      this.held.push(event);
      return;
    }
    this.turnOpen = true;
    this.send([event]);
    this.later(() => {
      this.turnOpen = false;
      this.flush();
    });
  }

  /** Sends what is held now (before `end` or `error`, which must come after every event). */
  flush(): void {
    if (this.held.length === 0) return;
    const events = this.held;
    this.held = [];
    this.send(events);
  }

  /** Forgets what is held (the caller aborted: nobody reads it). */
  drop(): void {
    this.held = [];
  }
}
