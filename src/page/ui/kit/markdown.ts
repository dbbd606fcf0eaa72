// Model output as markdown, made safe: raw HTML in the text is shown as text, links cannot run script,
// and nothing is fetched from elsewhere (images become links). DOMPurify checks the result once more.
import DOMPurify from 'dompurify';
import { Marked } from 'marked';
import { extractMaths } from './maths-source';

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

const marked = new Marked({
  gfm: true,
  breaks: true,
  async: false,
  renderer: {
    // Raw HTML (block or inline) is text the model wrote, not markup for this page.
    html({ text }) {
      return escapeHtml(text);
    },
    // A picture would be fetched from wherever the model points: show the address as a link instead.
    // Task-list boxes are pictures of state, not controls.
    checkbox({ checked }) {
      return checked ? '☑ ' : '☐ ';
    },
    image({ href, text }) {
      const label = text ? `${text} (image)` : 'image';
      return `<a href="${escapeHtml(href)}">${escapeHtml(label)}</a>`;
    },
  },
});

const PURIFY = {
  ALLOWED_TAGS: [
    'a',
    'p',
    'br',
    'hr',
    'strong',
    'em',
    'del',
    'code',
    'pre',
    'blockquote',
    'ul',
    'ol',
    'li',
    'h1',
    'h2',
    'h3',
    'h4',
    'h5',
    'h6',
    'table',
    'thead',
    'tbody',
    'tr',
    'th',
    'td',
    'span',
  ],
  ALLOWED_ATTR: ['href', 'title', 'align', 'start', 'class'],
  ALLOWED_URI_REGEXP: /^(?:https?:|mailto:|#)/i,
};

// The one class kept: a code block's language (`language-js`), for the highlighter.
DOMPurify.addHook('uponSanitizeAttribute', (node, data) => {
  if (data.attrName === 'class' && !(node.tagName === 'CODE' && /^language-[\w+-]+$/.test(data.attrValue))) data.keepAttr = false;
});

// Links from model output open in a new context and tell the target nothing about this page.
DOMPurify.addHook('afterSanitizeAttributes', (node) => {
  if (node.tagName === 'A') {
    node.setAttribute('target', '_blank');
    node.setAttribute('rel', 'noopener noreferrer nofollow');
  }
});

/**
 * Markdown → a sanitised fragment of plain, inert elements. Maths comes out as `span.math` elements holding
 * their TeX as text (and in `data-tex`), for maths.ts to typeset.
 */
export function renderMarkdown(text: string): DocumentFragment {
  const { text: source, maths } = extractMaths(text);
  const html = marked.parse(source) as string;
  const fragment = DOMPurify.sanitize(html, { ...PURIFY, RETURN_DOM_FRAGMENT: true });
  if (maths.length === 0) return fragment;
  const walker = document.createTreeWalker(fragment, NodeFilter.SHOW_TEXT);
  const nodes: Text[] = [];
  while (walker.nextNode()) if ((walker.currentNode as Text).data.includes('MATHPLACEHOLDER')) nodes.push(walker.currentNode as Text);
  for (const node of nodes) {
    const pieces = node.data.split(/MATHPLACEHOLDER(\d+)X/);
    node.replaceWith(
      ...pieces.map((piece, i) => {
        if (i % 2 === 0) return document.createTextNode(piece);
        const math = maths[Number(piece)]!;
        const span = document.createElement('span');
        span.className = math.display ? 'math display' : 'math';
        span.dataset.tex = math.tex;
        span.dataset.display = String(math.display);
        span.textContent = math.display ? `$$${math.tex}$$` : `$${math.tex}$`;
        return span;
      }),
    );
  }
  return fragment;
}
