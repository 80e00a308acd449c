import assert from "node:assert/strict";
import { decodeLine, isInputError } from "../../session/inbound.ts";

Deno.test("decodes the three inbound types", () => {
  const user = decodeLine(
    '{"type":"user","message":{"role":"user","content":"hi"}}',
    1,
  );
  assert.ok(!isInputError(user) && user.type === "user");
  const req = decodeLine(
    '{"type":"control_request","request_id":"r","request":{"subtype":"interrupt"}}',
    2,
  );
  assert.ok(!isInputError(req) && req.type === "control_request");
  const res = decodeLine(
    '{"type":"control_response","response":{"subtype":"success","request_id":"a1","response":{"behavior":"allow"}}}',
    3,
  );
  assert.ok(!isInputError(res) && res.type === "control_response");
});

Deno.test("errors carry code, line and request id", () => {
  assert.deepEqual(decodeLine("nope", 4), {
    code: "invalid_json",
    line: 4,
    message:
      `line 4 is not JSON: Unexpected token 'o', "nope" is not valid JSON`,
  });
  assert.deepEqual(decodeLine("[]", 5), {
    code: "invalid_message",
    line: 5,
    message: "line 5 is an array, not a JSON object",
  });
  const unknown = decodeLine('{"type":"ping","request_id":"p"}', 6);
  assert.ok(isInputError(unknown));
  assert.equal(unknown.code, "unknown_type");
  assert.equal(unknown.requestId, "p");
  const wrong = decodeLine(
    '{"type":"control_request","request_id":"q","request":{}}',
    7,
  );
  assert.ok(isInputError(wrong));
  assert.equal(wrong.code, "invalid_message");
  assert.equal(wrong.requestId, "q");
  assert.match(
    wrong.message,
    /^invalid control_request message: request\.subtype: /,
  );
});

Deno.test("a request_id that is not a finite number is no id: the error names the line, with no id to echo", () => {
  for (const raw of ["1e400", "-1e400"]) {
    const request = decodeLine(
      `{"type":"control_request","request_id":${raw},"request":{"subtype":"interrupt"}}`,
      3,
    );
    assert.ok(isInputError(request));
    assert.equal(request.code, "invalid_message");
    assert.equal(request.requestId, undefined);
    assert.match(
      request.message,
      /^line 3 has a request_id that is not a finite number \((-)?Infinity\)/,
    );
    // On any other line it is no id either.
    const other = decodeLine(`{"type":"ping","request_id":${raw}}`, 4);
    assert.ok(isInputError(other));
    assert.equal(other.requestId, undefined);
  }
  // A finite number is an id.
  const ok = decodeLine(
    '{"type":"control_request","request_id":7,"request":{"subtype":"interrupt"}}',
    5,
  );
  assert.ok(!isInputError(ok));
  // And a control_response naming an infinite id is invalid.
  const response = decodeLine(
    '{"type":"control_response","response":{"subtype":"success","request_id":1e400,"response":{}}}',
    6,
  );
  assert.ok(isInputError(response));
});
