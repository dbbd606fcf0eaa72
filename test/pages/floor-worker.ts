/// <reference lib="webworker" />
// Test build only: feeds the floor service worker (floor-sw.ts) N tokens 32 to a message over a MessagePort,
// yielding to the event loop through a MessageChannel between messages (as the test engine does).
export {};
const turn = new MessageChannel();
const waiting: (() => void)[] = [];
turn.port1.onmessage = () => waiting.shift()?.();
const yieldTurn = () => new Promise<void>((resolve) => (waiting.push(resolve), turn.port2.postMessage(null)));

self.onmessage = (event: MessageEvent<{ port: MessagePort }>) => {
  const port = event.data.port;
  port.onmessage = async (e: MessageEvent<{ id: number; n: number }>) => {
    const { id, n } = e.data;
    for (let i = 1; i <= n; i += 32) {
      const tokens: string[] = [];
      for (let j = i; j < i + 32 && j <= n; j++) tokens.push(` ${j}`);
      port.postMessage({ id, tokens });
      await yieldTurn();
    }
    port.postMessage({ id, done: true });
  };
};
