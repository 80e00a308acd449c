import assert from "node:assert/strict";
import { sensitiveReason } from "../../../tools/kernel/sensitive.ts";

const none = () => undefined;

Deno.test("sensitive names", () => {
  for (
    const path of [
      "/w/.env",
      "/w/.env.production",
      "/w/a/.envrc",
      "/w/cert.pem",
      "/w/tls.KEY",
      "/w/id_rsa",
      "/w/id_rsa.pub",
      "/w/id_ed25519",
      "/home/u/.ssh/config",
      "/home/u/.ssh/known_hosts",
      "/home/u/.aws/credentials",
      "/home/u/.docker/config.json",
      "/home/u/.kube/config",
      "/w/.netrc",
      "/w/.git-credentials",
      "/w/store.p12",
    ]
  ) assert.ok(sensitiveReason(path, none), path);
  for (
    const path of [
      "/w/src/env.ts",
      "/w/environment.md",
      "/w/keys.ts",
      "/w/credentials",
      "/w/docker/config.json",
      "/w/README.md",
      "/w/.npmrc",
    ]
  ) assert.equal(sensitiveReason(path, none), undefined, path);
});

Deno.test("package-manager configs are sensitive only with credentials", () => {
  const withToken = () => "//registry.npmjs.org/:_authToken=abc";
  const plain = () => "registry=https://example.org/\n";
  assert.equal(
    sensitiveReason("/w/.npmrc", withToken),
    "sensitive file (.npmrc with credentials)",
  );
  assert.equal(sensitiveReason("/w/.npmrc", plain), undefined);
  assert.ok(sensitiveReason("/w/.pypirc", () => "[pypi]\npassword = x"));
  assert.ok(sensitiveReason("/w/.yarnrc.yml", () => 'npmAuthToken: "x"'));
});
