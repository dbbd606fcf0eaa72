// The consumer's service worker: given the provider's port and a reply port, asks the provider's worker and
// passes its answer back with the service worker's own view of isolation.
self.addEventListener('install', () => self.skipWaiting());
self.addEventListener('message', (event) => {
  const [provider, reply] = event.ports;
  event.waitUntil(
    new Promise((done) => {
      provider.onmessage = (answer) => {
        reply.postMessage({ from: 'consumer service worker', answer: answer.data });
        done();
      };
      provider.postMessage({ ...event.data.message, id: 1 });
    }),
  );
});
