// The provider's SharedWorker (started from the StorageAccessHandle in a frame, or plainly at top level):
// answers probes on every port it is given, counting its connections, and adopts ports that are passed to it
// (the one the frame hands to a consumer page).
importScripts('storage.js');
let connections = 0;
function serve(port) {
  port.onmessage = async (event) => {
    const data = event.data;
    if (data.op === 'adopt') {
      serve(event.ports[0]);
      port.postMessage({ id: data.id, result: 'adopted' });
      return;
    }
    if (data.op === 'connections') {
      port.postMessage({ id: data.id, result: connections });
      return;
    }
    port.postMessage({ id: data.id, result: await workerAnswer(data) });
  };
  port.start();
}
self.onconnect = (event) => {
  connections += 1;
  serve(event.ports[0]);
};
