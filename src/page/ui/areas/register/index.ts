// The beta sign-up: makes the local workspace and its organisation id. No card, no server.
import { h } from 'preact';
import { useState } from 'preact/hooks';
import { refreshWorkspace } from '../../startup';
import { cpuEngine, webGpuMissing } from '../../kit/device';
import { CpuNotice, NoWebGpu } from '../../kit/no-webgpu';
import { getState, useUi } from '../../store';
import { Notice, errorText } from '../../kit/widgets';

export function Register(props: { onRegistered: () => void }) {
  const ui = useUi();
  const missing = webGpuMissing(ui);
  const cpu = cpuEngine(ui);
  const [name, setName] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  const submit = async (event: Event) => {
    event.preventDefault();
    const api = getState().api;
    if (!api || busy) return;
    setBusy(true);
    setError(null);
    try {
      await api.workspace.register(name);
      props.onRegistered();
      await refreshWorkspace();
    } catch (err) {
      setError(errorText(err));
      setBusy(false);
    }
  };

  return h(
    'section',
    { class: 'register', 'aria-labelledby': 'register-title' },
    h('p', { class: 'eyebrow' }, 'Beta sign-up'),
    h('h1', { id: 'register-title', tabIndex: -1 }, 'Create your local workspace'),
    h(
      'p',
      { class: 'lede' },
      'inpage serves an OpenAI-style chat-completion API from inside this browser. Register once to make the workspace that owns your API keys.',
    ),
    // Where nothing can run the models, that comes first (it says the workspace can still be made below); else
    // the form comes first, on the first screen of a phone, and what to know about it follows.
    missing && h(NoWebGpu, { reason: missing, beforeSignUp: true }),
    h(
      'form',
      { class: 'card register-form', onSubmit: submit },
      h('label', { for: 'workspace-name' }, 'Workspace name'),
      h('input', {
        id: 'workspace-name',
        name: 'workspace-name',
        required: true,
        maxLength: 80,
        autoComplete: 'organization',
        placeholder: 'e.g. Acme prototypes',
        value: name,
        onInput: (e: Event) => setName((e.currentTarget as HTMLInputElement).value),
        'aria-describedby': 'workspace-name-hint',
      }),
      h('p', { id: 'workspace-name-hint', class: 'hint' }, 'Only you see it, in this browser.'),
      error && h(Notice, { kind: 'error' }, error),
      h('button', { type: 'submit', class: 'button primary', disabled: busy }, busy ? 'Creating…' : 'Create workspace'),
    ),
    cpu && h(CpuNotice, { cpu, beforeSignUp: true }),
    h(
      'ul',
      { class: 'facts' },
      h(
        'li',
        null,
        h('strong', null, 'Nothing leaves this device. '),
        'Your account, your keys and every prompt and answer stay in this browser, for ',
        h('code', null, location.origin),
        ' only. There is no server behind it.',
      ),
      h('li', null, h('strong', null, 'Free during the beta. '), 'No payment card, no e-mail address, no password.'),
      h(
        'li',
        null,
        h('strong', null, 'Your organisation id. '),
        'The workspace gets an id like ',
        h('code', null, 'org-…'),
        ': the ',
        h('code', null, 'owned_by'),
        ' of every model.',
      ),
      h(
        'li',
        null,
        h('strong', null, 'Model weights are the one download. '),
        'They come once from their public host when you first use a model, then stay cached here.',
      ),
    ),
  );
}
