// Connect: the base URL and client snippets, with the person's key filled in when they ask.
import { h } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { verifyKey } from '#shared/keys/key-store';
import { displayForm, isWellFormedKey } from '#shared/keys/key-format';
import { BASE_URL, listModels } from '../../kit/api';
import { snippetModels, snippets, type SnippetModels } from './snippets';
import { setState, useUi, type UiState } from '../../store';
import { answerable, chooseChatModel } from '../../kit/model-facts';
import { approveDownload } from '../../kit/download-ask';
import { STATE_LABEL } from '../../kit/model-state';
import type { ModelObject } from '#shared/protocol/types';
import { formatInteger } from '../../kit/format';
import { CodeBlock, CopyButton, Notice, errorText } from '../../kit/widgets';
import { ErrorText } from '../../kit/plain-error';

function KeyFill(props: { snippetKey: string | null; sessionKey: string | null }) {
  // The form and the line that replaces it swap places: the focus follows to what is there now, never the body.
  const swapped = useRef(false);
  useEffect(() => {
    if (!swapped.current) return;
    swapped.current = false;
    document.getElementById(props.snippetKey ? 'connect-hide' : 'connect-key')?.focus();
  }, [props.snippetKey]);
  const showKey = (key: string | null) => {
    swapped.current = true;
    setState({ snippetKey: key });
  };
  const [pasted, setPasted] = useState('');
  const [error, setError] = useState<string | null>(null);

  const fill = async (e: Event) => {
    e.preventDefault();
    setError(null);
    const key = pasted.trim();
    if (!isWellFormedKey(key)) return setError('That is not an inpage key: keys look like sk-svc- followed by 43 characters.');
    const verdict = await verifyKey(key);
    if (!verdict.ok) return setError(`Key ${displayForm(key)} ${verdict.reason === 'revoked' ? 'has been revoked' : 'is not a key of this workspace'}.`);
    showKey(key);
    setPasted('');
  };

  if (props.snippetKey) {
    return h(
      'p',
      { class: 'key-bar' },
      'The snippets below contain your key ',
      h('code', null, displayForm(props.snippetKey)),
      ' in full. ',
      h('button', { type: 'button', id: 'connect-hide', class: 'button small', onClick: () => showKey(null) }, 'Hide my key again'),
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
      props.sessionKey && h('button', { type: 'button', class: 'button', onClick: () => showKey(props.sessionKey) }, 'Use the Playground key'),
    ),
    h('p', { class: 'hint' }, 'Until then they say ', h('code', null, 'YOUR_INPAGE_KEY'), '. Keys are made in ', h('a', { href: '#keys' }, 'API Keys'), '.'),
    error && h(Notice, { kind: 'error' }, error),
  );
}

/** A one-token completion with `key` on `model`: proves generation works end to end. */
async function oneToken(key: string, model: string): Promise<{ ms: number; text: string }> {
  const started = performance.now();
  const res = await fetch(`${BASE_URL}/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model, messages: [{ role: 'user', content: 'Say hi.' }], max_tokens: 1 }),
  });
  const body = (await res.json()) as { choices?: { message: { content: string | null } }[]; error?: { message: string; code?: string | null } };
  if (!res.ok)
    throw Object.assign(new Error(`POST /v1/chat/completions answered ${res.status}: ${body.error?.message ?? 'no message'}`), {
      code: body.error?.code ?? null,
    });
  return { ms: performance.now() - started, text: body.choices?.[0]?.message.content ?? '' };
}

/** How a model of GET /v1/models stands here, in a word for the test's list. */
function standing(m: ModelObject): string {
  if (m.state === 'unavailable' && m.serving?.engine !== 'upstream') return 'cannot run here';
  if (m.serving?.engine === 'upstream') return 'answered upstream';
  return STATE_LABEL[m.state].toLowerCase();
}

function TryIt(props: { keyValue: string | null }) {
  const [result, setResult] = useState<{ ok: boolean; lines: string[]; failure?: { message: string; code: string | null } } | null>(null);
  const [busy, setBusy] = useState(false);
  const button = useRef<HTMLButtonElement>(null);
  if (!props.keyValue)
    return h(
      'div',
      { class: 'try-it' },
      h('button', { type: 'button', class: 'button', disabled: true, 'aria-describedby': 'try-it-needs' }, 'Test the connection'),
      h('p', { class: 'hint', id: 'try-it-needs' }, 'Fill in a key above (or use the Playground key) to test the connection with it.'),
    );
  const key = props.keyValue;
  const run = async () => {
    setResult(null);
    setBusy(true);
    const lines: string[] = [];
    try {
      const models = await listModels(key);
      const chats = models.filter((m) => !m.embeddings);
      lines.push(
        `GET /v1/models answered 200 with ${models.length} model${models.length === 1 ? '' : 's'}: ${models.map((m) => `${m.id} (${standing(m)})`).join(', ')}.`,
      );
      // The model the snippets name: the one the Playground starts on, among those this key reaches (model-facts.ts).
      const model = chats.length > 0 ? chooseChatModel(chats, (id) => chats.some((m) => m.id === id)) : null;
      const chosen = models.find((m) => m.id === model);
      if (!model || !chosen) {
        throw new Error('This key reaches no chat model: make one that does in API Keys.');
      }
      if (!answerable(chosen)) {
        throw new Error(
          `No chat model this key reaches can run on this device (${chats.map((m) => m.id).join(', ')}). Make a key that reaches one that runs, in API Keys.`,
        );
      }
      // A model that is not downloaded downloads first: over 100 MB the person is asked, as in the Playground.
      if (chosen.state === 'not_downloaded' && !(await approveDownload(model))) {
        lines.push(`${model} is not downloaded yet, and you chose not to download it now: no completion was tried.`);
      } else {
        const loads = chosen.state === 'not_downloaded' ? ' (downloaded and loaded first)' : chosen.state === 'cached' ? ' (loaded first)' : '';
        const answer = await oneToken(key, model);
        lines.push(`${model} answered a one-token completion${loads} (${JSON.stringify(answer.text)}) in ${formatInteger(answer.ms)} ms.`);
      }
      setResult({ ok: true, lines });
    } catch (err) {
      const code = (err as { code?: unknown } | null)?.code;
      setResult({ ok: false, lines, failure: { message: errorText(err), code: typeof code === 'string' ? code : null } });
    } finally {
      setBusy(false);
      // The button was disabled while it ran (and so lost the focus): it gets it back.
      requestAnimationFrame(() => button.current?.focus({ preventScroll: true }));
    }
  };
  return h(
    'div',
    { class: 'try-it' },
    h('button', { type: 'button', class: 'button', ref: button, disabled: busy, onClick: run }, busy ? 'Testing…' : 'Test the connection'),
    result &&
      h(
        Notice,
        { kind: result.ok ? 'ok' : 'error', role: 'status' },
        result.lines.map((line, i) => h('p', { key: i, class: 'try-line' }, line)),
        // The error in plain words first, as everywhere on the page.
        result.failure && h(ErrorText, { message: result.failure.message, code: result.failure.code }),
      ),
  );
}

/**
 * The models the snippets name: those the filled-in key reaches (every model of the deployment before), the chat
 * model one this device answers.
 */
function useSnippetModels(key: string | null, statuses: UiState['models']): SnippetModels {
  const [reach, setReach] = useState<readonly string[] | null>(null);
  useEffect(() => {
    let current = true;
    if (!key) setReach(null);
    else void verifyKey(key).then((verdict) => current && setReach(verdict.ok ? verdict.record.models : []));
    return () => void (current = false);
  }, [key]);
  return snippetModels(reach ?? undefined, statuses);
}

export function ConnectArea() {
  const ui = useUi();
  const list = snippets(BASE_URL, ui.snippetKey, useSnippetModels(ui.snippetKey, ui.models));
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
      h(
        'div',
        { class: 'key-reveal' },
        h('code', { class: 'big', 'data-testid': 'base-url' }, BASE_URL),
        h(CopyButton, { text: BASE_URL, label: 'Copy the base URL' }),
      ),
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
