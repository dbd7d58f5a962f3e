// `cr-status-exporter status --server https://…` against the real API routes
// served over HTTPS on a loopback port, behind a bearer-token check the way
// `metricsAuth: kubernetes` answers (401 without a token, 403 with the
// reason): the CA, server-name and token flags, and their refusals.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import Koa from "koa";
import { runSubcommand } from "../../../src/cli/index.ts";
import { defaultStatusPage } from "../../../src/config/status-page.ts";
import { closeServer } from "../../../src/net/listen.ts";
import { statusRoutes } from "../../../src/server/status-routes.ts";
import { makeTestCertificates } from "../../helpers/tls-certs.ts";
import { captureIo } from "../../support/capture-io.ts";
import { statusFleet } from "../../support/status-fleet.ts";
import { fixedSource } from "../../support/views.ts";

const token = "reader-token";
const certs = makeTestCertificates();
const dir = mkdtempSync(join(tmpdir(), "cr-status-cli-tls-"));
after(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, content: string): string {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
}
const caFile = file("ca.crt", certs.caPem);
// As `kubectl create token > file` writes it: with a trailing newline.
const tokenFile = file("token", `${token}\n`);

/** The status routes over HTTPS (certificate for 127.0.0.1 and localhost), only for `Bearer reader-token`. */
async function serveTls(t: { after(fn: () => Promise<void>): void }): Promise<string> {
  const app = new Koa();
  app.use(async (ctx, next) => {
    const auth = ctx.get("Authorization");
    if (auth === "") {
      ctx.status = 401;
      ctx.body = "Unauthorized\n";
    } else if (auth !== `Bearer ${token}`) {
      ctx.status = 403;
      ctx.body = 'Forbidden: user "stranger" may not get /\n';
    } else await next();
  });
  app.use(statusRoutes({ source: fixedSource(statusFleet()), settings: () => defaultStatusPage }));
  const server = createServer({ cert: certs.serverCertPem, key: certs.serverKeyPem }, app.callback());
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  t.after(() => closeServer(server));
  const address = server.address();
  assert.ok(address && typeof address === "object");
  return `https://127.0.0.1:${address.port}`;
}

async function status(args: string[]) {
  const io = captureIo();
  const code = await runSubcommand(["status", ...args], io);
  return { code, out: io.out, err: io.err };
}

describe("status --server over HTTPS with a token", () => {
  test("with the CA and the token file it lists the objects", async (t) => {
    const url = await serveTls(t);
    const r = await status(["--server", url, "--ca-file", caFile, "--token-file", tokenFile, "-o", "json"]);
    assert.equal(r.code, 0, r.err);
    const names = (JSON.parse(r.out) as { items: { name: string }[] }).items.map((i) => i.name);
    assert.equal(names.length, statusFleet().length);
  });

  test("without the CA the certificate is not trusted: exit 2 naming the URL and why", async (t) => {
    const url = await serveTls(t);
    const r = await status(["--server", url, "--token-file", tokenFile]);
    assert.equal(r.code, 2);
    assert.match(r.err, new RegExp(`cannot reach ${url}/api/v1/objects\\?.*: .*(certificate|self-signed)`));
  });

  test("--insecure-skip-tls-verify reads without checking the certificate", async (t) => {
    const url = await serveTls(t);
    const r = await status(["--server", url, "--token-file", tokenFile, "--insecure-skip-tls-verify"]);
    assert.equal(r.code, 0, r.err);
  });

  test("--tls-server-name checks the certificate for that name instead of the URL's host", async (t) => {
    const url = await serveTls(t);
    const base = ["--server", url, "--ca-file", caFile, "--token-file", tokenFile];
    assert.equal((await status([...base, "--tls-server-name", "localhost"])).code, 0);
    const other = await status([...base, "--tls-server-name", "exporter.monitoring.svc"]);
    assert.equal(other.code, 2);
    assert.match(other.err, /exporter\.monitoring\.svc/);
  });

  test("401 and 403 are errors with the server's reason and what to do", async (t) => {
    const url = await serveTls(t);
    const anonymous = await status(["--server", url, "--ca-file", caFile]);
    assert.equal(anonymous.code, 2);
    assert.match(anonymous.err, /HTTP 401: Unauthorized \(the exporter asks for a token: --token-file\)/);
    const wrong = await status(["--server", url, "--ca-file", caFile, "--token-file", file("wrong", "nope")]);
    assert.equal(wrong.code, 2);
    assert.match(wrong.err, /HTTP 403: Forbidden: user "stranger" may not get \/ \(.*non-resource URL \/ /);
  });

  test("an unreadable or empty token file is an error that names it", async (t) => {
    const url = await serveTls(t);
    const missing = await status(["--server", url, "--token-file", join(dir, "absent")]);
    assert.equal(missing.code, 2);
    assert.match(missing.err, /--token-file .*absent: cannot read it \(ENOENT\)/);
    const empty = await status(["--server", url, "--token-file", file("empty", "\n")]);
    assert.equal(empty.code, 2);
    assert.match(empty.err, /--token-file .*empty: the file is empty/);
    const ca = await status(["--server", url, "--ca-file", join(dir, "no-ca")]);
    assert.match(ca.err, /--ca-file .*no-ca: cannot read it \(ENOENT\)/);
  });

  test("the TLS and token flags are refused with http:// or without --server", async () => {
    for (const flag of [
      ["--token-file", tokenFile],
      ["--ca-file", caFile],
      ["--tls-server-name", "x"],
      ["--insecure-skip-tls-verify"],
    ]) {
      const plain = await status(["--server", "http://127.0.0.1:9", ...flag]);
      assert.equal(plain.code, 2);
      assert.match(
        plain.err,
        new RegExp(`${flag[0]}: only with an https:// --server, got "http://127.0.0.1:9"`),
      );
      const none = await status(flag);
      assert.equal(none.code, 2);
      assert.match(none.err, new RegExp(`${flag[0]}: only with --server`));
    }
  });
});
