// API Keys: create a key (name, models), show it in full once, list keys by display form, revoke.
import { Fragment, h } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import type { KeyRecord } from '#shared/keys/db';
import { modelIds } from '#shared/catalog';
import type { ModelId } from '#shared/variants';
import { formatDateTime, formatInteger, formatRelative } from '../../kit/format';
import { save as keepSessionKey } from '../../session-key';
import { refreshKeys } from '../../startup';
import { getState, setState, useUi } from '../../store';
import { CopyButton, Notice, errorText } from '../../kit/widgets';
import { StoredResponses } from './stored-responses';
import { capabilityLabel } from '../../kit/model-facts';

/** How often the list re-reads last-used times and token counts while it is on screen. */
const REFRESH_MS = 5000;

interface Created {
  key: string;
  record: KeyRecord;
}

/** What a model does here, in the words of every area (model-facts.ts). */
function capabilityHint(id: ModelId): string {
  return capabilityLabel(
    id,
    getState().models?.find((m) => m.id === id),
  );
}

function CreateKeyForm(props: { onCreated: (created: Created) => void; focusName: boolean }) {
  const [name, setName] = useState('');
  const nameInput = useRef<HTMLInputElement>(null);
  useEffect(() => {
    if (props.focusName) nameInput.current?.focus();
  }, []);
  const [models, setModels] = useState<ModelId[]>(modelIds());
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  const toggle = (id: ModelId, on: boolean) => setModels((current) => modelIds().filter((v) => (v === id ? on : current.includes(v))));

  const submit = async (event: Event) => {
    event.preventDefault();
    const api = getState().api;
    if (!api || busy) return;
    if (models.length === 0) {
      setError('Choose at least one model for the key to reach.');
      return;
    }
    setBusy(true);
    setError(null);
    try {
      const created = await api.keys.create({ name, models });
      setName('');
      setModels(modelIds());
      await refreshKeys();
      props.onCreated(created);
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  };

  return h(
    'form',
    { class: 'card create-key', onSubmit: submit, 'aria-labelledby': 'create-key-title' },
    h('h2', { id: 'create-key-title' }, 'Create a key'),
    h(
      'div',
      { class: 'field' },
      h('label', { for: 'key-name' }, 'Name'),
      h('input', {
        id: 'key-name',
        ref: nameInput,
        required: true,
        maxLength: 64,
        autoComplete: 'off',
        placeholder: 'e.g. my-prototype',
        value: name,
        onInput: (e: Event) => setName((e.currentTarget as HTMLInputElement).value),
      }),
    ),
    h(
      'fieldset',
      { class: 'model-choice' },
      h('legend', null, 'Models this key can reach'),
      modelIds().map((id) =>
        h(
          'label',
          { class: 'check', key: id },
          h('input', {
            type: 'checkbox',
            name: 'key-models',
            value: id,
            checked: models.includes(id),
            onChange: (e: Event) => toggle(id, (e.currentTarget as HTMLInputElement).checked),
          }),
          h('code', null, id),
          h('span', { class: 'muted' }, ` ${capabilityHint(id)}`),
        ),
      ),
    ),
    error && h(Notice, { kind: 'error' }, error),
    h('button', { type: 'submit', class: 'button primary', disabled: busy }, busy ? 'Creating…' : 'Create key'),
  );
}

function NewKey(props: { created: Created; onDone: () => void }) {
  const { key, record } = props.created;
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), [key]);
  const usePlayground = () => {
    keepSessionKey({ key, id: record.id, display: record.display, name: record.name });
    location.hash = '#playground';
  };
  const useInSnippets = () => {
    setState({ snippetKey: key });
    location.hash = '#connect';
  };
  return h(
    'section',
    { class: 'card new-key', 'aria-labelledby': 'new-key-title' },
    h('h2', { id: 'new-key-title', ref: heading, tabIndex: -1 }, `Your new key “${record.name}”`),
    h(
      Notice,
      { kind: 'warn' },
      h('strong', null, 'Copy it now: it will not be shown again. '),
      'inpage keeps only its hash, so nobody (you included) can see it here later.',
    ),
    h(
      'div',
      { class: 'key-reveal' },
      h('label', { for: 'new-key-value', class: 'visually-hidden' }, 'The new API key'),
      h('input', {
        id: 'new-key-value',
        class: 'mono',
        readOnly: true,
        value: key,
        spellcheck: false,
        onFocus: (e: Event) => (e.currentTarget as HTMLInputElement).select(),
      }),
      h(CopyButton, { text: key, label: 'Copy the new API key' }),
    ),
    h(
      'div',
      { class: 'actions' },
      h('button', { type: 'button', class: 'button', onClick: usePlayground }, 'Use in the Playground'),
      h('button', { type: 'button', class: 'button', onClick: useInSnippets }, 'Fill into the Connect snippets'),
      h('button', { type: 'button', class: 'button primary', onClick: props.onDone }, 'Done, I saved it'),
    ),
  );
}

function When(props: { at: number | null; never: string }) {
  if (props.at === null) return h('span', { class: 'muted' }, props.never);
  return h('time', { dateTime: new Date(props.at).toISOString(), title: formatDateTime(props.at) }, formatRelative(props.at));
}

function modelList(models: readonly ModelId[]): string {
  const all = modelIds();
  if (models.length === all.length && all.every((id) => models.includes(id))) return all.length === 5 ? 'All five' : 'All models';
  return models.join(', ');
}

function KeyRow(props: { record: KeyRecord; confirming: boolean; onConfirm: (id: string | null) => void; onRevoked: () => void; onDeleted: () => void }) {
  const { record } = props;
  const [error, setError] = useState<string | null>(null);
  const confirmButton = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (props.confirming) confirmButton.current?.focus();
  }, [props.confirming]);
  const revoke = async () => {
    const api = getState().api;
    if (!api) return;
    try {
      await api.keys.revoke(record.id);
      await refreshKeys();
      props.onConfirm(null);
      props.onRevoked();
    } catch (err) {
      setError(errorText(err));
    }
  };
  const remove = async () => {
    const api = getState().api;
    if (!api) return;
    try {
      await api.keys.delete(record.id);
      props.onDeleted();
      await refreshKeys();
    } catch (err) {
      setError(errorText(err));
    }
  };
  const who = `${record.name} (${record.display})`;
  let action;
  if (record.revokedAt !== null) {
    action = h(
      'span',
      { class: 'confirm' },
      h('span', { class: 'badge badge-revoked', title: formatDateTime(record.revokedAt) }, 'Revoked ', h(When, { at: record.revokedAt, never: '' })),
      h('button', { type: 'button', class: 'button small', onClick: remove, 'aria-label': `Delete ${who} from the list` }, 'Delete'),
    );
  } else if (props.confirming) {
    action = h(
      'span',
      { class: 'confirm' },
      h('button', { type: 'button', class: 'button danger small', ref: confirmButton, onClick: revoke, 'aria-label': `Revoke ${who} now` }, 'Revoke now'),
      h('button', { type: 'button', class: 'button small', onClick: () => props.onConfirm(null), 'aria-label': `Keep ${who}` }, 'Cancel'),
    );
  } else {
    action = h('button', { type: 'button', class: 'button small', onClick: () => props.onConfirm(record.id), 'aria-label': `Revoke ${who}` }, 'Revoke');
  }
  return h(
    'tr',
    { class: record.revokedAt !== null ? 'revoked' : undefined, 'data-key-id': record.id },
    h('th', { scope: 'row' }, record.name),
    h('td', { 'data-label': 'Key' }, h('code', { class: 'key-display' }, record.display)),
    h('td', { 'data-label': 'Models' }, modelList(record.models)),
    h('td', { 'data-label': 'Created' }, h(When, { at: record.createdAt, never: '—' })),
    h('td', { 'data-label': 'Last used' }, h(When, { at: record.lastUsedAt, never: 'Never' })),
    h('td', { class: 'num', 'data-label': 'Tokens used' }, formatInteger(record.tokensUsed)),
    h('td', { class: 'status', 'data-label': 'Status' }, action, error && h('span', { class: 'error-text', role: 'alert' }, ` ${error}`)),
  );
}

function KeyTable(props: { keys: KeyRecord[] }) {
  const [confirming, setConfirming] = useState<string | null>(null);
  const caption = useRef<HTMLTableCaptionElement>(null);
  const [announce, setAnnounce] = useState('');
  if (props.keys.length === 0) {
    return h(
      Fragment,
      null,
      h('p', { class: 'empty' }, 'No keys yet. Create one above: scripts of this origin present it as ', h('code', null, 'Authorization: Bearer <key>'), '.'),
      h('p', { class: 'hint', role: 'status' }, announce),
    );
  }
  return h(
    Fragment,
    null,
    h(
      'div',
      { class: 'table-wrap' },
      h(
        'table',
        { class: 'keys-table' },
        h('caption', { ref: caption, tabIndex: -1, class: 'visually-hidden' }, 'API keys of this workspace, newest first'),
        h(
          'thead',
          null,
          h(
            'tr',
            null,
            ...['Name', 'Key', 'Models', 'Created', 'Last used', 'Tokens used', 'Status'].map((t) =>
              h('th', { scope: 'col', class: t === 'Tokens used' ? 'num' : undefined }, t),
            ),
          ),
        ),
        h(
          'tbody',
          null,
          props.keys.map((record) =>
            h(KeyRow, {
              key: record.id,
              record,
              confirming: confirming === record.id,
              onConfirm: setConfirming,
              onRevoked: () => {
                setAnnounce(`Key ${record.name} revoked. Requests with it now get 401 in every tab.`);
                caption.current?.focus();
              },
              onDeleted: () => {
                setAnnounce(`Revoked key ${record.name} deleted from the list.`);
                caption.current?.focus();
              },
            }),
          ),
        ),
      ),
    ),
    h('p', { class: 'hint', role: 'status' }, announce),
  );
}

export function KeysArea() {
  const ui = useUi();
  const [created, setCreated] = useState<Created | null>(null);
  // After the new key is put away, focus returns to the form that made it.
  const [returning, setReturning] = useState(false);
  useEffect(() => {
    const timer = setInterval(() => void refreshKeys(), REFRESH_MS);
    return () => clearInterval(timer);
  }, []);
  const active = ui.keys.filter((k) => k.revokedAt === null).length;
  return h(
    'section',
    { class: 'area', 'aria-labelledby': 'area-title' },
    h('h1', { id: 'area-title', tabIndex: -1 }, 'API keys'),
    h(
      'p',
      { class: 'lede' },
      'Any script of this origin calls ',
      h('code', null, '/v1'),
      ' with a key in ',
      h('code', null, 'Authorization: Bearer …'),
      '. A key is shown in full once, when you make it; inpage stores only its SHA-256 hash. Revoking works at once, in every tab.',
    ),
    created
      ? h(NewKey, {
          created,
          onDone: () => {
            setReturning(true);
            setCreated(null);
          },
        })
      : h(CreateKeyForm, { onCreated: setCreated, focusName: returning }),
    h('h2', { class: 'section-title' }, 'Your keys ', h('span', { class: 'count' }, `${active} active`)),
    h(KeyTable, { keys: ui.keys }),
    h(StoredResponses, null),
  );
}
