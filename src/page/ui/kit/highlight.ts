// Syntax highlighting for code blocks in answers: highlight.js's core with a small set of languages, loaded
// only when an answer has code (a dynamic import of this module). It writes plain spans with classes (no
// style attributes, no script), so the page's Content-Security-Policy needs nothing more.
import hljs from 'highlight.js/lib/core';
import bash from 'highlight.js/lib/languages/bash';
import cpp from 'highlight.js/lib/languages/cpp';
import css from 'highlight.js/lib/languages/css';
import go from 'highlight.js/lib/languages/go';
import java from 'highlight.js/lib/languages/java';
import javascript from 'highlight.js/lib/languages/javascript';
import json from 'highlight.js/lib/languages/json';
import python from 'highlight.js/lib/languages/python';
import rust from 'highlight.js/lib/languages/rust';
import sql from 'highlight.js/lib/languages/sql';
import typescript from 'highlight.js/lib/languages/typescript';
import xml from 'highlight.js/lib/languages/xml';
import yaml from 'highlight.js/lib/languages/yaml';

const LANGUAGES = { bash, cpp, css, go, java, javascript, json, python, rust, sql, typescript, xml, yaml };
for (const [name, language] of Object.entries(LANGUAGES)) hljs.registerLanguage(name, language);
// An unknown language name is shown plain, without a console warning for each block.
hljs.configure({ ignoreUnescapedHTML: true, throwUnescapedHTML: false });

/** Highlights the code elements given (their text only: markup already in them is replaced). */
export function highlight(codes: Iterable<HTMLElement>): void {
  for (const code of codes) {
    if (code.dataset.highlighted) continue;
    const named = /\blanguage-([\w+-]+)/.exec(code.className)?.[1];
    const text = code.textContent ?? '';
    // A block without a language the model named is shown plain: a guess (highlightAuto) is often wrong.
    if (!named || !hljs.getLanguage(named)) {
      code.dataset.highlighted = 'plain';
      continue;
    }
    const result = hljs.highlight(text, { language: named });
    // hljs escapes the text it wraps in spans: the result holds no markup of the model's.
    code.innerHTML = result.value;
    code.classList.add('hljs');
    code.dataset.highlighted = result.language ?? named;
  }
}
