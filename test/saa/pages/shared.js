// The provider's SharedWorker (started from the StorageAccessHandle in a frame, or plainly at top level):
// answers probes on every port it is given, counting its connections, and adopts ports that are passed to it
// (the one the frame hands to a consumer page).
importScripts('storage.js');
let connections = 0;
self.onconnect = (event) => {
  connections += 1;
  servePort(event.ports[0], (data) => (data.op === 'connections' ? connections : undefined));
};
