// The operator's own kubeconfig user, copied into the kubeconfig the proxy
// writes: forms that become an Authorization header are kept (paths made
// absolute), a client certificate is refused at start-up with the reason.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { stringify } from "yaml";
import { operatorUserFrom } from "../../../src/statuswrites/proxy/operator-user.ts";

const directory = mkdtempSync(join(tmpdir(), "cr-operator-user-"));
after(() => rmSync(directory, { recursive: true, force: true }));

function kubeconfig(name: string, user: Record<string, unknown>, currentUser = "me"): string {
  const path = join(directory, name);
  writeFileSync(
    path,
    stringify({
      apiVersion: "v1",
      kind: "Config",
      clusters: [{ name: "c", cluster: { server: "https://example.invalid" } }],
      users: [
        { name: "someone-else", user: { token: "not-this-one" } },
        { name: "me", user },
      ],
      contexts: [{ name: "ctx", context: { cluster: "c", user: currentUser } }],
      "current-context": "ctx",
    }),
  );
  return path;
}

const field = "apiProxy.userFromKubeconfig";

test("an exec credential plugin is copied; a relative command path is resolved like client-go does", () => {
  const exec = {
    apiVersion: "client.authentication.k8s.io/v1",
    command: "./bin/get-token",
    args: ["--cluster", "a"],
    interactiveMode: "Never",
  };
  const { user, holdsSecret } = operatorUserFrom(kubeconfig("exec", { exec }), field);
  assert.deepEqual(user, { exec: { ...exec, command: join(directory, "bin/get-token") } });
  assert.equal(holdsSecret, false);
  const onPath = operatorUserFrom(kubeconfig("exec-path", { exec: { ...exec, command: "aws" } }), field);
  assert.equal((onPath.user.exec as { command: string }).command, "aws", "a bare name is looked up on PATH");
});

test("a token file is made absolute; an inline token or an auth-provider marks the entry secret", () => {
  assert.deepEqual(operatorUserFrom(kubeconfig("file", { tokenFile: "token" }), field), {
    user: { tokenFile: join(directory, "token") },
    holdsSecret: false,
  });
  assert.deepEqual(operatorUserFrom(kubeconfig("abs", { tokenFile: "/var/run/t" }), field).user, {
    tokenFile: "/var/run/t",
  });
  const inline = operatorUserFrom(kubeconfig("inline", { token: "abc", as: "someone" }), field);
  assert.deepEqual(inline, { user: { token: "abc", as: "someone" }, holdsSecret: true });
  const provider = { "auth-provider": { name: "oidc", config: { "id-token": "x" } } };
  assert.equal(operatorUserFrom(kubeconfig("oidc", provider), field).holdsSecret, true);
});

test("a client certificate is refused, naming the option, the user, the fields and why", () => {
  for (const user of [
    { "client-certificate-data": "Y2VydA==", "client-key-data": "a2V5" },
    { "client-certificate": "tls.crt", "client-key": "tls.key", token: "also-a-token" },
  ]) {
    assert.throws(
      () => operatorUserFrom(kubeconfig("cert", user), field),
      (error: Error) => {
        assert.match(error.message, /^apiProxy\.userFromKubeconfig: user "me" in ".*cert" authenticates/);
        assert.match(error.message, /client-certificate(-data)?, client-key(-data)?\), which cannot pass/);
        assert.match(error.message, /TLS ends at the proxy/);
        return true;
      },
    );
  }
});

test("a missing file or a current context without a user is an error naming the option", () => {
  assert.throws(() => operatorUserFrom(join(directory, "absent"), field), {
    message: /^apiProxy\.userFromKubeconfig: cannot read ".*absent": ENOENT/,
  });
  assert.throws(() => operatorUserFrom(kubeconfig("dangling", { token: "t" }, "nobody"), field), {
    message: /^apiProxy\.userFromKubeconfig: ".*dangling" has no user for current-context "ctx"$/,
  });
});

test("a password marks the entry secret; an absolute exec command and the original entry are left as they are", () => {
  assert.equal(
    operatorUserFrom(kubeconfig("basic", { username: "u", password: "p" }), field).holdsSecret,
    true,
  );
  const exec = { command: "/usr/local/bin/get-token" };
  assert.deepEqual(operatorUserFrom(kubeconfig("abs-exec", { exec }), field).user, { exec });
  const noCommand = operatorUserFrom(kubeconfig("no-command", { exec: { args: ["x"] } }), field);
  assert.deepEqual(noCommand.user, { exec: { args: ["x"] } });
  assert.deepEqual(operatorUserFrom(kubeconfig("tf-num", { tokenFile: 5 }), field).user, { tokenFile: 5 });
});

test("the whole refusal of a client certificate", () => {
  const path = kubeconfig("cert-only", { "client-key-data": "a2V5" });
  assert.throws(() => operatorUserFrom(path, field), {
    message:
      `apiProxy.userFromKubeconfig: user "me" in ${JSON.stringify(path)} authenticates with a client ` +
      "certificate (client-key-data), which cannot pass through the API proxy: TLS ends at the " +
      "proxy, so the apiserver would never see it. Use a token, tokenFile or an exec credential plugin.",
  });
});

test("an empty file, a user that is not an object, or no matching context, names the current context", () => {
  const empty = join(directory, "empty");
  writeFileSync(empty, "");
  assert.throws(() => operatorUserFrom(empty, field), {
    message: `apiProxy.userFromKubeconfig: ${JSON.stringify(empty)} has no user for current-context undefined`,
  });
  for (const user of [["token"], "token", null]) {
    const path = kubeconfig(`odd-${String(user)}`, {});
    writeFileSync(
      path,
      stringify({
        users: [{ name: "me", user }],
        contexts: [{ name: "ctx", context: { user: "me" } }],
        "current-context": "ctx",
      }),
    );
    assert.throws(
      () => operatorUserFrom(path, field),
      /has no user for current-context "ctx"/,
      JSON.stringify(user),
    );
  }
  const unknown = kubeconfig("other-context", { token: "t" });
  writeFileSync(
    unknown,
    stringify({ users: [{ name: "me", user: { token: "t" } }], contexts: [], "current-context": "ctx" }),
  );
  assert.throws(() => operatorUserFrom(unknown, field), /has no user for current-context "ctx"/);
  const bad = join(directory, "bad-yaml");
  writeFileSync(bad, "a: [");
  assert.throws(() => operatorUserFrom(bad, field), {
    message: new RegExp(
      `^apiProxy\\.userFromKubeconfig: cannot read ${JSON.stringify(bad).replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}: `,
    ),
  });
});
