/**
 * XML parts of an Office document as DOM trees (npm:@xmldom/xmldom), and
 * the few walks the readers need over them.
 *
 * @module
 */

import { DOMParser, type Element } from "@xmldom/xmldom";
import { corrupt, messageOf } from "./_errors.ts";

/** DrawingML: text runs and paragraphs (`a:p`, `a:t`), tables. */
export const DML = "http://schemas.openxmlformats.org/drawingml/2006/main";
/** PresentationML: slides, shapes, placeholders. */
export const PML = "http://schemas.openxmlformats.org/presentationml/2006/main";
/** The `r:` namespace of relationship ids. */
export const REL_ID =
  "http://schemas.openxmlformats.org/officeDocument/2006/relationships";
/** The namespace of `.rels` parts. */
const PACKAGE_RELS =
  "http://schemas.openxmlformats.org/package/2006/relationships";

/**
 * The root element of an XML part. Guarantees: malformed XML is a "corrupt"
 * ToolError naming the part; warnings are not printed.
 */
export function parseXml(
  text: string,
  part: string,
  shown: string,
  format: string,
): Element {
  let first: string | undefined;
  try {
    const document = new DOMParser({
      locator: false,
      onError(level, message) {
        if (level === "warning") return;
        first ??= message;
        throw new Error(message);
      },
    }).parseFromString(text.replace(/^\uFEFF/, ""), "application/xml");
    const root = document.documentElement;
    if (!root) throw new Error("no root element");
    return root;
  } catch (error) {
    throw corrupt(
      shown,
      format,
      `its part ${part} is not well-formed XML: ${first ?? messageOf(error)}`,
    );
  }
}

/** The element children of `element`, in document order. */
export function childElements(element: Element): Element[] {
  const out: Element[] = [];
  for (let node = element.firstChild; node; node = node.nextSibling) {
    if (node.nodeType === 1) out.push(node as Element);
  }
  return out;
}

/** Whether `element` is `{namespace}local`. */
export function is(
  element: Element,
  namespace: string,
  local: string,
): boolean {
  return element.namespaceURI === namespace && element.localName === local;
}

/** The first child of `element` that is `{namespace}local`. */
export function child(
  element: Element,
  namespace: string,
  local: string,
): Element | undefined {
  return childElements(element).find((c) => is(c, namespace, local));
}

/** One relationship of a part: its type URI and its target, resolved to a part name. */
export interface Relationship {
  type: string;
  target: string;
}

/**
 * The relationships of `part` (from `dir/_rels/name.rels`, already read as
 * `text`), by id; external targets (URLs) are left out.
 */
export function relationshipsOf(
  text: string,
  part: string,
  shown: string,
  format: string,
): Map<string, Relationship> {
  const root = parseXml(text, relsPartOf(part), shown, format);
  const base = part.includes("/") ? part.slice(0, part.lastIndexOf("/")) : "";
  const out = new Map<string, Relationship>();
  for (const rel of childElements(root)) {
    if (!is(rel, PACKAGE_RELS, "Relationship")) continue;
    if (rel.getAttribute("TargetMode") === "External") continue;
    const id = rel.getAttribute("Id");
    const target = rel.getAttribute("Target");
    if (!id || !target) continue;
    out.set(id, {
      type: rel.getAttribute("Type") ?? "",
      target: resolvePart(base, target),
    });
  }
  return out;
}

/** The name of the `.rels` part of `part` ("ppt/slides/slide1.xml" → "ppt/slides/_rels/slide1.xml.rels"; "" → "_rels/.rels"). */
export function relsPartOf(part: string): string {
  const slash = part.lastIndexOf("/");
  return `${part.slice(0, slash + 1)}_rels/${part.slice(slash + 1)}.rels`;
}

/** A relationship target resolved against the folder of its source part, as a part name. */
function resolvePart(base: string, target: string): string {
  const segments = target.startsWith("/")
    ? []
    : base.split("/").filter(Boolean);
  for (const segment of target.split("/")) {
    if (segment === "" || segment === ".") continue;
    if (segment === "..") segments.pop();
    else segments.push(segment);
  }
  return segments.join("/");
}
