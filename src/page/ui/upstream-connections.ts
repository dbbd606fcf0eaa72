// Models area, hybrid (docs/hybrid.md): a person's upstream connections — an OpenAI-compatible server's base URL,
// their own key, and for one id the server's model name and the mode — added, listed (the key only in display form)
// and removed. Kept in this origin's IndexedDB (src/upstream-connections.ts); the engine reads them when it starts, so
// a change takes effect after a reload (the engine worker's Content-Security-Policy must name the new server too).
import { h, type ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { modelIds } from '../../catalog';
import { MODES, type Mode } from '../../model-config';
import { DIALECTS, type Dialect } from '../../upstreams';
import { chooseMode, displayKey, listConnections, removeConnection, saveConnection, type UpstreamConnection } from '../../upstream-connections';
import type { Serving } from '../../engine-protocol';
import { Notice, errorText } from './widgets';

/** Each mode in plain words (the mode's own name follows in brackets, as docs/hybrid.md and the config name it). */
export const MODE_WORDS: Record<Mode, string> = {
  local: 'this device only',
  'prefer-local': 'this device first, your server when this device cannot',
  'prefer-upstream': 'your server first, this device when the server fails',
  upstream: 'your server only',
};

export function modeText(mode: Mode): string {
  return `${MODE_WORDS[mode].charAt(0).toUpperCase()}${MODE_WORDS[mode].slice(1)} (${mode})`;
}

function Field(props: { id: string; label: string; children?: ComponentChildren }) {
  return h('div', { class: 'field' }, h('label', { for: props.id }, props.label), props.children);
}

export function UpstreamConnections() {
  const [list, setList] = useState<UpstreamConnection[] | null>(null);
  const [form, setForm] = useState({ name: '', url: '', dialect: 'openai' as Dialect, key: '', id: modelIds()[0] ?? '', model: '', mode: 'prefer-local' as Mode });
  const [error, setError] = useState<string | null>(null);
  const [changed, setChanged] = useState(false);
  const refresh = () => void listConnections().then(setList);
  useEffect(refresh, []);
  const set = (field: keyof typeof form) => (e: Event) => setForm({ ...form, [field]: (e.currentTarget as HTMLInputElement | HTMLSelectElement).value });

  const submit = async (e: Event) => {
    e.preventDefault();
    setError(null);
    try {
      await saveConnection({ name: form.name, url: form.url, dialect: form.dialect, key: form.key, models: { [form.id]: { model: form.model, mode: form.mode } } }, location.origin);
      setForm({ ...form, name: '', url: '', key: '', model: '' });
      setChanged(true);
      refresh();
    } catch (err) {
      setError(errorText(err));
    }
  };
  const remove = async (name: string) => {
    await removeConnection(name);
    setChanged(true);
    refresh();
  };

  return h(
    'section',
    { class: 'card upstream-connections', 'aria-labelledby': 'upstreams-title' },
    h('h2', { id: 'upstreams-title' }, 'Your upstream servers'),
    h(
      'p',
      { class: 'muted' },
      'Send an id to an OpenAI-compatible server of yours (vLLM, Ollama, llama-server, LM Studio) when this device cannot run it. The key is kept in this browser only, readable by scripts of this site; after saving it is shown only in part.',
    ),
    list && list.length > 0
      ? h(
          'ul',
          { class: 'connection-list', 'aria-label': 'Upstream connections' },
          list.map((c) =>
            h(
              'li',
              { key: c.name, 'data-connection': c.name },
              h('strong', null, c.name),
              ` ${c.url} (${c.dialect}), key `,
              h('code', { 'data-testid': 'connection-key' }, displayKey(c.key)),
              ': ',
              Object.entries(c.models).map(([id, m]) => `${id} → ${m.model}: ${MODE_WORDS[m.mode ?? 'prefer-local']}`).join(', '),
              ' ',
              h('button', { type: 'button', class: 'button small', onClick: () => void remove(c.name), 'aria-label': `Remove connection ${c.name}` }, 'Remove'),
            ),
          ),
        )
      : list && h('p', { class: 'muted', 'data-testid': 'no-connections' }, 'No connections.'),
    changed &&
      h(
        Notice,
        { kind: 'info' },
        'Saved. The engine reads connections when it starts: ',
        h('button', { type: 'button', class: 'button small', onClick: () => location.reload() }, 'Reload to use them'),
      ),
    h(
      'form',
      { onSubmit: (e: Event) => void submit(e), 'aria-label': 'Add an upstream connection' },
      h(Field, { id: 'up-name', label: 'Name' }, h('input', { id: 'up-name', required: true, maxLength: 64, value: form.name, onInput: set('name'), placeholder: 'e.g. my-gpu' })),
      h(Field, { id: 'up-url', label: 'Base URL' }, h('input', { id: 'up-url', required: true, type: 'url', value: form.url, onInput: set('url'), placeholder: 'https://llm.example.com/v1' })),
      h(Field, { id: 'up-dialect', label: 'Server' }, h('select', { id: 'up-dialect', value: form.dialect, onChange: set('dialect') }, DIALECTS.map((d) => h('option', { key: d, value: d }, d)))),
      h(Field, { id: 'up-key', label: 'API key (optional)' }, h('input', { id: 'up-key', type: 'password', autoComplete: 'off', value: form.key, onInput: set('key') })),
      h(Field, { id: 'up-id', label: 'For the id' }, h('select', { id: 'up-id', value: form.id, onChange: set('id') }, modelIds().map((id) => h('option', { key: id, value: id }, id)))),
      h(Field, { id: 'up-model', label: "The server's model name" }, h('input', { id: 'up-model', required: true, value: form.model, onInput: set('model'), placeholder: 'e.g. Qwen/Qwen3-8B-FP8' })),
      h(Field, { id: 'up-mode', label: 'Mode' }, h('select', { id: 'up-mode', value: form.mode, onChange: set('mode') }, MODES.map((m) => h('option', { key: m, value: m }, modeText(m))))),
      error && h(Notice, { kind: 'error' }, error),
      h('button', { type: 'submit', class: 'button primary' }, 'Add connection'),
    ),
  );
}

/**
 * A model card's mode switch, for an id routed to an upstream (by the config or a connection): the person's choice is
 * kept in this browser and applies to the next request, without a reload. An id only an upstream answers has none.
 */
export function ModeSwitch(props: { id: string; serving: Serving; upstreamOnly: boolean }) {
  const [error, setError] = useState<string | null>(null);
  if (!props.serving.upstream || props.upstreamOnly) return null;
  const change = (e: Event) => {
    setError(null);
    chooseMode(props.id, (e.currentTarget as HTMLSelectElement).value as Mode).catch((err: unknown) => setError(errorText(err)));
  };
  return h(
    'span',
    { class: 'mode-switch' },
    h(
      'select',
      { 'aria-label': `Mode for ${props.id}`, value: props.serving.mode, onChange: change },
      MODES.map((m) => h('option', { key: m, value: m }, modeText(m))),
    ),
    error && h(Notice, { kind: 'error' }, error),
  );
}
