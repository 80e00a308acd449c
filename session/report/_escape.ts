/**
 * HTML escaping: every character that could end a text node or an
 * attribute value becomes an entity, so untrusted text stays text.
 *
 * @module
 */

const ENTITIES: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};

/** `text` safe in an HTML text node or a quoted attribute value. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ENTITIES[c]);
}

/**
 * `text` safe in an HTML text node (never in an attribute): only `&`, `<`
 * and `>` become entities, so long outputs stay about their own size.
 */
export function escapeText(text: string): string {
  return text.replace(/[&<>]/g, (c) => ENTITIES[c]);
}
