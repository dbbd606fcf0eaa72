// Mounts the workspace page into `root` and starts following the booted service.
import { h, render } from 'preact';
import type { InpageApi } from '../inpage-api';
import { App } from './app';
import { start } from './startup';

/** `engine` settles when this tab's engine has started (or failed to); the UI never waits for it. */
export function mountWorkspace(root: HTMLElement, ready: Promise<InpageApi>, engine?: Promise<void>): void {
  root.replaceChildren();
  render(h(App, null), root);
  void start(ready, engine);
}
