#!/usr/bin/env node
// One stage of `npm test` with a hard bound: `node scripts/bounded.mjs <seconds> <command> [args…]` runs the
// command and passes its exit code on. Past the bound it prints what was still running (every process the command
// started, children and grandchildren, with their command lines), stops them all (SIGTERM, then SIGKILL after
// 10 s) and exits 1, so `npm test` always ends and says where it hung. The bounds are package.json's, stage by
// stage (docs/development.md lists them); each is well above the stage's time on 2 loaded cores. At the end it
// prints the stage's time.
import { execFileSync, spawn } from 'node:child_process';

const [seconds, command, ...args] = process.argv.slice(2);
const bound = Number(seconds);
if (!command || !(bound > 0)) {
  console.error('usage: node scripts/bounded.mjs <seconds> <command> [args…]');
  process.exit(2);
}

/** Every process under `root` (its children, theirs…), as [pid, command line]; the machine's `ps`. */
function descendants(root) {
  let table;
  try {
    table = execFileSync('ps', ['-eo', 'pid=,ppid=,args='], { encoding: 'utf8' });
  } catch {
    return [];
  }
  const rows = table
    .split('\n')
    .map((line) => /^\s*(\d+)\s+(\d+)\s+(.*)$/.exec(line))
    .filter(Boolean)
    .map((m) => ({ pid: Number(m[1]), ppid: Number(m[2]), args: m[3] }));
  const found = [];
  const walk = (pid) => {
    for (const row of rows.filter((r) => r.ppid === pid)) {
      found.push(row);
      walk(row.pid);
    }
  };
  walk(root);
  return found;
}

const signal = (pid, sig) => {
  try {
    process.kill(pid, sig);
  } catch {
    // gone already
  }
};

const started = Date.now();
const child = spawn(command, args, { stdio: 'inherit', detached: true });
const label = [command, ...args].join(' ');
child.once('error', (err) => {
  console.error(`bounded: ${label} could not start: ${err.message}`);
  process.exit(1);
});
/** Once past the bound: what was running then, stopped whether or not the command itself ends first. */
let tree;
const timer = setTimeout(() => {
  tree = [{ pid: child.pid, args: label }, ...descendants(child.pid)];
  console.error(
    `\nbounded: ${label} still running after its hard bound of ${bound} s; stopping it. Still running:\n${tree.map((p) => `  ${p.pid} ${p.args}`).join('\n')}`,
  );
  // Its group first (a test runner cleans up its servers on SIGTERM), then each process, wherever its group is.
  signal(-child.pid, 'SIGTERM');
  for (const p of tree) signal(p.pid, 'SIGTERM');
  setTimeout(killAll, 10_000).unref();
}, bound * 1000);
function killAll() {
  signal(-child.pid, 'SIGKILL');
  for (const p of tree) signal(p.pid, 'SIGKILL');
  process.exit(1);
}
// Ctrl-C or a stop of npm test reaches the command's group too.
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => signal(-child.pid, sig));
child.once('exit', (code, sig) => {
  clearTimeout(timer);
  // Past the bound, what the command left (a server in a group of its own) gets its 10 s, then SIGKILL.
  if (tree) setTimeout(killAll, 10_000);
  else {
    // Each stage's time, for CI's log (docs/development.md#ci-time).
    console.error(`bounded: ${label}: ${((Date.now() - started) / 1000).toFixed(0)} s of its ${bound} s, exit ${code ?? sig}`);
    process.exit(code ?? (sig ? 1 : 0));
  }
});
