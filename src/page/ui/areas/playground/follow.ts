// Following the newest answer. The page scrolls as a whole, with the composer pinned to the bottom of the screen:
// while the reader is at the end of the page, the page stays at its end as the answer grows (and the composer,
// at the end, sits below the last message, never over it); scrolling up stops that, and "Jump to latest" or
// scrolling back down starts it again. A chat opened (or the page reloaded) starts at its end.
import type { RefObject } from 'preact';
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';

/** Within this many pixels of the end of the page, the reader is at the end. */
const NEAR_END_PX = 48;

function distanceToEnd(): number {
  return document.documentElement.scrollHeight - (window.scrollY + window.innerHeight);
}

/** The page at its end, at once. */
function scrollToEnd(): void {
  window.scrollTo(0, document.documentElement.scrollHeight);
}

export interface Follow {
  /** Whether the reader is at the end of the page (no "Jump to latest" then). */
  atEnd: boolean;
  /** Back to the end, following again (the "Jump to latest" button, a message sent). */
  jump: () => void;
}

/**
 * Follows the growth of `watched` (the turns, the composer) while the reader is at the end. `chat`: the chat on
 * screen; another one starts at its end.
 */
export function useFollow(watched: RefObject<Element | null>[], chat: string | null): Follow {
  const following = useRef(true);
  const [atEnd, setAtEnd] = useState(true);
  useEffect(() => {
    // Content that grows moves no scroll position, and the page's own scrolls go down: only the reader moves it
    // up. Up stops following; back at the end starts it again.
    let lastY = window.scrollY;
    const onScroll = () => {
      const y = window.scrollY;
      const near = distanceToEnd() <= NEAR_END_PX;
      if (near) following.current = true;
      else if (y < lastY) following.current = false;
      lastY = y;
      setAtEnd(following.current || near);
    };
    window.addEventListener('scroll', onScroll, { passive: true });
    return () => window.removeEventListener('scroll', onScroll);
  }, []);
  useLayoutEffect(() => {
    if (!chat) return;
    following.current = true;
    scrollToEnd();
    // Content that grows (a streaming answer, a reply that renders, a composer that grows) moves no scroll
    // position by itself: while following, the page goes to its new end.
    const observer = new ResizeObserver(() => {
      if (following.current) scrollToEnd();
      else setAtEnd(distanceToEnd() <= NEAR_END_PX);
    });
    for (const ref of watched) if (ref.current) observer.observe(ref.current);
    return () => observer.disconnect();
  }, [chat]);
  return {
    atEnd,
    jump: () => {
      following.current = true;
      setAtEnd(true);
      scrollToEnd();
    },
  };
}
