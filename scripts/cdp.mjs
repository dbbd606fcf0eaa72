// A raw DevTools-protocol client over the browser's WebSocket, with flat sessions (a target's `sessionId` on each
// call): bench.mjs reads heap sizes with it, profile-llama.mjs profiles the page and its workers.
export class Cdp {
  static async connect(port) {
    const version = await (await fetch(`http://127.0.0.1:${port}/json/version`)).json();
    const cdp = new Cdp(new WebSocket(version.webSocketDebuggerUrl));
    await new Promise((resolve, reject) => {
      cdp.ws.addEventListener('open', resolve, { once: true });
      cdp.ws.addEventListener('error', reject, { once: true });
    });
    return cdp;
  }
  constructor(ws) {
    this.ws = ws;
    this.id = 0;
    this.calls = new Map();
    this.listeners = [];
    ws.addEventListener('message', (e) => {
      const msg = JSON.parse(String(e.data));
      if (msg.id !== undefined) {
        const call = this.calls.get(msg.id);
        this.calls.delete(msg.id);
        if (msg.error) call?.reject(new Error(`${call.method}: ${msg.error.message}`));
        else call?.resolve(msg.result);
      } else {
        for (const l of this.listeners) l(msg);
      }
    });
  }
  send(method, params = {}, sessionId) {
    const id = ++this.id;
    this.ws.send(JSON.stringify({ id, method, params, ...(sessionId ? { sessionId } : {}) }));
    return new Promise((resolve, reject) => this.calls.set(id, { resolve, reject, method }));
  }
  close() {
    this.ws.close();
  }
}
