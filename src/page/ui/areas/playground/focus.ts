// Where the focus goes after an action in the Playground, so it never falls to the page's body.

/**
 * The composer, after an action that leads to writing (a key made, an answer stopped, a chat started). On a touch
 * screen the chat's title instead: focusing a text box there raises the keyboard over the chat unasked.
 */
export function focusComposer(): void {
  requestAnimationFrame(() => {
    const touch = matchMedia('(pointer: coarse)').matches;
    const target = touch ? document.querySelector<HTMLElement>('.pg-title') : document.getElementById('pg-message');
    target?.focus({ preventScroll: true });
  });
}
