import assert from "node:assert/strict";
import { WriteQueue } from "../../session/write_queue.ts";

Deno.test("tickets are granted one at a time, in order of entry", async () => {
  const queue = new WriteQueue();
  const order: string[] = [];
  const run = async (name: string, ms: number) => {
    const ticket = queue.enter();
    await ticket.ready;
    order.push(`${name}+`);
    await new Promise((r) => setTimeout(r, ms));
    order.push(`${name}-`);
    ticket.release();
  };
  await Promise.all([run("a", 30), run("b", 1), run("c", 10)]);
  assert.deepEqual(order, ["a+", "a-", "b+", "b-", "c+", "c-"]);
  assert.equal(queue.size, 0);
});

Deno.test("release is idempotent", async () => {
  const queue = new WriteQueue();
  const a = queue.enter();
  const b = queue.enter();
  const c = queue.enter();
  await a.ready;
  a.release();
  a.release();
  await b.ready;
  let cReady = false;
  c.ready.then(() => cReady = true);
  await new Promise((r) => setTimeout(r, 10));
  assert.equal(cReady, false, "a second release of a must not let c pass b");
  b.release();
  await c.ready;
  c.release();
});
