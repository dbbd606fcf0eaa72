// The Playground's keyboard shortcuts, declared once: the handler and the help dialog that lists them.
import { h } from 'preact';
import { useEffect, useRef } from 'preact/hooks';
import { newConversation } from './state/chat';
import { focusComposer } from './focus';

/** The shortcuts, as the help dialog lists them (keys as `aria-keyshortcuts` writes them). */
const SHORTCUTS: { keys: string; does: string }[] = [
  { keys: 'Enter', does: 'Send the message (in the message box)' },
  { keys: 'Shift+Enter', does: 'A new line in the message box' },
  { keys: 'Escape', does: 'Stop the answer that is streaming (or close the code view, a panel, this dialog)' },
  { keys: '/', does: 'Go to the message box' },
  { keys: 'Alt+Shift+N', does: 'New chat' },
  { keys: 'Shift+?', does: 'This list' },
  { keys: 'Arrow keys, Home, End', does: 'Move in the chat list (one Tab stop)' },
  { keys: 'F2 / Delete', does: 'Rename / delete the chat focused in the list' },
];

/** Whether the key went to a text field (where "/" and "?" are text). */
function typing(target: EventTarget | null): boolean {
  const el = target as HTMLElement | null;
  return !!el && (el.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(el.tagName));
}

/** Something over the chat that Escape closes first (a panel, a dialog, a menu). */
function overlayOpen(): boolean {
  return document.querySelector('.pg-drawer.open, .pg-settings.open, dialog[open], details.pg-more[open], details.chat-menu[open]') !== null;
}

export function useShortcuts(props: { busy: boolean; stop: () => void; help: () => void; code: (() => void) | null }): void {
  const latest = useRef(props);
  latest.current = props;
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const now = latest.current;
      if (e.defaultPrevented || e.isComposing) return;
      if (e.key === 'Escape') {
        if (overlayOpen() || (e.target as HTMLElement | null)?.closest('.edit-turn, .renaming')) return;
        if (now.busy) {
          e.preventDefault();
          now.stop();
        } else if (now.code) {
          e.preventDefault();
          now.code();
        }
      } else if (e.altKey && e.shiftKey && e.code === 'KeyN') {
        e.preventDefault();
        newConversation();
        focusComposer();
      } else if (!typing(e.target) && !e.ctrlKey && !e.metaKey && !e.altKey) {
        if (e.key === '/') {
          e.preventDefault();
          document.getElementById('pg-message')?.focus();
        } else if (e.key === '?') {
          e.preventDefault();
          now.help();
        }
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);
}

/** The list of shortcuts, in a modal dialog (Escape or Close shut it; the focus goes back where it was). */
export function ShortcutsHelp(props: { onClose: () => void }) {
  const dialog = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const before = document.activeElement as HTMLElement | null;
    dialog.current?.showModal();
    return () => before?.focus({ preventScroll: true });
  }, []);
  return h(
    'dialog',
    { ref: dialog, class: 'card shortcuts', 'aria-labelledby': 'shortcuts-title', onClose: props.onClose },
    h('h2', { id: 'shortcuts-title' }, 'Keyboard shortcuts'),
    h(
      'dl',
      { class: 'facts-list' },
      SHORTCUTS.flatMap((s) => [h('dt', { key: `${s.keys}-k` }, h('kbd', null, s.keys)), h('dd', { key: `${s.keys}-d` }, s.does)]),
    ),
    h('form', { method: 'dialog' }, h('button', { type: 'submit', class: 'button primary' }, 'Close')),
  );
}
