/**
 * Jupyter notebooks for a model: every cell in order with its type, source
 * and outputs; text outputs as text, image outputs as image blocks.
 *
 * @module
 */

import { base64Image, type ContentBlock, ToolError } from "../kernel/tool.ts";
import type { ImageMediaType } from "./file_type.ts";
import { cutLine } from "./text.ts";

/** The most characters one cell output contributes. */
const MAX_OUTPUT_CHARS = 10_000;

interface Cell {
  cell_type?: string;
  id?: string;
  source?: string | string[];
  outputs?: Output[];
  execution_count?: number | null;
}

interface Output {
  output_type?: string;
  name?: string;
  text?: string | string[];
  data?: Record<string, string | string[]>;
  ename?: string;
  evalue?: string;
  traceback?: string[];
}

/** A rendered notebook. */
export interface NotebookView {
  blocks: ContentBlock[];
  cells: number;
  language: string | null;
  images: number;
}

const joined = (v: string | string[] | undefined) =>
  Array.isArray(v) ? v.join("") : v ?? "";

function clipOutput(text: string): string {
  if (text.length <= MAX_OUTPUT_CHARS) return text;
  return `${text.slice(0, MAX_OUTPUT_CHARS)}\n… [output cut: ${
    text.length - MAX_OUTPUT_CHARS
  } more characters]`;
}

// ANSI colour codes in tracebacks mean nothing to a model.
// deno-lint-ignore no-control-regex
const ANSI = /\x1b\[[0-9;]*m/g;

/** Renders a notebook's JSON text. Throws a {@linkcode ToolError} when it is not a notebook. */
export function renderNotebook(json: string, shown: string): NotebookView {
  let nb: {
    cells?: Cell[];
    metadata?: {
      language_info?: { name?: string };
      kernelspec?: { language?: string };
    };
  };
  try {
    nb = JSON.parse(json);
  } catch (error) {
    throw new ToolError(
      `${shown} is not a valid notebook: ${(error as Error).message}`,
      { type: "invalid_notebook" },
    );
  }
  if (!nb || !Array.isArray(nb.cells)) {
    throw new ToolError(
      `${shown} is not a valid notebook: it has no "cells" list`,
      { type: "invalid_notebook" },
    );
  }
  const language = nb.metadata?.language_info?.name ??
    nb.metadata?.kernelspec?.language ?? null;
  const blocks: ContentBlock[] = [];
  let text = "";
  let images = 0;
  const flush = () => {
    if (text) blocks.push({ type: "text", text });
    text = "";
  };
  nb.cells.forEach((cell, index) => {
    const type = cell.cell_type ?? "code";
    const id = cell.id ? ` id="${cell.id}"` : "";
    const source = joined(cell.source).split("\n").map((l) => cutLine(l).text)
      .join("\n");
    text += `<cell index="${index}"${id} type="${type}">\n${source}\n</cell>\n`;
    for (const output of cell.outputs ?? []) {
      const kind = output.output_type ?? "output";
      if (kind === "stream") {
        text += `<output type="stream" name="${output.name ?? "stdout"}">\n${
          clipOutput(joined(output.text))
        }</output>\n`;
      } else if (kind === "error") {
        const trace = (output.traceback ?? []).join("\n").replace(ANSI, "");
        text += `<output type="error">\n${
          clipOutput(`${output.ename}: ${output.evalue}\n${trace}`)
        }\n</output>\n`;
      } else {
        const data = output.data ?? {};
        const image = ([
          "image/png",
          "image/jpeg",
          "image/gif",
          "image/webp",
        ] as ImageMediaType[])
          .find((t) => data[t] !== undefined);
        if (data["text/plain"] !== undefined) {
          text += `<output type="${kind}">\n${
            clipOutput(joined(data["text/plain"]))
          }\n</output>\n`;
        }
        if (image) {
          flush();
          blocks.push(
            base64Image(image, joined(data[image]).replace(/\s+/g, "")),
          );
          images++;
        }
      }
    }
  });
  flush();
  return { blocks, cells: nb.cells.length, language, images };
}
