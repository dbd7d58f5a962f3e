// Headless Chromium (Debian's `chromium` package) for page tests: launch with
// a throw-away profile, open pages, evaluate, type keys, take screenshots.
// Everything launched here is stopped by the test's `after` hook.
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { TestContext } from "node:test";
import { CdpConnection, type CdpEvent } from "./cdp.ts";

/** CHROMIUM_PATH, else Debian's binary (the wrapper script adds nothing headless needs). */
export function chromiumPath(): string {
  const candidates = [process.env.CHROMIUM_PATH, "/usr/lib/chromium/chromium", "/usr/bin/chromium"];
  const found = candidates.find((p): p is string => p !== undefined && p !== "" && existsSync(p));
  if (!found) {
    throw new Error(
      "no Chromium found: install Debian's package (apt-get install chromium) or set CHROMIUM_PATH; .ci/run installs it",
    );
  }
  return found;
}

export interface BrowserPage {
  readonly sessionId: string;
  /** Console messages and browser log entries, as text. */
  readonly console: string[];
  /** Calls of bindings added with addBinding, as `name(payload)`. */
  readonly bindingCalls: string[];
  goto(url: string): Promise<void>;
  /**
   * Runs `action` (a key press that submits a form, say) and resolves once the
   * document it navigated to has loaded: evaluating before that races the
   * navigation ("Inspected target navigated or closed").
   */
  navigatedBy(action: () => Promise<void>): Promise<void>;
  evaluate<T>(expression: string): Promise<T>;
  press(key: "Tab" | "Enter" | "Escape", shift?: boolean): Promise<void>;
  /** Types text into the focused element, as an input method would. */
  type(text: string): Promise<void>;
  disableScripts(disabled: boolean): Promise<void>;
  /** A function `name(payload)` in every document of this page, recorded in bindingCalls. */
  addBinding(name: string): Promise<void>;
  bypassCsp(enabled: boolean): Promise<void>;
  colorScheme(scheme: "light" | "dark"): Promise<void>;
  screenshot(path: string, fullPage?: boolean): Promise<void>;
}

export interface Browser {
  newPage(width?: number, height?: number): Promise<BrowserPage>;
  close(): Promise<void>;
}

const keys = {
  Tab: { code: "Tab", keyCode: 9 },
  Enter: { code: "Enter", keyCode: 13, text: "\r" },
  Escape: { code: "Escape", keyCode: 27 },
} as const;

function waitForDevToolsUrl(child: ChildProcess, timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    let output = "";
    const timer = setTimeout(() => fail(`no DevTools URL within ${timeoutMs} ms`), timeoutMs);
    const fail = (why: string): void => {
      clearTimeout(timer);
      reject(new Error(`Chromium did not start: ${why}\n${output.slice(-2000)}`));
    };
    child.stderr?.on("data", (chunk: Buffer) => {
      output += chunk.toString();
      const match = /DevTools listening on (ws:\/\/\S+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match[1] as string);
      }
    });
    child.once("exit", (code, signal) => fail(`exited with ${code ?? signal}`));
    child.once("error", (error) => fail(error.message));
  });
}

async function openPage(cdp: CdpConnection, width: number, height: number): Promise<BrowserPage> {
  const { targetId } = await cdp.send("Target.createTarget", { url: "about:blank" });
  const { sessionId } = (await cdp.send("Target.attachToTarget", { targetId, flatten: true })) as {
    sessionId: string;
  };
  const send = (method: string, params: Record<string, unknown> = {}) => cdp.send(method, params, sessionId);
  const consoleLines: string[] = [];
  const bindingCalls: string[] = [];
  cdp.onEvent((event: CdpEvent) => {
    if (event.sessionId !== sessionId) return;
    const p = event.params;
    if (event.method === "Runtime.consoleAPICalled") {
      const args = (p.args as { value?: unknown; description?: string }[]).map((a) =>
        String(a.value ?? a.description ?? ""),
      );
      consoleLines.push(`${String(p.type)}: ${args.join(" ")}`);
    } else if (event.method === "Log.entryAdded") {
      const entry = p.entry as { level: string; text: string };
      consoleLines.push(`${entry.level}: ${entry.text}`);
    } else if (event.method === "Runtime.bindingCalled") {
      bindingCalls.push(`${String(p.name)}(${String(p.payload)})`);
    }
  });
  await Promise.all([send("Page.enable"), send("Runtime.enable"), send("Log.enable")]);
  await send("Emulation.setDeviceMetricsOverride", { width, height, deviceScaleFactor: 1, mobile: false });
  // Content-Security-Policy violations, as the page itself sees them (CDP-injected scripts are not subject to it).
  await send("Page.addScriptToEvaluateOnNewDocument", {
    source:
      "window.__cspViolations = []; document.addEventListener('securitypolicyviolation', (e) => window.__cspViolations.push(e.violatedDirective + ' ' + e.blockedURI));",
  });

  const page: BrowserPage = {
    sessionId,
    console: consoleLines,
    bindingCalls,
    async goto(url) {
      const loaded = cdp.waitForEvent("Page.loadEventFired", sessionId, 30_000);
      const result = (await send("Page.navigate", { url })) as { errorText?: string };
      if (result.errorText) throw new Error(`navigating to ${url} failed: ${result.errorText}`);
      await loaded;
    },
    async navigatedBy(action) {
      const loaded = cdp.waitForEvent("Page.loadEventFired", sessionId, 30_000);
      await action();
      await loaded;
    },
    async evaluate<T>(expression: string) {
      const { result, exceptionDetails } = (await send("Runtime.evaluate", {
        expression,
        returnByValue: true,
        awaitPromise: true,
      })) as {
        result: { value?: unknown };
        exceptionDetails?: { text: string; exception?: { description?: string } };
      };
      if (exceptionDetails) {
        throw new Error(
          `evaluating ${expression}: ${exceptionDetails.exception?.description ?? exceptionDetails.text}`,
        );
      }
      return result.value as T;
    },
    async press(key, shift = false) {
      const k = keys[key];
      const base = {
        key,
        code: k.code,
        windowsVirtualKeyCode: k.keyCode,
        nativeVirtualKeyCode: k.keyCode,
        modifiers: shift ? 8 : 0,
      };
      await send("Input.dispatchKeyEvent", {
        ...base,
        type: "text" in k ? "keyDown" : "rawKeyDown",
        ...("text" in k && { text: k.text }),
      });
      await send("Input.dispatchKeyEvent", { ...base, type: "keyUp" });
    },
    async type(text) {
      await send("Input.insertText", { text });
    },
    async disableScripts(disabled) {
      await send("Emulation.setScriptExecutionDisabled", { value: disabled });
    },
    async addBinding(name) {
      await send("Runtime.addBinding", { name });
    },
    async bypassCsp(enabled) {
      await send("Page.setBypassCSP", { enabled });
    },
    async colorScheme(scheme) {
      await send("Emulation.setEmulatedMedia", {
        features: [{ name: "prefers-color-scheme", value: scheme }],
      });
    },
    async screenshot(path, fullPage = true) {
      const params: Record<string, unknown> = { format: "png" };
      if (fullPage) {
        const metrics = (await send("Page.getLayoutMetrics")) as {
          cssContentSize: { width: number; height: number };
        };
        params.captureBeyondViewport = true;
        params.clip = { x: 0, y: 0, width, height: Math.ceil(metrics.cssContentSize.height), scale: 1 };
      }
      const { data } = (await send("Page.captureScreenshot", params)) as { data: string };
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, Buffer.from(data, "base64"));
    },
  };
  return page;
}

/** Starts Chromium for this test; it is stopped (and its profile removed) in t.after. */
export async function launchChromium(t: Pick<TestContext, "after">): Promise<Browser> {
  const profile = mkdtempSync(join(tmpdir(), "cr-status-chromium-"));
  const child = spawn(
    chromiumPath(),
    [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-dev-shm-usage",
      "--disable-extensions",
      "--no-first-run",
      "--no-default-browser-check",
      "--hide-scrollbars",
      "--force-color-profile=srgb",
      "--remote-debugging-address=127.0.0.1",
      "--remote-debugging-port=0",
      `--user-data-dir=${profile}`,
      "about:blank",
    ],
    { stdio: ["ignore", "ignore", "pipe"] },
  );
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  let cdp: CdpConnection | undefined;
  const close = async (): Promise<void> => {
    cdp?.close();
    if (child.exitCode === null && child.signalCode === null) {
      child.kill("SIGTERM");
      const killer = setTimeout(() => child.kill("SIGKILL"), 5_000);
      await exited;
      clearTimeout(killer);
    }
    rmSync(profile, { recursive: true, force: true });
  };
  t.after(close);
  try {
    cdp = await CdpConnection.connect(await waitForDevToolsUrl(child, 30_000));
  } catch (error) {
    await close();
    throw error;
  }
  const connection = cdp;
  return { newPage: (width = 1280, height = 900) => openPage(connection, width, height), close };
}
