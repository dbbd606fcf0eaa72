// The provider frame's dedicated worker: answers probes about the storage and features it sees, on its own
// port and on ports it adopts (the one the frame hands to a consumer page).
importScripts('storage.js');
servePort(self);
