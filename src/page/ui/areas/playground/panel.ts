// A panel that opens over the page on a phone (the chats' drawer, the settings' sheet) and beside the chat on a
// wide screen: opened, the focus moves into it; Escape closes it; closed with the focus inside, the focus goes
// back to the button that opened it.
import type { RefObject } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';

export interface Panel {
  open: boolean;
  toggle: (to?: boolean) => void;
  button: RefObject<HTMLButtonElement | null>;
  panel: RefObject<HTMLElement | null>;
}

export function usePanel(name: string): Panel {
  const [open, setOpen] = useState(false);
  const button = useRef<HTMLButtonElement | null>(null);
  const panel = useRef<HTMLElement | null>(null);
  useEffect(() => {
    // Opened: focus moves into it.
    if (open)
      (panel.current?.querySelector<HTMLElement>('[data-autofocus]') ?? panel.current?.querySelector<HTMLElement>('button'))?.focus({ preventScroll: true });
  }, [open]);
  const toggle = (to?: boolean) => {
    const next = to ?? !open;
    // Closed with the focus inside: it goes back to the button that opened it.
    if (!next && panel.current?.contains(document.activeElement)) button.current?.focus({ preventScroll: true });
    setOpen(next);
  };
  useEffect(() => {
    if (!open) return;
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape') toggle(false);
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [open, name]);
  return { open, toggle, button, panel };
}

/** The attributes of the button that opens and closes `panel`, whose element has the id `controls`. */
export function panelButton(panel: Panel, controls: string) {
  return {
    type: 'button' as const,
    ref: panel.button,
    'aria-expanded': panel.open ? ('true' as const) : ('false' as const),
    'aria-controls': controls,
    onClick: () => panel.toggle(),
  };
}
