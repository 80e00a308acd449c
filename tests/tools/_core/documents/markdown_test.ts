import assert from "node:assert/strict";
import { htmlToMarkdown } from "../../../../tools/_core/documents/_markdown.ts";

Deno.test("markdown: list items take their marker's width as indent; an ordered list keeps its start", () => {
  assert.equal(
    htmlToMarkdown(
      '<ol start="9"><li><p>Nine</p><p>more</p></li><li>Ten<ul><li>inner</li></ul></li></ol>',
    ),
    ["9. Nine", "", "   more", "10. Ten", "    - inner"].join("\n"),
  );
});

Deno.test("markdown: tables are GitHub tables whose first row is the header, pipes escaped, cell paragraphs joined", () => {
  assert.equal(
    htmlToMarkdown(
      "<table><thead><tr><th>A</th><th>B</th></tr></thead><tbody>" +
        "<tr><td><p>x | y</p></td><td><p>one</p><p>two</p></td></tr></tbody></table><p>after</p>",
    ),
    ["| A | B |", "| --- | --- |", "| x \\| y | one two |", "", "after"].join(
      "\n",
    ),
  );
});

Deno.test("markdown: images are their alt text; headings ATX; emphasis kept", () => {
  assert.equal(
    htmlToMarkdown(
      '<h3>Title</h3><p><img src="" alt=" Plot "/> and <img src=""/> <em>it</em> <strong>bold</strong></p>',
    ),
    "### Title\n\n[image: Plot] and [image] _it_ **bold**",
  );
});
