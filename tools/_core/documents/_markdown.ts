/**
 * The HTML mammoth writes, as Markdown, through npm:turndown: ATX headings,
 * "-" and "1." list items indented by their marker's width, GitHub tables
 * (the first row as the header), images as their alt text.
 *
 * @module
 */

// @ts-types="@types/turndown"
import TurndownService from "turndown";

/** The DOM a rule sees (turndown's own, domino): what these rules use of it. */
interface Element {
  nodeName: string;
  parentNode: Element | null;
  children: ArrayLike<Element>;
  previousSibling: unknown;
  nextSibling: unknown;
  getAttribute(name: string): string | null;
  querySelector(selector: string): Element | null;
}

/** A rule's node, typed by what it is (the package's types name DOM types Deno does not load). */
const dom = (node: unknown) => node as Element;

const service = new TurndownService({
  headingStyle: "atx",
  bulletListMarker: "-",
  codeBlockStyle: "fenced",
  emDelimiter: "_",
  strongDelimiter: "**",
  hr: "---",
});

service.addRule("image", {
  filter: "img",
  replacement: (_content, node) => {
    const alt = dom(node).getAttribute("alt")?.trim();
    return alt ? `[image: ${alt}]` : "[image]";
  },
});

service.addRule("listItem", {
  filter: "li",
  replacement: (content, node) => {
    const parent = dom(node).parentNode;
    let marker = "- ";
    if (parent?.nodeName === "OL") {
      const start = Number(parent.getAttribute("start") ?? "1") || 1;
      marker = `${
        start + Array.prototype.indexOf.call(parent.children, dom(node))
      }. `;
    }
    const body = content.replace(/^\n+/, "").replace(/\n+$/, "\n")
      .replace(/\n(?=.)/g, `\n${" ".repeat(marker.length)}`);
    return marker + body +
      (dom(node).nextSibling && !body.endsWith("\n") ? "\n" : "");
  },
});

service.addRule("tableSection", {
  filter: ["thead", "tbody", "tfoot"],
  replacement: (content) => content,
});

service.addRule("tableCell", {
  filter: ["th", "td"],
  replacement: (content, node) => {
    const text = content.trim().replace(/\s*\n\s*/g, " ").replace(/\|/g, "\\|");
    return `${dom(node).previousSibling ? "" : "|"} ${text} |`;
  },
});

service.addRule("tableRow", {
  filter: "tr",
  replacement: (content, node) => {
    const row = `\n${content}`;
    if (!isFirstRow(dom(node))) return row;
    const columns = dom(node).children.length;
    return `${row}\n|${" --- |".repeat(columns)}`;
  },
});

service.addRule("table", {
  filter: "table",
  replacement: (content) => `\n\n${content.trim()}\n\n`,
});

/** Whether `row` is the first row of its table (across thead/tbody). */
function isFirstRow(row: Element): boolean {
  let table = row.parentNode;
  while (table && table.nodeName !== "TABLE") table = table.parentNode;
  return table?.querySelector("tr") === row;
}

/**
 * `html` as Markdown. Guarantees: no trailing blank lines; Markdown's
 * special characters in the text are escaped as turndown escapes them.
 */
export function htmlToMarkdown(html: string): string {
  return service.turndown(html).trimEnd();
}
