import assert from "node:assert/strict";
import {
  type FlagTable,
  flagValues,
  helpLines,
  parseDuration,
  readFlags,
} from "../../session/_flag_parser.ts";

const TABLE = {
  "name": { kind: "string", arg: "N", help: "a name" },
  "color": {
    kind: "string",
    choices: ["red", "blue"],
    default: "red",
    help: "a color",
  },
  "count": { kind: "integer", default: "3", help: "how many" },
  "wait": { kind: "duration", help: "how long" },
  "tag": { kind: "list", help: "a tag (repeatable)" },
  "verbose": { kind: "boolean", short: "v", help: "say more" },
} as const satisfies FlagTable;

function parse(args: string[]) {
  const texts = readFlags(args, TABLE);
  return typeof texts === "string" ? texts : flagValues(texts, TABLE);
}

Deno.test("flag parser: defaults fill in; booleans and lists are always there", () => {
  assert.deepEqual(parse([]), {
    color: "red",
    count: 3,
    tag: [],
    verbose: false,
  });
});

Deno.test("flag parser: --name value, --name=value, repeated lists, a short alias", () => {
  assert.deepEqual(
    parse([
      "--name",
      "a=b",
      "--color=blue",
      "--count=12",
      "--wait",
      "1.5s",
      "--tag",
      "x",
      "--tag=",
      "-v",
    ]),
    {
      name: "a=b",
      color: "blue",
      count: 12,
      wait: 1500,
      tag: ["x", ""],
      verbose: true,
    },
  );
});

Deno.test("flag parser: a later value of a single flag wins", () => {
  assert.deepEqual(parse(["--name", "a", "--name", "b"]), {
    name: "b",
    color: "red",
    count: 3,
    tag: [],
    verbose: false,
  });
});

Deno.test("flag parser: what is wrong with the arguments, in one line", () => {
  const cases: [string[], string][] = [
    [["--nope"], "unknown flag: --nope"],
    [["--nope=1"], "unknown flag: --nope"],
    [["name"], "unexpected argument: name"],
    [["-x"], "unexpected argument: -x"],
    [["-vv"], "unexpected argument: -vv"],
    [["--verbose=yes"], "--verbose takes no value"],
    [["--name"], "--name needs a value"],
    [["--color", "green"], '--color must be one of red, blue, not "green"'],
    [["--count", "0"], '--count must be a positive whole number, not "0"'],
    [["--count", "2.5"], '--count must be a positive whole number, not "2.5"'],
    [
      ["--count", "9007199254740993"],
      '--count must be a positive whole number, not "9007199254740993"',
    ],
    [
      ["--wait", "soon"],
      '--wait must be a duration such as 30s, 500ms or 5m, not "soon"',
    ],
    // Syntax first, then values in table order.
    [["--count", "0", "--nope"], "unknown flag: --nope"],
    [
      ["--count", "0", "--color", "green"],
      '--color must be one of red, blue, not "green"',
    ],
  ];
  for (const [args, message] of cases) {
    assert.equal(parse(args), message, args.join(" "));
  }
});

Deno.test("flag parser: a flag name is not an inherited property", () => {
  assert.equal(parse(["--toString"]), "unknown flag: --toString");
});

Deno.test("flag parser: durations", () => {
  assert.equal(parseDuration("300"), 300_000);
  assert.equal(parseDuration("30s"), 30_000);
  assert.equal(parseDuration("500ms"), 500);
  assert.equal(parseDuration("5m"), 300_000);
  assert.equal(parseDuration("0.25s"), 250);
  assert.equal(parseDuration("soon"), undefined);
  assert.equal(parseDuration("-1s"), undefined);
  assert.equal(parseDuration("5h"), undefined);
});

Deno.test("flag parser: help lines show the placeholder, the choices and the default", () => {
  assert.deepEqual(helpLines(TABLE, 14), [
    "  --name N    a name",
    "  --color     red | blue: a color (default: red)",
    "  --count     how many (default: 3)",
    "  --wait      how long",
    "  --tag       a tag (repeatable)",
    "  --verbose   say more",
  ]);
});
