// The Playground's settings of the current chat: the panel (system prompt, parameters, functions), the parameters
// (sampling, length, thinking) and how the model here thinks.
import { h } from 'preact';
import { useState } from 'preact/hooks';
import type { ModelStatus } from '#shared/wire/engine-port';
import {
  applyPreset,
  chatPresets,
  deletePreset,
  newChatStart,
  savePreset,
  setChatDefaults,
  startsNewChats,
  updateCurrent,
  type Conversation,
  type Sender,
} from './state/chat';
import { McpServers } from './mcp-section';
import { DEFAULT_PARAMS, type Params } from './state/conversation-db';
import { PARAM_RANGES, paramsProblem, rangeProblem, toolDefinitions, type RangedParam } from './state/conversation-request';
import { thinkingHere } from '../../kit/model-facts';
import type { Panel } from './panel';

/** What the JSON schema box starts with. */
const EXAMPLE_SCHEMA = JSON.stringify(
  { type: 'object', properties: { answer: { type: 'string' } }, required: ['answer'], additionalProperties: false },
  null,
  2,
);

function numberOrNull(raw: string): number | null {
  if (raw.trim() === '') return null;
  const n = Number(raw);
  return Number.isFinite(n) ? n : null;
}

/** A number of the request: its range from PARAM_RANGES, its default said in the box; out of range, it says so (and Send waits). */
function ParamField(props: {
  id: string;
  name: RangedParam;
  hint: string;
  value: number | null;
  step: number;
  fallback: string;
  onChange: (v: number | null) => void;
}) {
  const { label, min, max } = PARAM_RANGES[props.name];
  const problem = rangeProblem(props.name, props.value);
  return h(
    'div',
    { class: 'field param' },
    h('label', { for: props.id }, label),
    h('input', {
      id: props.id,
      type: 'number',
      inputMode: 'decimal',
      min,
      max,
      step: props.step,
      placeholder: `default: ${props.fallback}`,
      value: props.value ?? '',
      onInput: (e: Event) => props.onChange(numberOrNull((e.currentTarget as HTMLInputElement).value)),
      'aria-describedby': `${props.id}-hint`,
      'aria-invalid': problem ? 'true' : 'false',
    }),
    h('p', { class: problem ? 'hint error-text' : 'hint', id: `${props.id}-hint` }, problem ? `${problem} Nothing is sent until it is.` : props.hint),
  );
}

/** How many parameters of the chat differ from the defaults (thinking only where it can be switched). */
export function changedParams(conversation: Conversation, status: ModelStatus | undefined, except: readonly (keyof Params)[] = []): number {
  const p = conversation.params;
  const thinks = thinkingHere(conversation.model, status) === 'switchable';
  return (Object.keys(DEFAULT_PARAMS) as (keyof Params)[]).filter(
    (k) => !except.includes(k) && JSON.stringify(p[k] ?? DEFAULT_PARAMS[k]) !== JSON.stringify(DEFAULT_PARAMS[k]) && (k !== 'thinking' || thinks),
  ).length;
}

/** The number fields, in the order shown: what each sends, its hint, what applies when it is empty, its step. */
const NUMBER_FIELDS: { id: string; name: RangedParam; hint: string; fallback: string; step: number; whole?: boolean }[] = [
  { id: 'pg-temperature', name: 'temperature', hint: '0–2; higher is more varied.', fallback: 'the model’s own', step: 0.1 },
  { id: 'pg-top-p', name: 'top_p', hint: '0–1; the share of likely tokens sampled from.', fallback: 'the model’s own', step: 0.05 },
  { id: 'pg-max-tokens', name: 'max_tokens', hint: 'Longest answer, thinking included.', fallback: 'the room the context has left', step: 1, whole: true },
  { id: 'pg-seed', name: 'seed', hint: 'A whole number: the same seed, the same sampling.', fallback: 'random', step: 1, whole: true },
  { id: 'pg-presence', name: 'presence_penalty', hint: '−2–2; above 0 favours new topics.', fallback: '0', step: 0.1 },
  { id: 'pg-frequency', name: 'frequency_penalty', hint: '−2–2; above 0 repeats less.', fallback: '0', step: 0.1 },
];

type SetParams = (patch: Partial<Params>) => void;

function StopField(props: { p: Params; set: SetParams }) {
  const stops = (props.p.stop ?? '').split('\n').filter((line) => line !== '');
  return h(
    'div',
    { class: 'field param wide' },
    h('label', { for: 'pg-stop' }, 'Stop sequences'),
    h('textarea', {
      id: 'pg-stop',
      rows: 2,
      placeholder: 'one per line',
      value: props.p.stop ?? '',
      onInput: (e: Event) => props.set({ stop: (e.currentTarget as HTMLTextAreaElement).value }),
      'aria-describedby': 'pg-stop-hint',
    }),
    h(
      'p',
      { class: 'hint', id: 'pg-stop-hint' },
      stops.length > 4
        ? `Up to four are sent: “${stops.slice(4).join('”, “')}” is left out.`
        : 'Up to four, one per line; the answer ends before the first one it would write.',
    ),
  );
}

function FormatField(props: { p: Params; set: SetParams }) {
  const { p, set } = props;
  const format = p.schema != null ? 'json_schema' : p.json ? 'json_object' : 'text';
  const problem = paramsProblem(p);
  return h(
    'div',
    { class: 'field param wide' },
    h('label', { for: 'pg-format' }, 'Response format'),
    h(
      'select',
      {
        id: 'pg-format',
        value: format,
        onChange: (e: Event) => {
          const v = (e.currentTarget as HTMLSelectElement).value;
          set(v === 'json_schema' ? { json: false, schema: p.schema ?? EXAMPLE_SCHEMA } : { json: v === 'json_object', schema: null });
        },
      },
      h('option', { value: 'text' }, 'Text'),
      h('option', { value: 'json_object' }, 'JSON object (json_object)'),
      h('option', { value: 'json_schema' }, 'JSON schema (json_schema)'),
    ),
    format === 'json_schema' &&
      h(
        'div',
        { class: 'field' },
        h('label', { for: 'pg-schema' }, 'JSON schema'),
        h('textarea', {
          id: 'pg-schema',
          class: 'mono',
          rows: 6,
          spellcheck: false,
          value: p.schema ?? '',
          onInput: (e: Event) => set({ schema: (e.currentTarget as HTMLTextAreaElement).value }),
          'aria-describedby': 'pg-schema-hint',
          'aria-invalid': problem ? 'true' : 'false',
        }),
        h('p', { class: problem ? 'hint error-text' : 'hint', id: 'pg-schema-hint' }, problem ?? 'The answer is JSON that matches this schema.'),
      ),
  );
}

function ThinkingField(props: { p: Params; set: SetParams; thinking: ReturnType<typeof thinkingHere> }) {
  const { thinking } = props;
  const thinks = thinking === 'switchable';
  return h(
    'div',
    { class: 'field checks' },
    h(
      'label',
      { class: 'check' },
      h('input', {
        type: 'checkbox',
        checked: thinking === 'always' || (thinks && props.p.thinking),
        disabled: !thinks,
        onChange: (e: Event) => props.set({ thinking: (e.currentTarget as HTMLInputElement).checked }),
      }),
      ' Thinking',
      h(
        'span',
        { class: 'muted' },
        thinking === 'switchable'
          ? ' (off sends reasoning_effort: "none")'
          : thinking === 'always'
            ? ' (the model serving it here always thinks)'
            : ' (this variant never thinks)',
      ),
    ),
  );
}

function Parameters(props: { conversation: Conversation; status: ModelStatus | undefined }) {
  const { conversation } = props;
  const p = conversation.params;
  const set: SetParams = (patch) => updateCurrent({ params: { ...p, ...patch } });
  // The functions have their own section below: they are not counted among the parameters.
  const changed = changedParams(conversation, props.status, ['tools']);
  return h(
    'details',
    { class: 'pg-params' },
    h('summary', null, 'Parameters', changed ? h('span', { class: 'muted' }, ` (${changed} set)`) : null),
    h(
      'div',
      { class: 'param-grid' },
      NUMBER_FIELDS.map(({ whole, ...field }) =>
        h(ParamField, {
          key: field.id,
          ...field,
          value: p[field.name] ?? null,
          onChange: (v) => set({ [field.name]: v === null || !whole ? v : Math.round(v) }),
        }),
      ),
      h(StopField, { p, set }),
      h(FormatField, { p, set }),
      h(ThinkingField, { p, set, thinking: thinkingHere(conversation.model, props.status) }),
    ),
  );
}

/** What "Add an example" puts in the functions box. */
const EXAMPLE_FUNCTIONS = JSON.stringify(
  [
    {
      name: 'get_weather',
      description: 'The weather now in a city.',
      parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false },
    },
  ],
  null,
  2,
);

/**
 * The functions the model may call (sent as `tools`): a JSON array of `{name, description, parameters}`. Its
 * calls show in the chat, each with a box for the result the person types; "Send the results" continues.
 */
function Functions(props: { conversation: Conversation }) {
  const p = props.conversation.params;
  const set = (tools: string) => updateCurrent({ params: { ...p, tools } });
  const defined = toolDefinitions(p);
  const count = Array.isArray(defined) ? defined.length : 0;
  return h(
    'details',
    { class: 'pg-functions' },
    h('summary', null, 'Functions', count ? h('span', { class: 'muted' }, ` (${count})`) : null),
    h(
      'div',
      { class: 'field' },
      h('label', { for: 'pg-tools' }, 'Function definitions (JSON)'),
      h('textarea', {
        id: 'pg-tools',
        class: 'mono',
        rows: 6,
        spellcheck: false,
        placeholder: '[{"name": "…", "description": "…", "parameters": {JSON schema}}]',
        value: p.tools ?? '',
        onInput: (e: Event) => set((e.currentTarget as HTMLTextAreaElement).value),
        'aria-describedby': 'pg-tools-hint',
        'aria-invalid': typeof defined === 'string' ? 'true' : 'false',
      }),
      h(
        'p',
        { class: typeof defined === 'string' ? 'hint error-text' : 'hint', id: 'pg-tools-hint' },
        typeof defined === 'string'
          ? defined
          : 'A JSON array of functions, each with a name, a description and a JSON schema of its arguments. The calls the answer makes show in the chat; type what each returned and send it to continue.',
      ),
      !(p.tools ?? '').trim() && h('button', { type: 'button', class: 'button small', onClick: () => set(EXAMPLE_FUNCTIONS) }, 'Add an example'),
    ),
  );
}

/** The chat's settings: a sheet on a phone, a column beside the chat on a wide screen. */
export function SettingsPanel(props: { conversation: Conversation; status: ModelStatus | undefined; settings: Panel; sender: Sender | null }) {
  const { conversation, status, settings, sender } = props;
  return h(
    'aside',
    { class: `pg-settings${settings.open ? ' open' : ''}`, id: 'pg-settings', ref: settings.panel, 'aria-labelledby': 'pg-settings-title' },
    h(
      'div',
      { class: 'pg-panel-head' },
      h('h2', { id: 'pg-settings-title' }, 'Chat settings'),
      // The focus goes to Done when the panel opens, not into the system prompt: a phone would raise its keyboard.
      h('button', { type: 'button', class: 'button small', 'data-autofocus': '', onClick: () => settings.toggle(false) }, 'Done'),
    ),
    // Where its settings came from: the preset applied last when the chat was made (newChatStart).
    conversation.startedFrom &&
      h(
        'p',
        { class: 'hint pg-started-from', 'data-testid': 'chat-started-from' },
        `This chat started from preset “${conversation.startedFrom}”, the one applied last when it was made.`,
      ),
    h(
      'div',
      { class: 'field pg-system' },
      h('label', { for: 'pg-system' }, 'System prompt ', h('span', { class: 'muted' }, '(optional)')),
      h('textarea', {
        id: 'pg-system',
        rows: 3,
        placeholder: 'e.g. Answer in one short paragraph.',
        value: conversation.system,
        onInput: (e: Event) => updateCurrent({ system: (e.currentTarget as HTMLTextAreaElement).value }),
      }),
    ),
    h(Parameters, { conversation, status }),
    h(Functions, { conversation }),
    h(McpServers, { conversation, sender }),
    h(Presets, { conversation }),
    h(Defaults, { conversation }),
  );
}

/**
 * What new chats start from (newChatStart): the preset applied last, the saved defaults or the built-in ones; this
 * chat's settings made the default, or the built-in ones again.
 */
function Defaults(props: { conversation: Conversation }) {
  const start = newChatStart();
  const same = startsNewChats(props.conversation);
  const what = start.preset ? `preset “${start.preset}”, the one applied last` : start.saved ? 'your defaults' : 'the built-in defaults';
  return h(
    'div',
    { class: 'pg-defaults', 'data-testid': 'chat-defaults' },
    h(
      'p',
      { class: 'hint' },
      same
        ? `New chats start with these settings (${what}).`
        : start.preset
          ? `New chats start from preset “${start.preset}” (the one applied last), not these.`
          : start.saved
            ? 'New chats start from your saved defaults, not these.'
            : 'New chats start from the built-in defaults, not these.',
    ),
    h(
      'div',
      { class: 'actions' },
      !same &&
        h('button', { type: 'button', class: 'button small', onClick: () => setChatDefaults(props.conversation) }, 'Make these the default for new chats'),
      (start.saved || start.preset) &&
        h('button', { type: 'button', class: 'button small', onClick: () => setChatDefaults(null) }, 'Back to the built-in defaults'),
    ),
  );
}

/**
 * Named presets of the workspace: the chat's system prompt and parameters saved under a name (Save as preset),
 * applied to the chat on screen (Apply), or deleted; kept in this browser's `localStorage` as the defaults are.
 */
function Presets(props: { conversation: Conversation }) {
  const presets = chatPresets();
  const [name, setName] = useState('');
  const [chosen, setChosen] = useState('');
  const [said, setSaid] = useState('');
  const started = props.conversation.startedFrom;
  const selected = [chosen, started].find((n) => n && presets.some((p) => p.name === n)) ?? presets[0]?.name ?? '';
  const save = (e: Event) => {
    e.preventDefault();
    const named = name.trim();
    if (!named) return setSaid('Give the preset a name first.');
    const replaced = presets.some((p) => p.name === named);
    if (!savePreset(named, props.conversation)) return setSaid('The preset could not be kept: this browser’s storage is full or off.');
    setChosen(named);
    setName('');
    setSaid(replaced ? `Preset “${named}” replaced with these settings.` : `Saved as preset “${named}”.`);
  };
  return h(
    'section',
    { class: 'pg-presets', 'aria-labelledby': 'pg-presets-title', 'data-testid': 'chat-presets' },
    h('h3', { id: 'pg-presets-title' }, 'Presets'),
    presets.length > 0
      ? h(
          'div',
          { class: 'field' },
          h('label', { for: 'pg-preset', class: 'visually-hidden' }, 'Preset'),
          h(
            'div',
            { class: 'actions' },
            h(
              'select',
              { id: 'pg-preset', value: selected, onChange: (e: Event) => setChosen((e.currentTarget as HTMLSelectElement).value) },
              presets.map((p) => h('option', { key: p.name, value: p.name }, p.name)),
            ),
            h(
              'button',
              {
                type: 'button',
                class: 'button small',
                onClick: () => setSaid(applyPreset(selected) ? `Applied preset “${selected}” to this chat.` : 'That preset is gone.'),
              },
              'Apply',
            ),
            h(
              'button',
              {
                type: 'button',
                class: 'button small',
                'aria-label': `Delete preset ${selected}`,
                onClick: () => {
                  deletePreset(selected);
                  setChosen('');
                  setSaid(`Preset “${selected}” deleted.`);
                },
              },
              'Delete',
            ),
          ),
        )
      : h('p', { class: 'hint' }, 'No presets yet: save this chat’s settings under a name, to apply them to other chats.'),
    h(
      'form',
      { class: 'field', onSubmit: save },
      h('label', { for: 'pg-preset-name' }, 'Save these settings as a preset'),
      h(
        'div',
        { class: 'actions' },
        h('input', {
          id: 'pg-preset-name',
          type: 'text',
          maxLength: 80,
          placeholder: 'Name, e.g. Brief answers',
          value: name,
          onInput: (e: Event) => setName((e.currentTarget as HTMLInputElement).value),
        }),
        h('button', { type: 'submit', class: 'button small' }, 'Save as preset'),
      ),
    ),
    h('p', { class: 'hint', role: 'status', 'data-testid': 'preset-said' }, said),
  );
}
