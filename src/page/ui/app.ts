// The workspace shell: header, navigation between the areas, and the sign-up before anything else. Each area is a
// folder in areas/ (its view, its state, its storage); what several areas use is in kit/; the page's state that
// every area reads (store.ts, filled by startup.ts) sits here beside the shell.
import { h } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { ConnectArea } from './areas/connect';
import { DownloadDialog } from './kit/download-ask';
import { KeysArea } from './areas/keys';
import { ModelsArea } from './areas/models';
import { cpuEngine, webGpuMissing } from './kit/device';
import { PlaygroundArea } from './areas/playground';
import { Register } from './areas/register';
import { getState, useUi } from './store';
import { CopyButton, Notice } from './kit/widgets';

const AREAS = [
  { id: 'keys', label: 'API Keys', view: KeysArea },
  { id: 'models', label: 'Models', view: ModelsArea },
  { id: 'playground', label: 'Playground', view: PlaygroundArea },
  { id: 'connect', label: 'Connect', view: ConnectArea },
] as const;
type AreaId = (typeof AREAS)[number]['id'];

function areaFromHash(): AreaId {
  const wanted = location.hash.replace(/^#/, '');
  return AREAS.find((a) => a.id === wanted)?.id ?? 'keys';
}

function useArea(): AreaId {
  const [area, setArea] = useState<AreaId>(areaFromHash);
  useEffect(() => {
    const onHash = () => setArea(areaFromHash());
    window.addEventListener('hashchange', onHash);
    // A change between the first render and this effect (which runs after paint) fired no listener: read it now.
    onHash();
    return () => window.removeEventListener('hashchange', onHash);
  }, []);
  return area;
}

function Header() {
  const ui = useUi();
  const ws = ui.workspace;
  return h(
    'header',
    { class: 'top' },
    h(
      'div',
      { class: 'brand' },
      h('span', { class: 'logo', 'aria-hidden': 'true' }, '◆'),
      h('span', { class: 'name' }, 'inpage'),
      h('span', { class: 'tag' }, 'local chat-completion API'),
    ),
    ws &&
      h(
        'div',
        { class: 'workspace' },
        h('span', { class: 'ws-name' }, ws.name),
        h('code', { class: 'org', title: 'Organisation id: the owned_by of every model', 'data-testid': 'org-id' }, ws.orgId),
        h(CopyButton, { text: ws.orgId, label: 'Copy the organisation id' }),
      ),
  );
}

function Nav(props: { area: AreaId }) {
  return h(
    'nav',
    { class: 'tabs', 'aria-label': 'Workspace' },
    h(
      'ul',
      null,
      AREAS.map((a) => h('li', { key: a.id }, h('a', { href: `#${a.id}`, 'aria-current': props.area === a.id ? 'page' : undefined }, a.label))),
    ),
  );
}

function Workspace(props: { justRegistered: boolean }) {
  const ui = useUi();
  const area = useArea();
  const main = useRef<HTMLElement>(null);
  const first = useRef(true);
  // Moving between areas puts focus on the new area's heading, so keyboard and screen-reader users follow.
  useEffect(() => {
    document.title = `${AREAS.find((a) => a.id === area)!.label} · inpage`;
    const initial = first.current;
    first.current = false;
    if (initial && !props.justRegistered) return;
    main.current?.querySelector<HTMLElement>('#area-title')?.focus();
    // The Playground with a key: straight to the message box once the chat is there (not on a touch screen,
    // where a focused box raises the keyboard unasked), unless the person moved the focus meanwhile.
    if (area === 'playground' && !matchMedia('(pointer: coarse)').matches) {
      let frames = 60;
      const toBox = () => {
        const box = document.getElementById('pg-message');
        const still = document.activeElement === document.body || document.activeElement?.id === 'area-title';
        if (!still) return;
        if (box && getState().sessionKey) box.focus();
        else if (frames-- > 0) requestAnimationFrame(toBox);
      };
      requestAnimationFrame(toBox);
    }
  }, [area]);
  const missing = webGpuMissing(ui);
  const cpu = cpuEngine(ui);
  const View = AREAS.find((a) => a.id === area)!.view;
  return h(
    'div',
    { class: 'shell' },
    h(Nav, { area }),
    missing &&
      area !== 'models' &&
      h(
        'div',
        { class: area === 'playground' ? 'banner slim' : 'banner', role: 'note' },
        h('strong', null, 'No WebGPU here: '),
        'models cannot run in this browser; keys and Connect still work. ',
        h('a', { href: '#models' }, 'What to do'),
      ),
    cpu &&
      area !== 'models' &&
      h(
        'div',
        // In the Playground a slim line, so the chat starts high on the screen.
        { class: area === 'playground' ? 'banner slim' : 'banner', role: 'note', 'data-testid': 'cpu-banner' },
        h('strong', null, 'No WebGPU here: '),
        'the models run on this device’s CPU (llama.cpp), more slowly than on a graphics card. ',
        h('a', { href: '#models' }, 'Details'),
      ),
    props.justRegistered &&
      area === 'keys' &&
      ui.keys.length === 0 &&
      ui.workspace &&
      h(
        'div',
        { class: 'banner ok', role: 'status' },
        `Workspace “${ui.workspace.name}” created with organisation id ${ui.workspace.orgId}. Next: create an API key.`,
      ),
    h('main', { id: 'main', ref: main, tabIndex: -1 }, h(View, null)),
  );
}

export function App() {
  const ui = useUi();
  const [justRegistered, setJustRegistered] = useState(false);
  let body;
  if (ui.phase === 'failed') {
    body = h(
      'main',
      { id: 'main', class: 'center' },
      h('h1', null, 'inpage could not start'),
      h(Notice, { kind: 'error' }, ui.failure ?? 'Unknown failure.'),
      h('p', null, 'inpage needs a browser with service workers and IndexedDB, on https or localhost, and not in a mode that turns storage off.'),
    );
  } else if (ui.phase === 'starting' || ui.workspace === undefined) {
    body = h('main', { id: 'main', class: 'center' }, h('p', { class: 'muted', role: 'status' }, 'Starting the local service…'));
  } else if (ui.workspace === null) {
    body = h(
      'main',
      { id: 'main' },
      h(Register, {
        onRegistered: () => {
          setJustRegistered(true);
          location.hash = '#keys';
        },
      }),
    );
  } else {
    body = h(Workspace, { justRegistered });
  }
  // The hash names the area, so the skip link moves focus itself instead of navigating.
  const skip = (e: Event) => {
    e.preventDefault();
    document.getElementById('main')?.focus();
  };
  return h(
    'div',
    { class: 'page' },
    h('a', { class: 'skip', href: '#main', onClick: skip }, 'Skip to content'),
    h(Header, null),
    body,
    h(DownloadDialog, null),
  );
}
