// The tests' process harness (test/harness/processes.ts): a server that exits at start fails its wait at once with
// its own error and exit code; a taken port is one such exit; a stop ends the whole process group and never throws;
// a suite's hard bound ends a file that would hang, naming what still ran. The old harness (stdio 'ignore', a URL
// polled 100 times, `process.kill(-pid)` in `after`) waited 30 s in silence for the first, answered the second from
// the other process's port, and threw ESRCH in the third.
import { execFileSync, spawn } from 'node:child_process';
import { createServer, type Server } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { OUTPUT_LINES, ProcessError, Processes } from '../../harness/processes';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const processes = new Processes();
afterEach(() => processes.stopAll());

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** A port no one listens on, and a server holding another. */
async function takenPort(): Promise<{ port: number; holder: Server }> {
  const holder = createServer((socket) => socket.end('HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok'));
  await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
  return { port: (holder.address() as { port: number }).port, holder };
}

describe('a server that exits at start', () => {
  it("fails the wait for its ready line at once, with its exit code and its own error (Vite 8.4's lock error)", async () => {
    const lockError = 'Error: Found another Vite preview process for this project at http://127.0.0.1:4656/app/ (PID 4242).';
    const server = processes.start('vite preview :4656', process.execPath, ['-e', `console.error(${JSON.stringify(lockError)}); process.exit(1)`]);
    const started = Date.now();
    const err = await server.waitForLine(/Local:\s+http/, 60_000).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ProcessError);
    expect(Date.now() - started).toBeLessThan(10_000);
    const message = (err as Error).message;
    expect(message).toMatch(/^vite preview :4656 exited with code 1 before printing a line matching/);
    expect(message).toContain(`vite preview :4656| ${lockError}`);
  });

  it('fails the wait for its URL at once too, though the URL would never answer', async () => {
    const server = processes.start('quitter', process.execPath, ['-e', 'console.log("bye"); process.exit(7)']);
    const err = (await server.waitForUrl('http://127.0.0.1:9/', 60_000).catch((e: unknown) => e)) as Error;
    expect(err.message).toMatch(/^quitter exited with code 7 before http:\/\/127\.0\.0\.1:9\/ answered; its last output:\n {2}quitter\| bye$/);
  });

  it('on a taken port: its EADDRINUSE, not the other process answering the URL', async () => {
    const { port, holder } = await takenPort();
    try {
      const script = `require('http').createServer().listen(${port}, '127.0.0.1', () => console.log('http://127.0.0.1:${port}/'))`;
      const server = processes.start(`server :${port}`, process.execPath, ['-e', script]);
      const err = (await server.waitForLine(/^http:\/\/127\.0\.0\.1/, 60_000).catch((e: unknown) => e)) as Error;
      expect(err.message).toMatch(new RegExp(`^server :${port} exited with code 1 before printing`));
      expect(err.message).toContain('EADDRINUSE');
    } finally {
      holder.close();
    }
  });

  it('a program that is not there: could not start, said at once', async () => {
    const server = processes.start('missing', 'inpage-no-such-program', []);
    const err = (await server.waitForUrl('http://127.0.0.1:9/', 60_000).catch((e: unknown) => e)) as Error;
    expect(err.message).toMatch(/^missing could not start \(spawn inpage-no-such-program ENOENT\) before/);
  });
});

describe('a running server', () => {
  it('is ready once its line is printed and its URL answers; keeps only its last lines', async () => {
    const script = `for (let i = 0; i < ${OUTPUT_LINES + 20}; i++) console.log('line ' + i);
      const s = require('http').createServer((q, r) => r.end('ok')).listen(0, '127.0.0.1', () => console.log('http://127.0.0.1:' + s.address().port + '/'));`;
    const server = processes.start('web', process.execPath, ['-e', script]);
    const line = await server.waitForLine(/^http:\/\/127\.0\.0\.1:\d+\/$/, 30_000);
    await server.waitForUrl(line, 30_000);
    const lines = server.output().split('\n');
    expect(lines).toHaveLength(OUTPUT_LINES);
    expect(lines[0]).toBe('line 21');
    expect(lines.at(-1)).toBe(line);
    expect(processes.running()).toEqual([`web (pid ${server.child.pid})`]);
  });

  it('matches its ready line in colour too (tools colour their output when CI is set), and shows it without', async () => {
    const script = `console.log('  \\x1b[32m➜\\x1b[39m  \\x1b[1mLocal\\x1b[22m:   \\x1b[36mhttp://127.0.0.1:\\x1b[1m4648\\x1b[22m/\\x1b[39m'); setTimeout(() => {}, 30000)`;
    const server = processes.start('coloured', process.execPath, ['-e', script]);
    expect(await server.waitForLine(/Local:\s+http/, 10_000)).toBe('  ➜  Local:   http://127.0.0.1:4648/');
    expect(server.output()).not.toContain('\x1b');
  });

  it('a stop ends its whole group (what it started too), and a second stop or a stop of a gone process never throws', async () => {
    const server = processes.start('group', 'sh', ['-c', 'sleep 300 & echo "child $!"; wait']);
    const line = await server.waitForLine(/^child \d+$/, 10_000);
    const grandchild = Number(line.split(' ')[1]);
    expect(alive(grandchild)).toBe(true);
    await processes.stopAll();
    expect(server.exit).toBeDefined();
    await expect.poll(() => alive(grandchild), { timeout: 5_000 }).toBe(false);
    await expect(processes.stopAll()).resolves.toBeUndefined();
    const gone = processes.start('gone', process.execPath, ['-e', '0']);
    await gone.exited;
    await expect(processes.stop(gone)).resolves.toBeUndefined();
    expect(processes.running()).toEqual([]);
  });
});

describe("a suite's hard bound", () => {
  it('ends a file that would hang: exit 1, naming what still ran, its group stopped', async () => {
    const child = spawn(process.execPath, ['--import', './test/firefox/register-ts.mjs', 'test/harness/bound-child.ts', '1500'], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    const started = Date.now();
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(code).toBe(1);
    expect(err).toMatch(/the never-ending fixture suite: still not done after its hard bound of 1\.5 s; ending it\. Still running: sleeper \(pid \d+\)\./);
    const grandchild = Number(/child (\d+)/.exec(out)?.[1]);
    expect(grandchild).toBeGreaterThan(0);
    await expect.poll(() => alive(grandchild), { timeout: 5_000 }).toBe(false);
    // Nothing of it is left in the process table.
    expect(execFileSync('ps', ['-eo', 'pid']).toString().split('\n').map(Number)).not.toContain(grandchild);
  });
});
