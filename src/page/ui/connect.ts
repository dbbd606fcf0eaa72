// Connect: the base URL and client snippets, with the person's key filled in when they ask.
import { h } from 'preact';
import { useState } from 'preact/hooks';
import { verifyKey } from '../../keys/key-store';
import { displayForm, isWellFormedKey } from '../../keys/key-format';
import { BASE_URL, listModels } from './api';
import { snippets } from './snippets';
import { setState, useUi } from './store';
import { CodeBlock, CopyButton, Notice, errorText } from './widgets';

function KeyFill(props: { snippetKey: string | null; sessionKey: string | null }) {
  const [pasted, setPasted] = useState('');
  const [error, setError] = useState<string | null>(null);

  const fill = async (e: Event) => {
    e.preventDefault();
    setError(null);
    const key = pasted.trim();
    if (!isWellFormedKey(key)) return setError('That is not an inpage key: keys look like sk-svc- followed by 43 characters.');
    const verdict = await verifyKey(key);
    if (!verdict.ok) return setError(`Key ${displayForm(key)} ${verdict.reason === 'revoked' ? 'has been revoked' : 'is not a key of this workspace'}.`);
    setState({ snippetKey: key });
    setPasted('');
  };

  if (props.snippetKey) {
    return h(
      'p',
      { class: 'key-bar' },
      'The snippets below contain your key ',
      h('code', null, displayForm(props.snippetKey)),
      ' in full. ',
      h('button', { type: 'button', class: 'button small', onClick: () => setState({ snippetKey: null }) }, 'Hide my key again'),
    );
  }
  return h(
    'form',
    { class: 'key-fill', onSubmit: fill },
    h('label', { for: 'connect-key' }, 'Fill your key into the snippets'),
    h(
      'div',
      { class: 'inline-field' },
      h('input', {
        id: 'connect-key',
        type: 'password',
        class: 'mono',
        autoComplete: 'off',
        spellcheck: false,
        placeholder: 'Paste a key: sk-svc-…',
        value: pasted,
        onInput: (e: Event) => setPasted((e.currentTarget as HTMLInputElement).value),
      }),
      h('button', { type: 'submit', class: 'button', disabled: !pasted.trim() }, 'Fill in'),
      props.sessionKey &&
        h('button', { type: 'button', class: 'button', onClick: () => setState({ snippetKey: props.sessionKey }) }, 'Use the Playground key'),
    ),
    h('p', { class: 'hint' }, 'Until then they say ', h('code', null, 'YOUR_INPAGE_KEY'), '. Keys are made in ', h('a', { href: '#keys' }, 'API Keys'), '.'),
    error && h(Notice, { kind: 'error' }, error),
  );
}

function TryIt(props: { keyValue: string | null }) {
  const [result, setResult] = useState<{ ok: boolean; text: string } | null>(null);
  if (!props.keyValue) return null;
  const key = props.keyValue;
  const run = async () => {
    setResult(null);
    try {
      const models = await listModels(key);
      setResult({ ok: true, text: `GET /v1/models answered 200 with ${models.length} model${models.length === 1 ? '' : 's'}: ${models.map((m) => m.id).join(', ')}.` });
    } catch (err) {
      setResult({ ok: false, text: errorText(err) });
    }
  };
  return h(
    'div',
    { class: 'try-it' },
    h('button', { type: 'button', class: 'button', onClick: run }, 'Test the connection'),
    result && h(Notice, { kind: result.ok ? 'ok' : 'error', role: 'status' }, result.text),
  );
}

export function ConnectArea() {
  const ui = useUi();
  const list = snippets(BASE_URL, ui.snippetKey);
  return h(
    'section',
    { class: 'area', 'aria-labelledby': 'area-title' },
    h('h1', { id: 'area-title', tabIndex: -1 }, 'Connect'),
    h(
      'p',
      { class: 'lede' },
      'Point any OpenAI-style client at this base URL and give it a key. Scripts of this origin reach it while an inpage tab is open here; there is no server, so tools outside this browser (curl, a backend) cannot.',
    ),
    h(
      'section',
      { class: 'card base-url', 'aria-labelledby': 'base-url-title' },
      h('h2', { id: 'base-url-title' }, 'Base URL'),
      h('div', { class: 'key-reveal' }, h('code', { class: 'big', 'data-testid': 'base-url' }, BASE_URL), h(CopyButton, { text: BASE_URL, label: 'Copy the base URL' })),
      h(KeyFill, { snippetKey: ui.snippetKey, sessionKey: ui.sessionKey?.key ?? null }),
      h(TryIt, { keyValue: ui.snippetKey }),
    ),
    list.map((s) =>
      h(
        'section',
        { class: 'card snippet', key: s.id, 'aria-labelledby': `snippet-${s.id}-title`, 'data-snippet': s.id },
        h('h2', { id: `snippet-${s.id}-title` }, s.title),
        h('p', { class: 'hint' }, s.note),
        h(CodeBlock, { code: s.code, label: `${s.title} snippet` }),
      ),
    ),
  );
}
