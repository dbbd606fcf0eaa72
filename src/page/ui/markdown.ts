// Model output as markdown, made safe: raw HTML in the text is shown as text, links cannot run script,
// and nothing is fetched from elsewhere (images become links). DOMPurify checks the result once more.
import DOMPurify from 'dompurify';
import { Marked } from 'marked';

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
    'a', 'p', 'br', 'hr', 'strong', 'em', 'del', 'code', 'pre', 'blockquote', 'ul', 'ol', 'li',
    'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'table', 'thead', 'tbody', 'tr', 'th', 'td', 'span',
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

/** Markdown → a sanitised fragment of plain, inert elements. */
export function renderMarkdown(text: string): DocumentFragment {
  const html = marked.parse(text) as string;
  return DOMPurify.sanitize(html, { ...PURIFY, RETURN_DOM_FRAGMENT: true });
}
