// Posts one generation's events with one message per turn of the event loop. An engine that emits a burst of
// tokens in one turn would otherwise cost the service worker one task per token (and one message each); the
// events of a turn go together once the turn ends, so a paced token waits only for the end of the task that
// produced it (a MessageChannel hop, well under a millisecond), and an unpaced engine's 32 tokens a turn are
// one message, as the benchmark's port-fed floor sends them.
import type { EngineEvent } from '#shared/wire/engine-port';

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

  constructor(
    private readonly send: (events: EngineEvent[]) => void,
    private readonly later: (task: () => void) => void,
  ) {}

  push(event: EngineEvent): void {
    // The first event of a turn books the flush at its end; the others join it.
    if (this.held.length === 0) this.later(() => this.flush());
    this.held.push(event);
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
