// The Playground's key: choosing one (create, reuse the workspace's, or paste), and the bar naming the one in use.
import { h } from 'preact';
import { useState } from 'preact/hooks';
import { createPlaygroundKey, forgetSessionKey, keptPlaygroundKey, usePastedKey } from '../../session-key';
import type { SessionKey } from '../../store';
import { Notice, errorText } from '../../kit/widgets';
import { focusComposer } from './focus';

export function KeyChooser() {
  const [pasted, setPasted] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const act = async (what: () => Promise<unknown>) => {
    setBusy(true);
    setError(null);
    try {
      await what();
      // The chooser goes away with the key chosen: the focus goes where the writing starts.
      focusComposer();
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  };
  return h(
    'section',
    { class: 'card key-chooser', 'aria-labelledby': 'pg-key-title' },
    h('h2', { id: 'pg-key-title' }, 'The Playground needs a key'),
    h(
      'p',
      null,
      'It calls ',
      h('code', null, '/v1/chat/completions'),
      ' like any other client. inpage keeps only hashes of keys, so it cannot reuse one of yours: use the workspace’s Playground key (made once, then reused by every tab and visit), or paste a key (kept for this tab only).',
    ),
    h(
      'div',
      { class: 'key-options' },
      h(
        'div',
        null,
        h(
          'button',
          { type: 'button', class: 'button primary', disabled: busy, onClick: () => act(createPlaygroundKey) },
          keptPlaygroundKey() ? 'Use the Playground key' : 'Create a Playground key',
        ),
        h('p', { class: 'hint' }, 'One key named “Playground” reaching every model listed in Models; it shows in API Keys, where you can revoke it.'),
      ),
      h(
        'form',
        {
          class: 'paste-key',
          onSubmit: (e: Event) => {
            e.preventDefault();
            void act(() => usePastedKey(pasted).then(() => setPasted('')));
          },
        },
        h('label', { for: 'pg-paste-key' }, 'Or paste a key'),
        h(
          'div',
          { class: 'inline-field' },
          h('input', {
            id: 'pg-paste-key',
            type: 'password',
            class: 'mono',
            autoComplete: 'off',
            spellcheck: false,
            placeholder: 'sk-svc-…',
            value: pasted,
            onInput: (e: Event) => setPasted((e.currentTarget as HTMLInputElement).value),
          }),
          h('button', { type: 'submit', class: 'button', disabled: busy || !pasted.trim() }, 'Use key'),
        ),
      ),
    ),
    error && h(Notice, { kind: 'error' }, error),
  );
}

export function KeyBar(props: { sessionKey: SessionKey }) {
  return h(
    'p',
    { class: 'key-bar' },
    // One sentence (the bar is a flex row: loose text would be items of their own, spaced apart).
    h(
      'span',
      null,
      'Calling ',
      h('code', null, '/v1'),
      ' with key ',
      h('code', { 'data-testid': 'pg-key' }, props.sessionKey.display),
      // On a phone the note folds away, so the conversation starts higher.
      h(
        'span',
        { class: 'key-note' },
        props.sessionKey.id === keptPlaygroundKey()?.id
          ? ' (the workspace’s Playground key, reused by every tab)'
          : ` (${props.sessionKey.name}), kept for this tab only`,
      ),
      '.',
    ),
    h('button', { type: 'button', class: 'button small', onClick: forgetSessionKey }, 'Forget key'),
  );
}
