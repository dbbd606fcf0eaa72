// The model provider's consent question (src/provider/question.ts) in real Chromium: a click its gate turns down
// (the frame not verifiably visible: see-through, covered, just shown) shows the note and takes neither answer;
// a click the gate lets through takes its answer once.
import { afterEach, describe, expect, it } from 'vitest';
import { question } from '../../../src/provider/question';

const IDS = ['m1', 'm2'];

/** The question for a site in the document, its gate answering `open()`; what the answers received. */
function ask(open: () => boolean) {
  const got = { allowed: [] as string[][], refused: 0, gateCalls: 0 };
  const main = document.createElement('main');
  main.append(
    ...question('https://b.example', 'https://p.example', IDS, { allow: (ids) => got.allowed.push(ids), refuse: () => got.refused++ }, async () => {
      got.gateCalls++;
      return open();
    }),
  );
  document.body.append(main);
  const el = <T extends HTMLElement>(selector: string) => main.querySelector<T>(selector)!;
  return { got, el };
}

/** Clicks `button` and lets its handler finish: the gate asked, then every pending continuation run. */
async function click(button: HTMLElement, got: { gateCalls: number }): Promise<void> {
  const before = got.gateCalls;
  button.click();
  await expect.poll(() => got.gateCalls).toBe(before + 1);
  await new Promise((ok) => setTimeout(ok, 0));
}

afterEach(() => document.body.replaceChildren());

describe("the provider's question", () => {
  it('a click the gate turns down shows the note and takes neither answer; a later one it lets through is taken once', async () => {
    let open = false;
    const { got, el } = ask(() => open);
    const m2 = el<HTMLInputElement>('input[value="m2"]');
    m2.checked = true;
    m2.dispatchEvent(new Event('change', { bubbles: true }));
    expect(el<HTMLButtonElement>('#allow').disabled).toBe(false);

    await click(el('#allow'), got);
    expect(el('#unseen').hidden).toBe(false);
    expect(got.allowed).toEqual([]);
    await click(el('#refuse'), got);
    expect(got.refused).toBe(0);

    open = true;
    await click(el('#allow'), got);
    expect(el('#unseen').hidden).toBe(true);
    expect(got.allowed).toEqual([['m2']]);
    // Answered: a further click asks nothing and takes nothing.
    el('#refuse').click();
    await new Promise((ok) => setTimeout(ok, 0));
    expect(got).toEqual({ allowed: [['m2']], refused: 0, gateCalls: 3 });
  });

  it('Not for this site, turned down, is not taken either; let through, it is', async () => {
    let open = false;
    const { got, el } = ask(() => open);
    await click(el('#refuse'), got);
    expect(el('#unseen').hidden).toBe(false);
    expect(got.refused).toBe(0);
    open = true;
    await click(el('#refuse'), got);
    expect(got.refused).toBe(1);
    expect(got.allowed).toEqual([]);
  });
});
