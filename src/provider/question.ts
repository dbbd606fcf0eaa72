// The consent question of the model provider (docs/shared-models.md): "Let <site> use the AI models this browser
// already has?", with a box per model the provider keeps (none ticked in advance) and the two answers. Asked in the
// provider's frame where the browser can tell the frame is visible (IntersectionObserver v2), else on the
// provider's own page at top level (`provider.html?site=<origin>`), which no other site can cover.
import { modelBoxes } from './consent-page';

/** IntersectionObserver v2's least `delay` between visibility notices (its spec's floor). */
export const VISIBILITY_DELAY_MS = 100;
/**
 * How long the question must have been verifiably visible (unoccluded, unclipped, opaque, not transformed) before a
 * click on its answer counts: a frame shown under the pointer a moment before the click cannot take one.
 */
export const VISIBLE_BEFORE_CLICK_MS = 500;

/** Whether this browser can tell that an element is visible to the person (IntersectionObserver v2). */
export function tracksVisibility(): boolean {
  return typeof IntersectionObserverEntry !== 'undefined' && 'isVisible' in IntersectionObserverEntry.prototype;
}

/** Whether `origin` may be a consumer: https, or plain http on a loopback host (development); never opaque. */
export function secureConsumer(origin: string): boolean {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  // An opaque origin serializes as 'null' (a sandboxed frame, a data: page): no site to ask about or record.
  if (url.origin === 'null' || url.origin !== origin) return false;
  if (url.protocol === 'https:') return true;
  const host = url.hostname;
  return url.protocol === 'http:' && (host === 'localhost' || host.endsWith('.localhost') || /^127(\.\d{1,3}){3}$/.test(host) || host === '[::1]');
}

/**
 * Watches `target` with IntersectionObserver v2. `seen()`: it has been visible, as the browser verifies it, for
 * VISIBLE_BEFORE_CLICK_MS up to now and a fresh observation says it still is; `target.dataset.seen` says the first
 * (`true` once it holds, `false` otherwise).
 */
export function watchVisibility(target: HTMLElement): { seen(): Promise<boolean>; stop(): void } {
  let since: number | null = null;
  let timer: ReturnType<typeof setTimeout> | undefined;
  target.dataset.seen = 'false';
  const observer = new IntersectionObserver(
    (entries) => {
      const entry = entries.at(-1) as (IntersectionObserverEntry & { isVisible?: boolean }) | undefined;
      if (!entry) return;
      clearTimeout(timer);
      if (entry.isIntersecting && entry.isVisible === true) {
        since ??= performance.now();
        timer = setTimeout(() => (target.dataset.seen = 'true'), VISIBLE_BEFORE_CLICK_MS);
      } else {
        since = null;
        target.dataset.seen = 'false';
      }
    },
    { trackVisibility: true, delay: VISIBILITY_DELAY_MS, threshold: [0, 1] } as IntersectionObserverInit,
  );
  observer.observe(target);
  const held = () => since !== null && performance.now() - since >= VISIBLE_BEFORE_CLICK_MS;
  return {
    // The watch's notices may lag behind a change (more so on a busy machine), so a click is also held to a fresh
    // observation made after it: a new observer's first notice says what the browser sees now.
    seen: async () => held() && (await visibleNow(target)) && held(),
    stop: () => (observer.disconnect(), clearTimeout(timer)),
  };
}

/** Whether `target` is visible now, as IntersectionObserver v2 verifies it: a new observer's first notice. */
function visibleNow(target: HTMLElement): Promise<boolean> {
  return new Promise((resolve) => {
    const once = new IntersectionObserver(
      (entries) => {
        once.disconnect();
        const entry = entries.at(-1) as (IntersectionObserverEntry & { isVisible?: boolean }) | undefined;
        resolve(entry !== undefined && entry.isIntersecting && entry.isVisible === true);
      },
      { trackVisibility: true, delay: VISIBILITY_DELAY_MS, threshold: [0, 1] } as IntersectionObserverInit,
    );
    once.observe(target);
  });
}

function button(id: string, text: string, onClick: () => unknown): HTMLButtonElement {
  const b = document.createElement('button');
  b.type = 'button';
  b.id = id;
  b.textContent = text;
  b.addEventListener('click', onClick);
  return b;
}

export interface Answers {
  /** The ids ticked (at least one), named one by one. */
  allow(ticked: string[]): void;
  refuse(): void;
}

/**
 * The question's parts for `site`: its text, a box per id of `ids` (unticked), *Use the models this browser already
 * has* (enabled once a box is ticked) and *Not for this site*. `gate`: whether a click counts now (the frame's
 * visibility check); a click it turns down is answered with a note (`#unseen`) and changes nothing.
 */
export function question(
  site: string,
  provider: string,
  ids: readonly string[],
  answers: Answers,
  gate: () => boolean | Promise<boolean> = () => true,
): HTMLElement[] {
  const text = document.createElement('p');
  text.textContent = `Let ${site} use the AI models this browser already has (kept by ${provider})? It can run the models you tick here, nothing else.`;
  const fieldset = document.createElement('fieldset');
  fieldset.id = 'models';
  const legend = document.createElement('legend');
  legend.textContent = 'Models it may run';
  fieldset.append(legend);
  const boxes = modelBoxes(fieldset, [...ids], () => false);
  const ticked = () => boxes.filter((b) => b.checked).map((b) => b.value);
  const note = document.createElement('p');
  note.id = 'unseen';
  note.hidden = true;
  note.textContent = 'That click was not taken: this question was covered, see-through or had just appeared. Click again once you can read it.';
  let answered = false;
  let checking = false;
  const counts = async (): Promise<boolean> => {
    if (answered || checking) return false;
    checking = true;
    const ok = await gate();
    checking = false;
    // A click turned down says so and counts for nothing: neither answer is taken.
    note.hidden = ok;
    return ok && (answered = true);
  };
  const allow = button('allow', 'Use the models this browser already has', async () => {
    const chosen = ticked();
    if (chosen.length > 0 && (await counts())) answers.allow(chosen);
  });
  allow.disabled = true;
  fieldset.addEventListener('change', () => (allow.disabled = ticked().length === 0));
  const refuse = button('refuse', 'Not for this site', async () => (await counts()) && answers.refuse());
  return [text, fieldset, allow, refuse, note];
}
