// A consumer site: embeds the provider's page in an iframe (its URL, `allow` and `credentialless` from this
// page's query) and forwards the MessagePort the provider offers to its own service worker (`?sw=1`).
/* eslint-disable */
const params = new URLSearchParams(location.search);
const frame = document.createElement('iframe');
frame.src = params.get('provider');
if (params.has('allow')) frame.allow = params.get('allow');
if (params.has('credentialless')) frame.credentialless = true;
frame.style.cssText = 'border:0;width:400px;height:200px';
document.body.appendChild(frame);

let providerPort = null;
let ticks = 0;
window.addEventListener('message', (event) => {
  if (event.data && event.data.type === 'inpage-provider-port') providerPort = event.ports[0];
  if (event.data && event.data.type === 'inpage-provider-tick') ticks += 1;
});

window.consumer = {
  // `?sw=1`: the page has a service worker (only where a test uses one: it costs a start per page).
  registration: params.has('sw') ? navigator.serviceWorker.register('consumer-sw.js').then(() => navigator.serviceWorker.ready) : null,
  hasPort: () => providerPort !== null,
  ticks: () => ticks,
  /** The service worker asks the provider's worker `message` through the port; its answer. */
  async throughServiceWorker(message) {
    const registration = await window.consumer.registration;
    const reply = new MessageChannel();
    const answer = new Promise((ok) => {
      reply.port1.onmessage = (event) => ok(event.data);
    });
    registration.active.postMessage({ message }, [providerPort, reply.port2]);
    providerPort = null;
    return answer;
  },
};
