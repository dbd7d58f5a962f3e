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

/** A request of the page and its answer as Chromium saw them (the Network domain's events). */
export interface NetworkExchange {
  readonly requestId: string;
  readonly url: string;
  readonly method: string;
  /** Document, Fetch, Script, …: what asked for it. */
  type: string;
  status?: number;
  /** The response headers as received. */
  headers: Record<string, string>;
  /** The body's bytes after decoding (any Content-Encoding undone). */
  dataLength: number;
  /** The bytes received on the wire, headers included, once loaded. */
  encodedDataLength?: number;
  /** Loaded, or failed (then `failed` says why). */
  done: boolean;
  failed?: string;
}

/** A response header, its name read case-insensitively. */
export function responseHeader(exchange: NetworkExchange, name: string): string | undefined {
  const key = Object.keys(exchange.headers).find((k) => k.toLowerCase() === name.toLowerCase());
  return key === undefined ? undefined : exchange.headers[key];
}

export interface BrowserPage {
  readonly sessionId: string;
  /** The page's requests since recordNetwork(), in the order they were sent. */
  readonly network: NetworkExchange[];
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
  /** Turns on the Network domain: every request from now on is kept in `network`. */
  recordNetwork(): Promise<void>;
  /** The first exchange in `network` that is done and satisfies `predicate`, waiting up to `timeoutMs` for one. */
  exchange(predicate: (exchange: NetworkExchange) => boolean, timeoutMs?: number): Promise<NetworkExchange>;
  /** A left click at the middle of the element `selector` finds, with the mouse, as a person would. */
  click(selector: string): Promise<void>;
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
  const network: NetworkExchange[] = [];
  const exchanges = new Map<string, NetworkExchange>();
  const networkWaiters = new Set<() => void>();
  cdp.onEvent((event: CdpEvent) => {
    if (event.sessionId !== sessionId) return;
    const p = event.params;
    if (event.method.startsWith("Network.")) {
      recordExchange(event.method, p, network, exchanges);
      for (const check of [...networkWaiters]) check();
    } else if (event.method === "Runtime.consoleAPICalled") {
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
    network,
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
    async recordNetwork() {
      await send("Network.enable");
    },
    exchange(predicate, timeoutMs = 15_000) {
      return new Promise((resolve, reject) => {
        const check = (): void => {
          const found = network.find((e) => e.done && predicate(e));
          if (!found) return;
          clearTimeout(timer);
          networkWaiters.delete(check);
          resolve(found);
        };
        const timer = setTimeout(() => {
          networkWaiters.delete(check);
          reject(
            new Error(
              `no such exchange within ${timeoutMs} ms; seen: ${network.map((e) => `${e.type} ${e.url}`).join(", ")}`,
            ),
          );
        }, timeoutMs);
        networkWaiters.add(check);
        check();
      });
    },
    async click(selector) {
      const at = await page.evaluate<{ x: number; y: number } | null>(`(() => {
        const element = document.querySelector(${JSON.stringify(selector)});
        if (!element) return null;
        element.scrollIntoView({ block: "center" });
        const r = element.getBoundingClientRect();
        return { x: r.left + r.width / 2, y: r.top + r.height / 2 };
      })()`);
      if (!at) throw new Error(`click: nothing matches ${selector}`);
      const mouse = { ...at, button: "left", clickCount: 1 };
      await send("Input.dispatchMouseEvent", { type: "mouseMoved", x: at.x, y: at.y });
      await send("Input.dispatchMouseEvent", { type: "mousePressed", ...mouse });
      await send("Input.dispatchMouseEvent", { type: "mouseReleased", ...mouse });
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

/** Keeps what a Network domain event says about its request in `network`. */
function recordExchange(
  method: string,
  p: Record<string, unknown>,
  network: NetworkExchange[],
  exchanges: Map<string, NetworkExchange>,
): void {
  const requestId = String(p.requestId);
  if (method === "Network.requestWillBeSent") {
    const request = p.request as { url: string; method: string };
    if (exchanges.has(requestId)) return; // a redirect: the same exchange goes on
    const exchange: NetworkExchange = {
      requestId,
      url: request.url,
      method: request.method,
      type: String(p.type ?? "Other"),
      headers: {},
      dataLength: 0,
      done: false,
    };
    exchanges.set(requestId, exchange);
    network.push(exchange);
    return;
  }
  const exchange = exchanges.get(requestId);
  if (!exchange) return;
  if (method === "Network.responseReceived") {
    const response = p.response as { status: number; headers: Record<string, string> };
    exchange.type = String(p.type ?? exchange.type);
    exchange.status = response.status;
    exchange.headers = response.headers;
  } else if (method === "Network.dataReceived") {
    exchange.dataLength += Number(p.dataLength);
  } else if (method === "Network.loadingFinished") {
    exchange.encodedDataLength = Number(p.encodedDataLength);
    exchange.done = true;
  } else if (method === "Network.loadingFailed") {
    exchange.failed = String(p.errorText);
    exchange.done = true;
  }
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
