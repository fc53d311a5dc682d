// Replies and documents are Markdown that loads nothing from any address:
// raw HTML is shown as text, images only from data: URLs, links open in a
// new tab without a referrer. DOMPurify checks the result again.

import DOMPurify from "dompurify";
import { Marked } from "marked";

const escape = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c] ?? c);

const marked = new Marked({
  gfm: true,
  breaks: false,
  renderer: {
    html({ text }) {
      return escape(text);
    },
    image({ href, title, text }) {
      if (!/^data:image\/(png|gif|jpe?g|webp);base64,/i.test(href)) {
        return `<span class="blocked-image" title="Pictures from addresses aren't loaded">[${escape(text || "image")}]</span>`;
      }
      return `<img src="${escape(href)}" alt="${escape(text)}"${title ? ` title="${escape(title)}"` : ""}>`;
    },
    link({ href, title, tokens }) {
      const label = this.parser.parseInline(tokens);
      if (!/^https?:\/\//i.test(href)) return label;
      return `<a href="${escape(href)}" target="_blank" rel="noopener noreferrer"${title ? ` title="${escape(title)}"` : ""}>${label}</a>`;
    },
  },
});

DOMPurify.addHook("uponSanitizeAttribute", (node, data) => {
  if (node.nodeName === "IMG" && data.attrName === "src" && !data.attrValue.startsWith("data:image/")) {
    data.keepAttr = false;
  }
});

export function renderMarkdown(text: string): string {
  const html = marked.parse(text, { async: false }) as string;
  return DOMPurify.sanitize(html, {
    ALLOWED_URI_REGEXP: /^(?:https?:|data:image\/(?:png|gif|jpe?g|webp);base64,)/i,
    ADD_ATTR: ["target"],
    FORBID_TAGS: ["style", "form", "input", "iframe", "object", "embed", "svg", "math"],
  });
}
