import assert from "node:assert/strict";
import { WriteQueue } from "../../session/write_queue.ts";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

Deno.test("writes are granted one at a time, in order of entry", async () => {
  const queue = new WriteQueue();
  const order: string[] = [];
  const run = async (name: string, ms: number) => {
    const ticket = queue.enter("write");
    await ticket.ready;
    order.push(`${name}+`);
    await sleep(ms);
    order.push(`${name}-`);
    ticket.release();
  };
  await Promise.all([run("a", 30), run("b", 1), run("c", 10)]);
  assert.deepEqual(order, ["a+", "a-", "b+", "b-", "c+", "c-"]);
  assert.equal(queue.size, 0);
});

Deno.test("reads overlap each other but never cross a write, either way", async () => {
  const queue = new WriteQueue();
  const order: string[] = [];
  const run = async (name: string, kind: "read" | "write", ms: number) => {
    const ticket = queue.enter(kind);
    await ticket.ready;
    order.push(`${name}+`);
    await sleep(ms);
    order.push(`${name}-`);
    ticket.release();
  };
  await Promise.all([
    run("r1", "read", 40),
    run("r2", "read", 10),
    run("w1", "write", 5),
    run("r3", "read", 5),
    run("r4", "read", 5),
  ]);
  // r1 and r2 overlap; w1 waits for both; r3 and r4 wait for w1 and overlap.
  assert.deepEqual(order.slice(0, 2), ["r1+", "r2+"]);
  assert.ok(order.indexOf("w1+") > order.indexOf("r1-"));
  assert.ok(order.indexOf("w1+") > order.indexOf("r2-"));
  assert.ok(order.indexOf("r3+") > order.indexOf("w1-"));
  assert.ok(order.indexOf("r4+") < order.indexOf("r3-"), "r3 and r4 overlap");
});

Deno.test("release is idempotent", async () => {
  const queue = new WriteQueue();
  const a = queue.enter("write");
  const b = queue.enter("write");
  const c = queue.enter("write");
  await a.ready;
  a.release();
  a.release();
  await b.ready;
  let cReady = false;
  c.ready.then(() => cReady = true);
  await sleep(10);
  assert.equal(cReady, false, "a second release of a must not let c pass b");
  b.release();
  await c.ready;
  c.release();
});

Deno.test("a session of reads only holds no finished read: a write waits only for the unfinished ones", async () => {
  const queue = new WriteQueue();
  for (let i = 0; i < 1000; i++) {
    const ticket = queue.enter("read");
    await ticket.ready;
    ticket.release();
  }
  const open = queue.enter("read");
  assert.equal(queue.readsAhead, 1);
  const write = queue.enter("write");
  assert.equal(queue.readsAhead, 0);
  let written = false;
  write.ready.then(() => written = true);
  await Promise.resolve();
  assert.equal(written, false, "the write waits for the open read");
  open.release();
  await write.ready;
  write.release();
  assert.equal(queue.size, 0);
});
