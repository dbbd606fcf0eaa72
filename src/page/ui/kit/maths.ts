// Maths in answers, typeset by KaTeX as MathML (no style attributes, no fonts to fetch: the browser lays MathML
// out itself), loaded only when an answer has maths (a dynamic import of this module). KaTeX's `trust` stays
// off, so no TeX command can make a link or run anything.
import katex from 'katex';

/** Replaces each placeholder element (`span.math`, its TeX in `data-tex`) with the typeset MathML. */
export function typeset(spans: Iterable<HTMLElement>): void {
  for (const span of spans) {
    const tex = span.dataset.tex ?? '';
    const display = span.dataset.display === 'true';
    const html = katex.renderToString(tex, { output: 'mathml', displayMode: display, throwOnError: false, trust: false, strict: 'ignore' });
    const template = document.createElement('template');
    template.innerHTML = html;
    span.replaceChildren(template.content);
    span.classList.add('typeset');
  }
}
