/**
 * An outside process racing wave's file tools (issue 12): swaps two
 * names, a directory and a symlink to the outside, with
 * `renameat2(RENAME_EXCHANGE)` in a loop, so that at any instant one of
 * them is the directory and the other the link. Runs until killed, or for
 * the milliseconds given; prints how many swaps it made.
 *
 * Usage: deno run --allow-ffi _racer.ts A B [MS]
 *
 * @module
 */

const [a, b, ms = "60000"] = Deno.args;
const libc = Deno.dlopen("libc.so.6", {
  renameat2: {
    parameters: ["i32", "buffer", "i32", "buffer", "u32"],
    result: "i32",
  },
});
const AT_FDCWD = -100;
const RENAME_EXCHANGE = 2;
const pathA = new TextEncoder().encode(`${a}\0`);
const pathB = new TextEncoder().encode(`${b}\0`);
const end = Date.now() + Number(ms);
let swaps = 0;
while (Date.now() < end) {
  for (let i = 0; i < 100; i++) {
    if (
      libc.symbols.renameat2(
        AT_FDCWD,
        pathA,
        AT_FDCWD,
        pathB,
        RENAME_EXCHANGE,
      ) === 0
    ) swaps++;
  }
}
console.log(swaps);
