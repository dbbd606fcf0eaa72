// Small pieces every area uses: a copy button, sanitised markdown, a code block with its copy button.
import { h, type ComponentChildren } from 'preact';
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { renderMarkdown } from './markdown';

async function copyText(text: string): Promise<void> {
  try {
    await navigator.clipboard.writeText(text);
  } catch {
    // No clipboard permission (or an insecure context): the old way, through a selection.
    const area = document.createElement('textarea');
    area.value = text;
    area.setAttribute('readonly', '');
    area.className = 'offscreen';
    document.body.append(area);
    area.select();
    const ok = document.execCommand('copy');
    area.remove();
    if (!ok) throw new Error('The browser refused to copy.');
  }
}

export function CopyButton(props: { text: string; label: string; class?: string }) {
  const [status, setStatus] = useState<'idle' | 'copied' | 'failed'>('idle');
  useEffect(() => {
    if (status === 'idle') return;
    const timer = setTimeout(() => setStatus('idle'), 2000);
    return () => clearTimeout(timer);
  }, [status]);
  const copy = () => {
    copyText(props.text).then(
      () => setStatus('copied'),
      () => setStatus('failed'),
    );
  };
  const shown = status === 'copied' ? 'Copied' : status === 'failed' ? 'Copy failed' : 'Copy';
  return h(
    'span',
    { class: `copy ${props.class ?? ''}` },
    h('button', { type: 'button', class: 'button small', onClick: copy, 'aria-label': props.label }, shown),
    h('span', { class: 'visually-hidden', role: 'status' }, status === 'idle' ? '' : shown),
  );
}

/** A block of code with a labelled copy button. */
export function CodeBlock(props: { code: string; label: string; id?: string }) {
  return h(
    'div',
    { class: 'code-block' },
    h('pre', { id: props.id, tabIndex: 0, 'aria-label': props.label }, h('code', null, props.code)),
    h(CopyButton, { text: props.code, label: `Copy the ${props.label}`, class: 'code-copy' }),
  );
}

/** Puts a "Copy code" button above each code block of rendered markdown. */
/** A complete answer that is one JSON object or array: shown as indented JSON in a code block labelled json. */
function prettyJson(text: string, final: boolean | undefined): string {
  const trimmed = text.trim();
  if (!final || !/^[[{]/.test(trimmed)) return text;
  try {
    return '```json\n' + JSON.stringify(JSON.parse(trimmed), null, 2) + '\n```';
  } catch {
    return text;
  }
}

function addCodeCopy(root: HTMLElement): void {
  root.querySelectorAll('pre').forEach((pre, index) => {
    const wrap = document.createElement('div');
    wrap.className = 'code-wrap';
    // The language the model named for the block, as a label; none named, none guessed.
    const language = /\blanguage-([\w+-]+)/.exec(pre.querySelector('code')?.className ?? '')?.[1];
    if (language) {
      const label = document.createElement('span');
      label.className = 'code-language';
      label.textContent = language;
      wrap.append(label);
    }
    const button = document.createElement('button');
    button.type = 'button';
    button.className = 'button small code-copy';
    button.textContent = 'Copy code';
    button.setAttribute('aria-label', `Copy code block ${index + 1}`);
    button.addEventListener('click', () => {
      copyText(pre.textContent ?? '').then(
        () => (button.textContent = 'Copied'),
        () => (button.textContent = 'Copy failed'),
      );
      setTimeout(() => (button.textContent = 'Copy code'), 2000);
    });
    pre.replaceWith(wrap);
    wrap.append(button, pre);
  });
}

/**
 * Model output rendered as sanitised markdown: its text can never become markup or script of this page.
 * Code blocks get a copy button; once `final` (the answer is complete) they are highlighted, the
 * highlighter loaded on first need.
 */
export function Markdown(props: { text: string; class?: string; final?: boolean }) {
  const ref = useRef<HTMLDivElement>(null);
  useLayoutEffect(() => {
    const root = ref.current;
    if (!root) return;
    root.replaceChildren(renderMarkdown(prettyJson(props.text, props.final)));
    addCodeCopy(root);
    const codes = root.querySelectorAll<HTMLElement>('pre > code');
    if (props.final && codes.length > 0) {
      void import('./highlight').then(({ highlight }) => {
        if (root.isConnected) highlight(codes);
      });
    }
    // KaTeX only when there is maths, once the answer is complete (the TeX shows as text until then).
    const maths = root.querySelectorAll<HTMLElement>('span.math');
    if (props.final && maths.length > 0) {
      void import('./maths').then(({ typeset }) => {
        if (root.isConnected) typeset(maths);
      });
    }
  }, [props.text, props.final]);
  return h('div', { ref, class: `markdown ${props.class ?? ''}` });
}

export function Notice(props: { kind: 'info' | 'warn' | 'error' | 'ok'; children?: ComponentChildren; role?: string }) {
  return h('div', { class: `notice notice-${props.kind}`, role: props.role ?? (props.kind === 'error' ? 'alert' : undefined) }, props.children);
}

export function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
