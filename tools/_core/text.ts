/**
 * Text helpers every dialect shares: splitting into lines, line endings and
 * BOMs, numbering, cutting long lines, estimating tokens.
 *
 * @module
 */

/** The UTF-8 byte order mark, as decoded text. */
export const BOM = "\uFEFF";

/** How a text file is laid out, so a rewrite can keep it. */
export interface TextLayout {
  bom: boolean;
  /** The file's line ending: `\r\n` when every line break is CRLF, else `\n`. */
  eol: "\n" | "\r\n";
  /** Some breaks are CRLF and some LF. */
  mixed: boolean;
}

/** Finds the layout of decoded text. */
export function layoutOf(text: string): TextLayout {
  const bom = text.startsWith(BOM);
  let crlf = 0;
  let lf = 0;
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) {
    if (i > 0 && text.charCodeAt(i - 1) === 13) crlf++;
    else lf++;
  }
  return {
    bom,
    eol: crlf > 0 && lf === 0 ? "\r\n" : "\n",
    mixed: crlf > 0 && lf > 0,
  };
}

/** CRLF → LF. */
export function normalizeEol(text: string): string {
  return text.includes("\r\n") ? text.replaceAll("\r\n", "\n") : text;
}

/** How many `\n` come before index `end` of `text` (so the line holding index `end` is this plus one). */
export function newlinesBefore(text: string, end: number): number {
  let n = 0;
  for (
    let i = text.indexOf("\n");
    i !== -1 && i < end;
    i = text.indexOf("\n", i + 1)
  ) n++;
  return n;
}

/** Lines of text with their line endings, as the text has them (the last may have none). */
export function linesWithEndings(text: string): string[] {
  return text.match(/[^\n]*\n|[^\n]+$/g) ?? [];
}

/** Splits text into lines the way an editor shows them: a final newline does not start another line. */
export function splitLines(text: string): string[] {
  if (text === "") return [];
  const lines = text.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (line.endsWith("\r")) lines[i] = line.slice(0, -1);
  }
  return lines;
}

/** The longest line Read shows whole; longer ones are cut with a marker. */
export const MAX_LINE_CHARS = 2000;

/**
 * Cuts a line over `max` characters, saying how much was left out.
 * `omitted` is how many characters of the line were never read (a stream
 * that kept only its head), counted as part of it.
 */
export function cutLine(
  line: string,
  max = MAX_LINE_CHARS,
  omitted = 0,
): { text: string; cut: boolean } {
  const length = line.length + omitted;
  if (length <= max) return { text: line, cut: false };
  return {
    text: `${line.slice(0, max)}… [line cut: ${length - max} more characters]`,
    cut: true,
  };
}

/** `cat -n` style: the number right-aligned in six columns, a tab, the line. */
export function numberLine(n: number, line: string): string {
  return `${String(n).padStart(6)}\t${line}`;
}

/**
 * A conservative token estimate for budget checks: about four characters a
 * token for ASCII, one a token for other characters (CJK is denser).
 */
export function estimateTokens(text: string): number {
  let ascii = 0;
  let other = 0;
  for (let i = 0; i < text.length; i++) {
    if (text.charCodeAt(i) < 128) ascii++;
    else other++;
  }
  return Math.ceil(ascii / 4) + other;
}

/**
 * A count with its noun in the right number: "1 line", "2 lines",
 * "0 matches" (give the plural when it is not the noun plus "s").
 */
export function plural(
  count: number,
  noun: string,
  nouns = `${noun}s`,
): string {
  return `${count} ${count === 1 ? noun : nouns}`;
}

/** Human-readable size: 812 B, 12.3 KB, 4.5 MB. */
export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  if (n < 1024 ** 3) return `${(n / 1024 / 1024).toFixed(1)} MB`;
  return `${(n / 1024 ** 3).toFixed(1)} GB`;
}

/** Cuts a string for an error message: at most `max` characters, marked when cut. */
export function clip(text: string, max = 200): string {
  return text.length <= max
    ? text
    : `${text.slice(0, max)}… (${text.length - max} more characters)`;
}

/** Levenshtein distance, bounded: returns `limit + 1` as soon as it exceeds `limit`. */
export function editDistance(a: string, b: string, limit = 3): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  let prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    let best = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost);
      best = Math.min(best, cur[j]);
    }
    if (best > limit) return limit + 1;
    prev = cur;
  }
  return prev[b.length];
}
