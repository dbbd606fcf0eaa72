// Mounts the workspace page into `root` and starts following the booted service.
import { h, render } from 'preact';
import type { InpageApi } from '../main';
import { App } from './app';
import { start } from './startup';

export function mountWorkspace(root: HTMLElement, ready: Promise<InpageApi>): void {
  root.replaceChildren();
  render(h(App, null), root);
  void start(ready);
}
