// A hostile host for the URL-settings tests: on 127.0.0.2 (another origin than the app's 127.0.0.1), it logs
// every request it gets and answers each with something the engine would run if it ever asked: a model config,
// and a model library (.wasm) whose start function traps.
import { createServer, type Server } from 'node:http';

/** A valid wasm module whose start function is `unreachable`: instantiating it traps. */
export const TRAPPING_WASM = Uint8Array.from([
  0x00,
  0x61,
  0x73,
  0x6d,
  0x01,
  0x00,
  0x00,
  0x00, // magic, version
  0x01,
  0x04,
  0x01,
  0x60,
  0x00,
  0x00, // types: () -> ()
  0x03,
  0x02,
  0x01,
  0x00, // functions: one of type 0
  0x08,
  0x01,
  0x00, // start: function 0
  0x0a,
  0x05,
  0x01,
  0x03,
  0x00,
  0x00,
  0x0b, // code: no locals, unreachable, end
]);

export interface AttackerServer {
  origin: string;
  /** Every request received: method and path. */
  readonly requests: string[];
  close(): Promise<void>;
}

export async function serveAttacker(basePort: number): Promise<AttackerServer> {
  const port = basePort + Number(process.env.INPAGE_PORT_OFFSET ?? 0);
  const requests: string[] = [];
  const server: Server = createServer((req, res) => {
    requests.push(`${req.method} ${req.url}`);
    const cors = { 'access-control-allow-origin': '*', 'access-control-allow-headers': '*', 'cache-control': 'no-store' };
    if (req.url?.endsWith('.wasm')) res.writeHead(200, { ...cors, 'content-type': 'application/wasm' }).end(TRAPPING_WASM);
    else if (req.url?.endsWith('.json')) res.writeHead(200, { ...cors, 'content-type': 'application/json' }).end('{"model_type":"qwen3"}');
    else res.writeHead(200, cors).end('attacker');
  });
  await new Promise<void>((ok, fail) => {
    server.once('error', fail);
    server.listen(port, '127.0.0.2', () => ok());
  });
  return {
    origin: `http://127.0.0.2:${port}`,
    requests,
    close() {
      server.closeAllConnections();
      return new Promise<void>((ok) => server.close(() => ok()));
    },
  };
}
