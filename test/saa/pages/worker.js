// The provider frame's dedicated worker: answers probes about the storage and features it sees.
importScripts('storage.js');
self.onmessage = async (event) => {
  self.postMessage({ id: event.data.id, result: await workerAnswer(event.data) });
};
