// The page hosts the engine worker and hands the service worker a port to it; it never carries requests.
import * as Comlink from 'comlink';
import type { InpageConfig } from '../config';
import type { EngineControl } from '../engine-control';
import { PORT_OFFER, isPortRequest } from './port-messages';

export interface EngineHost {
  control: Comlink.Remote<EngineControl>;
  worker: Worker;
}

function offerPort(host: EngineHost, target: ServiceWorker): void {
  const channel = new MessageChannel();
  void host.control.connect(Comlink.transfer(channel.port1, [channel.port1]));
  target.postMessage(PORT_OFFER, [channel.port2]);
}

export async function hostEngine(config: InpageConfig): Promise<EngineHost> {
  const worker = new Worker(new URL('../../worker/engine/engine-worker.ts', import.meta.url), { type: 'module', name: 'inpage-engine' });
  const control = Comlink.wrap<EngineControl>(worker);
  await control.init(config);
  const host: EngineHost = { control, worker };

  const sw = navigator.serviceWorker;
  // A (re)started service worker asks every page for a port; the one hosting the engine answers.
  sw.addEventListener('message', (event) => {
    if (isPortRequest(event.data) && event.source instanceof ServiceWorker) offerPort(host, event.source);
  });
  sw.addEventListener('controllerchange', () => {
    if (sw.controller) offerPort(host, sw.controller);
  });
  sw.startMessages();
  if (sw.controller) offerPort(host, sw.controller);
  return host;
}
