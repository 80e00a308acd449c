/**
 * PPTX text by slide: the slides in the order `presentation.xml` lists
 * them, each slide's text (shapes, tables, groups) in the order it is
 * drawn, and its speaker notes. The package is opened with npm:fflate and
 * each part parsed with npm:@xmldom/xmldom; only the slides read are
 * decompressed.
 *
 * @module
 */

import type { Element } from "@xmldom/xmldom";
import { checkAborted } from "./_errors.ts";
import { OfficePackage } from "./_zip.ts";
import { windowOf } from "./_window.ts";
import type { DocumentRange, PagedText } from "./_types.ts";
import {
  child,
  childElements,
  DML,
  is,
  parseXml,
  PML,
  REL_ID,
  relationshipsOf,
  relsPartOf,
} from "./_xml.ts";
import { corrupt } from "./_errors.ts";

const FORMAT = "PPTX presentation";
const OFFICE_DOCUMENT =
  "http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument";
const NOTES_SLIDE = /\/notesSlide$/;

/**
 * The text of the slides of `bytes` that `range` takes (every slide when it
 * is undefined). Guarantees: `total` is the number of slides the
 * presentation lists; each part is one slide's text, a line per paragraph,
 * a table row as its cells joined by " | ", bullets as "- " indented two
 * spaces a level, then "Notes:" and the speaker notes when it has some; an
 * encrypted or damaged file is a ToolError; `signal` is checked between
 * slides.
 */
export function readPptx(
  bytes: Uint8Array,
  shown: string,
  range: DocumentRange | undefined,
  signal: AbortSignal,
): PagedText {
  checkAborted(signal, shown);
  const pkg = OfficePackage.open(bytes, shown, FORMAT);
  const slides = slideParts(pkg, shown);
  const { start, end } = windowOf(slides.length, range);
  const parts: string[] = [];
  for (const slide of slides.slice(start, end)) {
    checkAborted(signal, shown);
    parts.push(slideText(pkg, slide, shown));
  }
  return { total: slides.length, first: start + 1, parts };
}

/** The part names of the slides, in the order the presentation shows them. */
function slideParts(pkg: OfficePackage, shown: string): string[] {
  const root = relationshipsOf(
    pkg.texts([relsPartOf("")]).get("_rels/.rels") ?? "<Relationships/>",
    "",
    shown,
    FORMAT,
  );
  const main = [...root.values()].find((r) => r.type === OFFICE_DOCUMENT)
    ?.target ?? "ppt/presentation.xml";
  if (!pkg.has(main)) {
    throw corrupt(shown, FORMAT, `it has no ${main}: it is not a presentation`);
  }
  const texts = pkg.texts([main, relsPartOf(main)]);
  const presentation = parseXml(texts.get(main)!, main, shown, FORMAT);
  const rels = relationshipsOf(
    texts.get(relsPartOf(main)) ?? "<Relationships/>",
    main,
    shown,
    FORMAT,
  );
  const list = child(presentation, PML, "sldIdLst");
  if (!list) return [];
  const out: string[] = [];
  for (const id of childElements(list)) {
    if (!is(id, PML, "sldId")) continue;
    const target = rels.get(id.getAttributeNS(REL_ID, "id") ?? "")?.target;
    if (target && pkg.has(target)) out.push(target);
  }
  return out;
}

/** One slide's text, with its notes. */
function slideText(pkg: OfficePackage, slide: string, shown: string): string {
  const texts = pkg.texts([slide, relsPartOf(slide)]);
  const body = linesOf(parseXml(texts.get(slide)!, slide, shown, FORMAT));
  const rels = texts.get(relsPartOf(slide));
  const notesPart = rels
    ? [...relationshipsOf(rels, slide, shown, FORMAT).values()].find((r) =>
      NOTES_SLIDE.test(r.type)
    )?.target
    : undefined;
  const notes = notesPart && pkg.has(notesPart)
    ? notesText(parseXml(pkg.text(notesPart), notesPart, shown, FORMAT))
    : [];
  return [...body, ...(notes.length ? ["", "Notes:", ...notes] : [])].join(
    "\n",
  );
}

/** The speaker notes: the text of the notes page's body placeholder only (not its slide image or number). */
function notesText(root: Element): string[] {
  const out: string[] = [];
  const visit = (element: Element) => {
    if (is(element, PML, "sp")) {
      const placeholder = element.getElementsByTagNameNS(PML, "ph")[0];
      if (placeholder?.getAttribute("type") === "body") {
        out.push(...linesOf(element));
      }
      return;
    }
    childElements(element).forEach(visit);
  };
  visit(root);
  return out;
}

/** The lines of text under `element`, in document order: paragraphs, table rows. */
function linesOf(element: Element): string[] {
  const out: string[] = [];
  const visit = (node: Element) => {
    if (is(node, DML, "tbl")) {
      for (const row of childElements(node)) {
        if (!is(row, DML, "tr")) continue;
        const cells = childElements(row).filter((c) => is(c, DML, "tc")).map(
          (cell) => linesOf(cell).join(" "),
        );
        if (cells.some((c) => c !== "")) out.push(cells.join(" | "));
      }
      return;
    }
    if (is(node, DML, "p")) {
      const text = paragraphText(node);
      if (text.trim() !== "") out.push(bulletOf(node) + text);
      return;
    }
    childElements(node).forEach(visit);
  };
  visit(element);
  return out;
}

/** A paragraph's text: its runs and fields, a line break as "\n". */
function paragraphText(paragraph: Element): string {
  let text = "";
  const visit = (node: Element) => {
    if (is(node, DML, "t")) text += node.textContent ?? "";
    else if (is(node, DML, "br")) text += "\n";
    else childElements(node).forEach(visit);
  };
  visit(paragraph);
  return text;
}

/** "- " (indented by level) when the paragraph sets its own bullet or numbering. */
function bulletOf(paragraph: Element): string {
  const properties = child(paragraph, DML, "pPr");
  if (!properties) return "";
  const bulleted = child(properties, DML, "buChar") ??
    child(properties, DML, "buAutoNum");
  if (!bulleted) return "";
  const level = Number(properties.getAttribute("lvl") ?? "0") || 0;
  return `${"  ".repeat(Math.min(level, 8))}- `;
}
