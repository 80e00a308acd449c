import assert from "node:assert/strict";
import { ApprovalGate, type ApprovalParent } from "../../session/approvals.ts";
import {
  CanUseToolParent,
  type SendRequest,
} from "../../session/can_use_tool.ts";

/** A gate whose parent asks with can_use_tool through `send`. */
function gateWith(
  policy: "parent" | "deny" | "allow",
  timeoutMs: number,
  send: SendRequest,
): ApprovalGate & { answer: CanUseToolParent["answer"] } {
  const parent = new CanUseToolParent(send);
  const gate = new ApprovalGate(policy, timeoutMs, parent);
  return Object.assign(gate, {
    answer: parent.answer.bind(parent),
  });
}

const req = {
  toolName: "Read",
  input: { file_path: "/etc/hosts" },
  toolUseId: "t1",
  sessionId: "s1",
  reason: "path outside the workspace: /etc/hosts",
};

Deno.test("deny and allow policies decide without asking", async () => {
  const sent: unknown[] = [];
  const deny = gateWith("deny", 1000, (...a) => sent.push(a));
  const d = await deny.request(req, new AbortController().signal);
  assert.equal(d.allowed, false);
  assert.match(
    !d.allowed ? d.message : "",
    /^Read was denied: path outside the workspace: \/etc\/hosts\. wave runs with --approvals deny/,
  );
  const allow = gateWith("allow", 1000, (...a) => sent.push(a));
  assert.deepEqual(await allow.request(req, new AbortController().signal), {
    allowed: true,
  });
  assert.equal(sent.length, 0);
});

Deno.test("parent policy sends can_use_tool and takes the answer", async () => {
  const sent: [string, Record<string, unknown>][] = [];
  const gate = gateWith(
    "parent",
    10_000,
    (id, r) => sent.push([id, r]),
  );
  const pending = gate.request(req, new AbortController().signal);
  assert.equal(sent.length, 1);
  assert.deepEqual(sent[0][1], {
    subtype: "can_use_tool",
    tool_name: "Read",
    input: req.input,
    tool_use_id: "t1",
    reason: req.reason,
    decision_reason: req.reason,
    title: "wave wants to use Read",
    description: req.reason,
    permission_suggestions: [],
  });
  assert.equal(
    gate.answer("nope", {
      subtype: "success",
      response: { behavior: "allow" },
    }),
    false,
  );
  assert.equal(
    gate.answer(sent[0][0], {
      subtype: "success",
      response: { behavior: "allow" },
    }),
    true,
  );
  assert.deepEqual(await pending, { allowed: true });
  // An answer covers one call: the id is spent.
  assert.equal(
    gate.answer(sent[0][0], {
      subtype: "success",
      response: { behavior: "allow" },
    }),
    false,
  );

  const second = gate.request(req, new AbortController().signal);
  gate.answer(sent[1][0], {
    subtype: "success",
    response: { behavior: "deny", message: "no" },
  });
  assert.deepEqual(await second, {
    allowed: false,
    message: "Read was denied by the user: no",
  });
  const third = gate.request(req, new AbortController().signal);
  gate.answer(sent[2][0], { subtype: "error", error: "boom" });
  const t = await third;
  assert.equal(t.allowed, false);
});

Deno.test("timeout, abort and close deny", async () => {
  const gate = gateWith("parent", 20, () => {});
  const timedOut = await gate.request(req, new AbortController().signal);
  assert.match(!timedOut.allowed ? timedOut.message : "", /did not answer/);
  const gate2 = gateWith("parent", 10_000, () => {});
  const controller = new AbortController();
  const aborted = gate2.request(req, controller.signal);
  controller.abort();
  assert.match((await aborted as { message: string }).message, /interrupted/);
  const pending = gate2.request(req, new AbortController().signal);
  gate2.close("stdin was closed");
  assert.deepEqual(await pending, {
    allowed: false,
    message: "Read was denied: stdin was closed",
  });
  const later = await gate2.request(req, new AbortController().signal);
  assert.equal(later.allowed, false);
});

Deno.test("004: an alwaysAsk request is asked of the parent even under allow, and denied under deny", async () => {
  const sent: [string, Record<string, unknown>][] = [];
  const sensitive = {
    ...req,
    reason: "sensitive file (.env): /ws/.env",
    alwaysAsk: true,
  };
  const allow = gateWith(
    "allow",
    10_000,
    (id, r) => sent.push([id, r]),
  );
  const pending = allow.request(sensitive, new AbortController().signal);
  assert.equal(sent.length, 1);
  assert.equal(sent[0][1].subtype, "can_use_tool");
  assert.equal(sent[0][1].reason, "sensitive file (.env): /ws/.env");
  allow.answer(sent[0][0], {
    subtype: "success",
    response: { behavior: "deny", message: "no" },
  });
  assert.deepEqual(await pending, {
    allowed: false,
    message: "Read was denied by the user: no",
  });
  const deny = gateWith("deny", 1000, (id, r) => sent.push([id, r]));
  const d = await deny.request(sensitive, new AbortController().signal);
  assert.equal(d.allowed, false);
  assert.equal(sent.length, 1);
});

Deno.test("a parent that cannot ask: the request is denied with its reason, and the parent is not asked", async () => {
  let asked = 0;
  const parent: ApprovalParent = {
    unavailable: () => "the client cannot be asked.",
    ask: () => (asked++, Promise.resolve({ allowed: true })),
  };
  const gate = new ApprovalGate("parent", 1000, parent);
  assert.deepEqual(await gate.request(req, new AbortController().signal), {
    allowed: false,
    message:
      "Read was denied: path outside the workspace: /etc/hosts. the client cannot be asked.",
  });
  assert.equal(asked, 0);
});

Deno.test("a parent's question is dropped when the gate stops waiting, and a rejection is a denial", async () => {
  const signals: AbortSignal[] = [];
  const gate = new ApprovalGate("parent", 10_000, {
    ask: (_req, signal) => (signals.push(signal), new Promise(() => {})),
  });
  const controller = new AbortController();
  const pending = gate.request(req, controller.signal);
  assert.equal(signals[0].aborted, false);
  controller.abort();
  assert.equal((await pending).allowed, false);
  assert.equal(signals[0].aborted, true);
  const failing = new ApprovalGate("parent", 10_000, {
    ask: () => Promise.reject(new Error("transport closed")),
  });
  assert.deepEqual(await failing.request(req, new AbortController().signal), {
    allowed: false,
    message: "Read was denied: the approval request failed: transport closed",
  });
});
