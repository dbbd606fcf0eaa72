// Every process a test starts, started here: in a process group of its own (so a stop reaches what it starts in
// turn: `npx` → `node vite`), its output kept (the last OUTPUT_LINES lines of stdout and stderr together) and shown
// when a wait on it fails, its exit watched. A wait for a server fails at once when the server exits, with its exit
// code and last lines; a stop never throws and ends the whole group (SIGTERM, then SIGKILL after STOP_GRACE_MS). A
// suite's hard bound (`suiteBound`) ends the test process, naming what was still running, so `npm test` always ends.
// Node's own modules only: used by node's test runner files, Playwright's specs and the package test alike.
import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';

/** How many of a process's last output lines are kept and shown. */
export const OUTPUT_LINES = 80;
/** Terminal colour and style sequences (ESC [ … letter). */
// eslint-disable-next-line no-control-regex
const ANSI = /\x1b\[[0-9;?]*[A-Za-z]/g;
/** How long a stopped process group has to exit after SIGTERM before it gets SIGKILL. */
export const STOP_GRACE_MS = 5_000;

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** Set when the program could not be started at all (not found, not executable). */
  error?: string;
}

/** A process a test started. */
export interface Managed {
  readonly name: string;
  readonly child: ChildProcess;
  /** Its exit, once it has exited (undefined while it runs). */
  readonly exit: Exit | undefined;
  /** Resolves when it has exited (never rejects). */
  readonly exited: Promise<Exit>;
  /** Its last output lines, stdout and stderr as they came. */
  output(): string;
  /** Resolves once a line of its output matches (rejects at once if it exits first, or after `timeoutMs`). */
  waitForLine(pattern: RegExp, timeoutMs: number): Promise<string>;
  /** Resolves once `url` answers 2xx–4xx while it still runs (rejects at once if it exits, or after `timeoutMs`). */
  waitForUrl(url: string, timeoutMs: number): Promise<void>;
}

const describeExit = (exit: Exit): string =>
  exit.error ? `could not start (${exit.error})` : exit.signal ? `was ended by ${exit.signal}` : `exited with code ${exit.code}`;

/** Thrown by a wait on a process: says which process, what happened, and its last lines. */
export class ProcessError extends Error {
  constructor(managed: Pick<Managed, 'name' | 'output'>, what: string) {
    const out = managed.output();
    super(`${managed.name} ${what}${out ? `; its last output:\n${out.replace(/^/gm, `  ${managed.name}| `)}` : ' (it printed nothing)'}`);
    this.name = 'ProcessError';
  }
}

/** The processes one test file starts: `start` each, `stopAll` in its cleanup (never throws). */
export class Processes {
  private readonly all: Managed[] = [];

  /** Starts `command` in a process group of its own, its output piped and kept; `echo` copies it to stderr too. */
  start(name: string, command: string, args: string[], options: Omit<SpawnOptions, 'stdio' | 'detached'> & { echo?: boolean } = {}): Managed {
    const { echo = process.env.INPAGE_TEST_ECHO === '1', ...spawnOptions } = options;
    const child = spawn(command, args, { ...spawnOptions, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    const lines: string[] = [];
    const listeners = new Set<(line: string) => void>();
    let partial = '';
    const take = (chunk: Buffer) => {
      const text = partial + chunk.toString('utf8');
      const parts = text.split(/\r?\n/);
      partial = parts.pop() ?? '';
      if (partial.length > 4096) {
        parts.push(partial);
        partial = '';
      }
      for (const raw of parts) {
        // Without colours: a tool colours its output when CI is set (picocolors), and a ready line must still match.
        const line = raw.replace(ANSI, '');
        lines.push(line);
        if (lines.length > OUTPUT_LINES) lines.shift();
        if (echo) process.stderr.write(`${name}| ${line}\n`);
        for (const listen of listeners) listen(line);
      }
    };
    child.stdout!.on('data', take);
    child.stderr!.on('data', take);
    let exit: Exit | undefined;
    const exited = new Promise<Exit>((resolve) => {
      child.once('error', (err) => {
        // An 'error' without a pid is a spawn that never started; with one, 'exit' still follows.
        if (child.pid === undefined) resolve((exit = { code: null, signal: null, error: err.message }));
      });
      child.once('exit', (code, signal) => resolve((exit = { code, signal })));
    });
    const output = () => [...lines, ...(partial ? [partial.replace(ANSI, '')] : [])].join('\n');
    const managed: Managed = {
      name,
      child,
      get exit() {
        return exit;
      },
      exited,
      output,
      waitForLine(pattern, timeoutMs) {
        const seen = lines.find((line) => pattern.test(line));
        if (seen !== undefined) return Promise.resolve(seen);
        return new Promise<string>((resolve, reject) => {
          const done = () => (listeners.delete(listen), clearTimeout(timer));
          const listen = (line: string) => {
            if (!pattern.test(line)) return;
            done();
            resolve(line);
          };
          listeners.add(listen);
          const timer = setTimeout(
            () => (done(), reject(new ProcessError(managed, `printed no line matching ${pattern} within ${timeoutMs / 1000} s`))),
            timeoutMs,
          );
          void exited.then((e) => (done(), reject(new ProcessError(managed, `${describeExit(e)} before printing a line matching ${pattern}`))));
        });
      },
      async waitForUrl(url, timeoutMs) {
        const end = Date.now() + timeoutMs;
        for (;;) {
          if (exit) throw new ProcessError(managed, `${describeExit(exit)} before ${url} answered`);
          const answered = await fetch(url, { signal: AbortSignal.timeout(2_000) }).then(
            (res) => (void res.body?.cancel(), res.status < 500),
            () => false,
          );
          // A server that answered but exits right after (the port was another's) is not ready either.
          if (answered && !exit) return;
          if (exit) throw new ProcessError(managed, `${describeExit(exit)} before ${url} answered`);
          if (Date.now() > end) throw new ProcessError(managed, `did not answer ${url} within ${timeoutMs / 1000} s (it is still running)`);
          await Promise.race([new Promise((r) => setTimeout(r, 200)), exited]);
        }
      },
    };
    this.all.push(managed);
    return managed;
  }

  /** The ones still running, as "name (pid N)". */
  running(): string[] {
    return this.all.filter((m) => !m.exit).map((m) => `${m.name} (pid ${m.child.pid})`);
  }

  /** What every process printed last, for a failure's message. */
  report(): string {
    return this.all.map((m) => `--- ${m.name}: ${m.exit ? describeExit(m.exit) : 'running'}\n${m.output()}`).join('\n');
  }

  /** Ends one process's group: SIGTERM, then SIGKILL after STOP_GRACE_MS. Never throws. */
  async stop(managed: Managed): Promise<void> {
    const pid = managed.child.pid;
    if (pid === undefined) return;
    if (!signalGroup(pid, 'SIGTERM') && managed.exit) return;
    const settled = await Promise.race([managed.exited.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), STOP_GRACE_MS).unref())]);
    // Even after the leader exited, what it started may still be in its group.
    signalGroup(pid, 'SIGKILL');
    if (!settled) await Promise.race([managed.exited, new Promise((r) => setTimeout(r, STOP_GRACE_MS).unref())]);
  }

  /** Ends every process started here, all at once. Never throws. */
  async stopAll(): Promise<void> {
    await Promise.all(this.all.map((m) => this.stop(m)));
  }

  /** SIGKILLs every group at once, synchronously (for a process that is about to exit). */
  killAllNow(): void {
    for (const m of this.all) if (m.child.pid !== undefined) signalGroup(m.child.pid, 'SIGKILL');
  }
}

/** Sends a signal to a process group; false when there is no such group (already gone). Never throws. */
function signalGroup(pid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(-pid, signal);
    return true;
  } catch {
    try {
      process.kill(pid, signal);
      return true;
    } catch {
      return false;
    }
  }
}

/**
 * A test file's hard bound: after `ms` the file's process writes which of `processes` were still running (with
 * their last output) and what `what` names, ends them all, and exits with code 1, whatever its tests are waiting
 * on. The timer does not keep the process alive; `clear` (the returned function) lifts the bound.
 */
export function suiteBound(ms: number, what: string, ...processes: Processes[]): () => void {
  const timer = setTimeout(() => {
    const running = processes.flatMap((p) => p.running());
    process.stderr.write(
      `\n${what}: still not done after its hard bound of ${ms / 1000} s; ending it. Still running: ${running.length ? running.join(', ') : 'no process of its own'}.\n${processes
        .map((p) => p.report())
        .join('\n')}\n`,
    );
    for (const p of processes) p.killAllNow();
    process.exit(1);
  }, ms);
  timer.unref();
  // Whatever else ends this process (a failed hook, an uncaught error) ends its processes too.
  const onExit = () => processes.forEach((p) => p.killAllNow());
  process.once('exit', onExit);
  return () => (clearTimeout(timer), process.off('exit', onExit));
}
