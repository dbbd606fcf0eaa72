// Models area, hybrid (docs/hybrid.md): a person's upstream connections — an OpenAI-compatible server's base URL,
// their own key, and for one id the server's model name and the mode — added, listed (the key only in display form)
// removed and tested (*Test*: the engine worker asks the server for its models). Kept in this origin's IndexedDB
// (src/shared/upstream-connections.ts); the engine worker is told of each change and the next request follows it, without a
// reload (the engine worker's Content-Security-Policy must name the server, as for any upstream).
import { h, type ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { modelIds } from '#shared/catalog';
import { HYBRID_MODES, type HybridMode } from '#shared/model-config';
import { DIALECTS, type Dialect } from '#shared/upstreams';
import { chooseMode, displayKey, listConnections, removeConnection, saveConnection, type UpstreamConnection } from '#shared/upstream-connections';
import type { Serving } from '#shared/wire/engine-port';
import type { ConnectionTest } from '#shared/wire/engine-control';
import { getState } from '../../store';
import { Notice, errorText } from '../../kit/widgets';

/** Each mode in plain words (the mode's own name follows in brackets, as docs/hybrid.md and the config name it). */
export const MODE_WORDS: Record<HybridMode, string> = {
  local: 'this device only',
  'prefer-local': 'this device first, your server when this device cannot',
  'prefer-upstream': 'your server first, this device when the server fails',
  upstream: 'your server only',
};

function modeText(mode: HybridMode): string {
  return `${MODE_WORDS[mode].charAt(0).toUpperCase()}${MODE_WORDS[mode].slice(1)} (${mode})`;
}

/** At most this many of the server's model names are shown after a test (the rest are counted). */
const LISTED_MODELS = 12;

/**
 * A connection's test result in plain words: what the server lists (and whether the connection's model names are
 * among them); or the cause, read from the HTTP status first, then the network. The engine's text follows.
 */
function testWords(test: ConnectionTest, c: Pick<UpstreamConnection, 'url' | 'models'>): { ok: boolean; lead: string; detail?: string } {
  if (test.ok) {
    const names =
      test.models.slice(0, LISTED_MODELS).join(', ') + (test.models.length > LISTED_MODELS ? ` and ${test.models.length - LISTED_MODELS} more` : '');
    const wanted = Object.values(c.models).map((m) => m.model);
    const missing = wanted.filter((m) => !test.models.includes(m));
    const lead =
      test.models.length === 0
        ? 'Reachable, but the server lists no models.'
        : `Reachable: the server lists ${test.models.length === 1 ? '1 model' : `${test.models.length} models`}: ${names}.`;
    return { ok: true, lead: missing.length > 0 ? `${lead} Not among them: ${missing.join(', ')} (check the server's model name).` : lead };
  }
  const s = test.status;
  const lead =
    s === 401 || s === 403
      ? `The server refused the key (HTTP ${s}).`
      : s === 404
        ? `Nothing answers at ${c.url}/models (HTTP 404): check the base URL (it usually ends in /v1).`
        : s === 429
          ? 'The server is busy (HTTP 429): try again shortly.'
          : s !== null && s >= 500
            ? `The server is failing (HTTP ${s}).`
            : s !== null && s >= 400
              ? `The server refused the request (HTTP ${s}).`
              : s !== null
                ? "The server answered, but not with a list of models: is the base URL the server's /v1?"
                : test.code === 'upstream_timeout'
                  ? 'The server sent nothing in time.'
                  : /offline/i.test(test.message)
                    ? 'This device is offline.'
                    : 'Could not reach the server: it is down, the address is wrong, or it does not let this site in (CORS; a server that refuses the key without CORS headers looks the same).';
  return { ok: false, lead, detail: test.message };
}

function TestResult(props: { result: ConnectionTest | 'testing' | string; connection: UpstreamConnection }) {
  const { result } = props;
  if (result === 'testing') return h('p', { class: 'muted', 'data-testid': 'connection-test', role: 'status' }, 'Testing…');
  if (typeof result === 'string') return h(Notice, { kind: 'error' }, h('span', { 'data-testid': 'connection-test' }, result));
  const words = testWords(result, props.connection);
  return h(
    Notice,
    { kind: words.ok ? 'ok' : 'error' },
    h('span', { 'data-testid': 'connection-test', 'data-ok': String(words.ok) }, words.lead),
    words.detail && h('details', null, h('summary', null, 'Technical detail'), h('p', null, words.detail)),
  );
}

function Field(props: { id: string; label: string; children?: ComponentChildren }) {
  return h('div', { class: 'field' }, h('label', { for: props.id }, props.label), props.children);
}

type ConnectionTests = Record<string, ConnectionTest | 'testing' | string>;

/** Each connection's last Test result (or 'testing'), and the Test action. */
function useConnectionTests() {
  const [tests, setTests] = useState<ConnectionTests>({});
  const test = async (name: string) => {
    const control = getState().engine?.control;
    setTests((t) => ({ ...t, [name]: 'testing' }));
    let result: ConnectionTest | string;
    try {
      result = control ? await control.testConnection(name) : 'The engine runs in another tab: test the connection there.';
    } catch (err) {
      result = errorText(err);
    }
    setTests((t) => ({ ...t, [name]: result }));
  };
  return { tests, test };
}

/** The saved connections, each with its key shown in part, its ids, Test and Remove. */
function ConnectionList(props: { list: UpstreamConnection[]; onRemove: (name: string) => void }) {
  const { tests, test } = useConnectionTests();
  return h(
    'ul',
    { class: 'connection-list', 'aria-label': 'Upstream connections' },
    props.list.map((c) =>
      h(
        'li',
        { key: c.name, 'data-connection': c.name },
        h('strong', null, c.name),
        ` ${c.url} (${c.dialect}), key `,
        h('code', { 'data-testid': 'connection-key' }, displayKey(c.key)),
        ': ',
        Object.entries(c.models)
          .map(([id, m]) => `${id} → ${m.model}: ${MODE_WORDS[m.mode ?? 'prefer-local']}`)
          .join(', '),
        ' ',
        h(
          'button',
          {
            type: 'button',
            class: 'button small',
            onClick: () => void test(c.name),
            'aria-label': `Test connection ${c.name}`,
            disabled: tests[c.name] === 'testing',
          },
          'Test',
        ),
        ' ',
        h('button', { type: 'button', class: 'button small', onClick: () => props.onRemove(c.name), 'aria-label': `Remove connection ${c.name}` }, 'Remove'),
        tests[c.name] !== undefined && h(TestResult, { result: tests[c.name]!, connection: c }),
      ),
    ),
  );
}

/**
 * Saves a connection. The engine worker's Content-Security-Policy, set when it starts, names the servers of the
 * connections saved then: for a server no connection named, the worker restarts (an answer streaming now breaks off)
 * so it may reach it. Returns that server's host when it did.
 */
async function addConnection(connection: Omit<UpstreamConnection, 'created'>): Promise<string | undefined> {
  const before = await listConnections();
  const saved = await saveConnection(connection, location.origin);
  const url = new URL(saved.url);
  const engine = getState().engine;
  if (engine?.restart && !before.some((c) => new URL(c.url).origin === url.origin)) {
    await engine.restart(`it may now reach ${url.host}, the server of a new connection`);
    return url.host;
  }
  return undefined;
}

/** The form that adds a connection: its server, key, and one id routed to one of the server's models. */
function ConnectionForm(props: { onSaved: (restartedFor: string | undefined) => void }) {
  const [form, setForm] = useState({
    name: '',
    url: '',
    dialect: 'openai' as Dialect,
    key: '',
    id: modelIds()[0] ?? '',
    model: '',
    mode: 'prefer-local' as HybridMode,
  });
  const [error, setError] = useState<string | null>(null);
  const set = (field: keyof typeof form) => (e: Event) => setForm({ ...form, [field]: (e.currentTarget as HTMLInputElement | HTMLSelectElement).value });
  const submit = async (e: Event) => {
    e.preventDefault();
    setError(null);
    try {
      const restartedFor = await addConnection({
        name: form.name,
        url: form.url,
        dialect: form.dialect,
        key: form.key,
        models: { [form.id]: { model: form.model, mode: form.mode } },
      });
      setForm({ ...form, name: '', url: '', key: '', model: '' });
      props.onSaved(restartedFor);
    } catch (err) {
      setError(errorText(err));
    }
  };
  const input = (field: keyof typeof form, attributes: Record<string, unknown>) =>
    h('input', { id: `up-${field}`, value: form[field], onInput: set(field), ...attributes });
  const select = (field: keyof typeof form, options: ComponentChildren) =>
    h('select', { id: `up-${field}`, value: form[field], onChange: set(field) }, options);
  return h(
    'form',
    { onSubmit: (e: Event) => void submit(e), 'aria-label': 'Add an upstream connection' },
    h(Field, { id: 'up-name', label: 'Name' }, input('name', { required: true, maxLength: 64, placeholder: 'e.g. my-gpu' })),
    h(Field, { id: 'up-url', label: 'Base URL' }, input('url', { required: true, type: 'url', placeholder: 'https://llm.example.com/v1' })),
    h(
      Field,
      { id: 'up-dialect', label: 'Server' },
      select(
        'dialect',
        DIALECTS.map((d) => h('option', { key: d, value: d }, d)),
      ),
    ),
    h(Field, { id: 'up-key', label: 'API key (optional)' }, input('key', { type: 'password', autoComplete: 'off' })),
    h(
      Field,
      { id: 'up-id', label: 'For the id' },
      select(
        'id',
        modelIds().map((id) => h('option', { key: id, value: id }, id)),
      ),
    ),
    h(Field, { id: 'up-model', label: "The server's model name" }, input('model', { required: true, placeholder: 'e.g. Qwen/Qwen3-8B-FP8' })),
    h(
      Field,
      { id: 'up-mode', label: 'Mode' },
      select(
        'mode',
        HYBRID_MODES.map((m) => h('option', { key: m, value: m }, modeText(m))),
      ),
    ),
    error && h(Notice, { kind: 'error' }, error),
    h('button', { type: 'submit', class: 'button primary' }, 'Add connection'),
  );
}

export function UpstreamConnections() {
  const [list, setList] = useState<UpstreamConnection[] | null>(null);
  /** What the last change did: null before any; else the server's host when the engine worker restarted to reach it. */
  const [changed, setChanged] = useState<{ restartedFor?: string } | null>(null);
  const refresh = () => void listConnections().then(setList);
  useEffect(refresh, []);
  const remove = async (name: string) => {
    await removeConnection(name);
    setChanged({});
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
      ? h(ConnectionList, { list, onRemove: (name) => void remove(name) })
      : list && h('p', { class: 'muted', 'data-testid': 'no-connections' }, 'No connections.'),
    changed &&
      h(
        Notice,
        { kind: 'info', role: 'status' },
        changed.restartedFor
          ? `Saved: the engine restarted to be allowed to reach ${changed.restartedFor}; the next request follows the change, no reload needed.`
          : 'Saved: the next request follows the change, no reload needed.',
      ),
    h(ConnectionForm, {
      onSaved: (restartedFor) => {
        setChanged(restartedFor ? { restartedFor } : {});
        refresh();
      },
    }),
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
    chooseMode(props.id, (e.currentTarget as HTMLSelectElement).value as HybridMode).catch((err: unknown) => setError(errorText(err)));
  };
  return h(
    'span',
    { class: 'mode-switch' },
    h(
      'select',
      { 'aria-label': `Mode for ${props.id}`, value: props.serving.mode, onChange: change },
      HYBRID_MODES.map((m) => h('option', { key: m, value: m }, modeText(m))),
    ),
    error && h(Notice, { kind: 'error' }, error),
  );
}
