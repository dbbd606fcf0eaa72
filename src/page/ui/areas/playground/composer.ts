// The Playground's composer, pinned below the turns: why a message cannot go (not sent, cannot run here, a
// parameter out of range), the model's download or load, the attached image, the context meter, and the message
// box with Send (or Stop while an answer streams).
import { h } from 'preact';
import type { RefObject } from 'preact';
import { useLayoutEffect, useRef, useState } from 'preact/hooks';
import type { ModelId } from '#shared/variants';
import type { ModelStatus } from '#shared/wire/engine-port';
import type { RateEstimate } from '../../download-rate';
import { approveDownload } from '../../kit/download-ask';
import { STATE_LABEL, progressLine } from '../../kit/model-state';
import { ErrorText } from '../../kit/plain-error';
import { Notice, errorText } from '../../kit/widgets';
import { ContextBar } from './context-bar';
import type { Follow } from './follow';
import { current, send, updateCurrent, type Conversation, type Sender } from './state/chat';
import type { AttachedDocument } from './state/conversation-db';
import { DOCUMENT_ACCEPT, MAX_DOCUMENTS, readDocument } from './state/documents';

/** Images above this size make the request slow to encode and may pass the 20 MiB request limit. */
const MAX_IMAGE_BYTES = 8 * 1024 * 1024;

function readImage(file: File): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result));
    reader.onerror = () => reject(reader.error ?? new Error('The image could not be read.'));
    reader.readAsDataURL(file);
  });
}

/** The message box grows with its text, up to about a third of the screen, then scrolls. */
function useGrowingBox(box: RefObject<HTMLTextAreaElement | null>, text: string, chat: string): void {
  useLayoutEffect(() => {
    const el = box.current;
    if (!el) return;
    const style = getComputedStyle(el);
    const line = parseFloat(style.lineHeight) || 24;
    const padding = parseFloat(style.paddingTop) + parseFloat(style.paddingBottom) + parseFloat(style.borderTopWidth) + parseFloat(style.borderBottomWidth);
    el.rows = 1;
    const max = Math.max(2, Math.floor((window.innerHeight * 0.3 - padding) / line));
    el.rows = Math.min(max, Math.max(1, Math.round((el.scrollHeight - padding + 2) / line)));
  }, [text, chat]);
}

interface ComposerProps {
  conversation: Conversation;
  /** The draft in the message box. */
  text: string;
  model: ModelId;
  status: ModelStatus | undefined;
  rate: RateEstimate | undefined;
  /** Whether the Playground has a key; `sender` sends with it (null without one). */
  hasKey: boolean;
  sender: Sender | null;
  busy: boolean;
  /** Whether the message box's text fits this device's context (the context bar tells the choice when not). */
  fits: boolean;
  /** A parameter of the chat out of range: nothing is sent until it is fixed. */
  problem: string | null;
  /** The model's status when this device cannot run it, and the model offered instead. */
  cannotRun: ModelStatus | null;
  alternative: ModelId | null;
  /** The form, watched by the page's following of the newest answer. */
  form: RefObject<HTMLFormElement | null>;
  follow: Follow;
  stopAnswer: () => void;
  /** Whether the model reads images (an attach button then). */
  vision: boolean;
  /** The last send's failure in this chat, if any. */
  error: { text: string; code: string | null } | null;
}

/** The image attached to the draft: the attach button and the file it reads. */
function useImagePick(): { imageError: string | null; pickImage: (e: Event) => Promise<void> } {
  const [imageError, setImageError] = useState<string | null>(null);
  const pickImage = async (e: Event) => {
    const input = e.currentTarget as HTMLInputElement;
    const file = input.files?.[0];
    input.value = '';
    setImageError(null);
    if (!file) return;
    if (!file.type.startsWith('image/')) return setImageError('Choose an image file (PNG, JPEG, WebP or GIF).');
    if (file.size > MAX_IMAGE_BYTES) return setImageError('That image is larger than 8 MiB; choose a smaller one.');
    try {
      updateCurrent({ draftImage: { url: await readImage(file), name: file.name } });
    } catch (err) {
      setImageError(errorText(err));
    }
  };
  return { imageError, pickImage };
}

/**
 * Documents attached to the draft (any model): the attach button's text files and PDFs, read here (a PDF's text
 * extracted, said while it is read), refused when too large, not text, or a PDF without text, locked or broken.
 */
function useDocumentPick(): { documentError: string | null; reading: string | null; pickDocuments: (e: Event) => Promise<void> } {
  const [documentError, setDocumentError] = useState<string | null>(null);
  const [reading, setReading] = useState<string | null>(null);
  const pickDocuments = async (e: Event) => {
    const input = e.currentTarget as HTMLInputElement;
    const files = [...(input.files ?? [])];
    input.value = '';
    setDocumentError(null);
    const problems: string[] = [];
    const chat = current()?.id;
    const read: AttachedDocument[] = [];
    const room = MAX_DOCUMENTS - (current()?.draftDocuments?.length ?? 0);
    for (const file of files) {
      if (read.length >= room) {
        problems.push(`At most ${MAX_DOCUMENTS} documents go with one message: ${file.name} was not attached.`);
        continue;
      }
      setReading(file.name);
      try {
        const doc = await readDocument(file);
        if (typeof doc === 'string') problems.push(doc);
        else read.push(doc);
      } catch (err) {
        problems.push(`${file.name} could not be read: ${errorText(err)}`);
      }
    }
    setReading(null);
    // Another chat opened while a file was read: the documents are that chat's draft no more, and are said so.
    if (current()?.id !== chat) {
      setDocumentError(`${files.map((f) => f.name).join(', ')}: not attached, another chat was opened while they were read.`);
      return;
    }
    // Added to the draft as it is now (a PDF takes a moment: the person may have removed or attached others meanwhile).
    const taken = [...(current()?.draftDocuments ?? [])];
    for (const doc of read) {
      if (taken.length >= MAX_DOCUMENTS) problems.push(`At most ${MAX_DOCUMENTS} documents go with one message: ${doc.name} was not attached.`);
      else taken.push(doc);
    }
    updateCurrent({ draftDocuments: taken });
    if (problems.length) setDocumentError(problems.join(' '));
  };
  return { documentError, reading, pickDocuments };
}

/** The button that attaches documents, text files and PDFs (any model), and its hidden file input. */
function AttachDocument(props: { disabled: boolean; pick: (e: Event) => Promise<void> }) {
  const input = useRef<HTMLInputElement>(null);
  return h(
    'span',
    { class: 'composer-attach' },
    h('input', {
      ref: input,
      id: 'pg-document',
      type: 'file',
      multiple: true,
      accept: DOCUMENT_ACCEPT,
      class: 'visually-hidden',
      tabIndex: -1,
      onChange: props.pick,
      'aria-label': 'Documents to attach',
    }),
    h(
      'button',
      {
        type: 'button',
        class: 'button small',
        disabled: props.disabled,
        onClick: () => input.current?.click(),
        title: 'Attach documents: text, Markdown, CSV, JSON or code files, or PDFs (their text)',
        // On a phone the button says "Attach" only (its name stays whole).
        'aria-label': 'Attach document',
      },
      'Attach',
      h('span', { class: 'attach-more' }, ' document'),
    ),
  );
}

/** The draft's documents, each a chip with its name, its size and Remove. */
function DocumentChips(props: { conversation: Conversation; box: RefObject<HTMLTextAreaElement | null> }) {
  const docs = props.conversation.draftDocuments ?? [];
  if (!docs.length) return null;
  return h(
    'ul',
    { class: 'document-chips', 'aria-label': 'Attached documents' },
    docs.map((doc, i) =>
      h(
        'li',
        { class: 'attachment document', key: `${i}-${doc.name}`, 'data-testid': 'document-chip' },
        h('span', { class: 'document-name' }, doc.name),
        h('span', { class: 'muted' }, ` ${doc.text.length.toLocaleString('en')} characters`),
        h(
          'button',
          {
            type: 'button',
            class: 'button small',
            onClick: () => {
              updateCurrent({ draftDocuments: docs.filter((_, j) => j !== i) });
              props.box.current?.focus();
            },
            'aria-label': `Remove document ${doc.name}`,
          },
          'Remove',
        ),
      ),
    ),
  );
}

function Problems(props: Pick<ComposerProps, 'model' | 'status' | 'rate' | 'problem' | 'cannotRun' | 'alternative' | 'error'>) {
  const { model, status, cannotRun, alternative, error, problem } = props;
  return [
    error &&
      h(
        Notice,
        { kind: 'error' },
        h(ErrorText, { message: error.text, code: error.code, before: 'Not sent: ', after: ' Your message is back in the box below.' }),
      ),
    cannotRun &&
      h(
        'div',
        { class: 'notice notice-warn cannot-run', role: 'status', 'data-testid': 'cannot-run' },
        h('p', null, h('strong', null, `${model} cannot run on this device. `), cannotRun.error ?? ''),
        alternative &&
          h('button', { type: 'button', class: 'button small', onClick: () => updateCurrent({ model: alternative, modelChosen: true }) }, `Use ${alternative}`),
      ),
    problem && h(Notice, { kind: 'error' }, problem),
    status &&
      (status.state === 'downloading' || status.state === 'loading') &&
      status.progress &&
      h('p', { class: 'hint', role: 'status' }, `${STATE_LABEL[status.state]} ${model}: ${progressLine(status, props.rate)}`),
  ];
}

/** An image attached for a vision model, then another model chosen: kept with the draft, never dropped unsaid. */
function HeldImage(props: { image: { name: string }; model: ModelId; box: RefObject<HTMLTextAreaElement | null> }) {
  const { image, model } = props;
  return h(
    'div',
    { class: 'notice notice-warn attachment-held', role: 'status', 'data-testid': 'image-held' },
    h(
      'p',
      null,
      `The attached image ${image.name} is not sent: ${model} reads text only. It stays here for a model that reads images (svc-vision), or remove it.`,
    ),
    h(
      'button',
      {
        type: 'button',
        class: 'button small',
        onClick: () => {
          updateCurrent({ draftImage: null });
          props.box.current?.focus();
        },
        'aria-label': `Remove image ${image.name}`,
      },
      'Remove',
    ),
  );
}

export function Composer(props: ComposerProps) {
  const { conversation, text, model, sender, busy, hasKey, cannotRun, problem, fits, follow } = props;
  const fileInput = useRef<HTMLInputElement>(null);
  const { documentError, reading, pickDocuments } = useDocumentPick();
  const messageBox = useRef<HTMLTextAreaElement>(null);
  const { imageError, pickImage } = useImagePick();
  // The attachment is the draft's: it stays with the chat, and comes back with the text after a failed send.
  const image = props.vision ? (conversation.draftImage ?? null) : null;
  useGrowingBox(messageBox, text, conversation.id);

  const submit = async (e?: Event) => {
    e?.preventDefault();
    if (!sender || busy || !text.trim() || cannotRun || problem || !fits) return;
    // A message to a model that is not downloaded starts its download: over 100 MB, ask once first. A no
    // leaves the message in the box.
    if (!(await approveDownload(model))) return;
    const now = current();
    if (!now || now.id !== conversation.id || !now.draft.trim()) return;
    follow.jump();
    send(sender, now.draft.trim());
  };
  const onKeyDown = (e: KeyboardEvent) => {
    if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) void submit(e);
  };

  return h(
    'form',
    { class: 'composer', ref: props.form, onSubmit: (e: Event) => void submit(e) },
    !follow.atEnd &&
      conversation.turns.length > 0 &&
      h('button', { type: 'button', class: 'button small jump-latest', onClick: follow.jump }, h('span', { 'aria-hidden': 'true' }, '↓ '), 'Jump to latest'),
    h(Problems, props),
    image &&
      h(
        'div',
        { class: 'attachment' },
        h('img', { src: image.url, alt: `Attached: ${image.name}` }),
        h('span', null, image.name),
        h(
          'button',
          {
            type: 'button',
            class: 'button small',
            onClick: () => {
              updateCurrent({ draftImage: null });
              messageBox.current?.focus();
            },
            'aria-label': `Remove image ${image.name}`,
          },
          'Remove',
        ),
      ),
    !props.vision && conversation.draftImage && h(HeldImage, { image: conversation.draftImage, model, box: messageBox }),
    imageError && h(Notice, { kind: 'error' }, imageError),
    h(DocumentChips, { conversation, box: messageBox }),
    reading && h('p', { class: 'muted', role: 'status', 'data-testid': 'document-reading' }, `Reading ${reading}…`),
    documentError && h(Notice, { kind: 'error' }, documentError),
    h(ContextBar, { conversation, status: props.status, sender, busy }),
    h(
      'div',
      { class: 'composer-box' },
      props.vision &&
        h(
          'span',
          { class: 'composer-attach' },
          h('input', {
            ref: fileInput,
            id: 'pg-image',
            type: 'file',
            accept: 'image/png,image/jpeg,image/webp,image/gif',
            class: 'visually-hidden',
            tabIndex: -1,
            onChange: pickImage,
            'aria-label': 'Image to attach',
          }),
          h(
            'button',
            { type: 'button', class: 'button small', disabled: !hasKey || busy, onClick: () => fileInput.current?.click() },
            image ? 'Replace image' : 'Attach image',
          ),
        ),
      h(AttachDocument, { disabled: !hasKey || busy, pick: pickDocuments }),
      h('label', { for: 'pg-message', class: 'visually-hidden' }, 'Message'),
      h('textarea', {
        id: 'pg-message',
        ref: messageBox,
        rows: 1,
        placeholder: hasKey ? 'Message' : 'Choose a key above first',
        'aria-keyshortcuts': '/',
        value: text,
        disabled: !hasKey,
        onInput: (e: Event) => updateCurrent({ draft: (e.currentTarget as HTMLTextAreaElement).value }),
        onKeyDown,
      }),
      busy
        ? h('button', { type: 'button', class: 'button danger', onClick: props.stopAnswer, 'aria-keyshortcuts': 'Escape' }, 'Stop')
        : h(
            'button',
            { type: 'submit', class: 'button primary', disabled: !hasKey || !text.trim() || cannotRun !== null || problem !== null || !fits },
            'Send',
          ),
    ),
  );
}
