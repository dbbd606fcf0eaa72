// A test file that never ends (test/unit/tooling/test-processes.test.ts runs it): a server that keeps running, and a wait
// that is never answered. Its hard bound must end it, naming the server, and stop the server's whole group.
import { Processes, suiteBound } from './processes';

const processes = new Processes();
suiteBound(Number(process.argv[2] ?? 500), 'the never-ending fixture suite', processes);
const server = processes.start('sleeper', 'sh', ['-c', 'sleep 300 & echo "child $!"; wait']);
await server.waitForLine(/^child \d+$/, 10_000);
process.stdout.write(`${server.output()}\n`);
// Held open, as a hung test is: a pending timer keeps the process alive.
setInterval(() => undefined, 60_000);
