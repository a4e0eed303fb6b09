// The browser tests' harness: a real `colosseum run` (the whole cluster, embedded store)
// on a free loopback port serving the built web client, and Debian's Chromium driven by
// playwright-core (headless, no browser download). COLOSSEUM_BIN names the binary
// (default ../target/debug/colosseum); CHROMIUM the browser (default: `chromium` on PATH).
import { spawn, execFileSync } from "node:child_process";
import { mkdtempSync, existsSync, mkdirSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";

const here = dirname(fileURLToPath(import.meta.url));
export const webDir = resolve(here, "..");
export const repoDir = resolve(webDir, "..");
/** Where the tests write their screenshots: SCREENS_DIR (`make screens` sets docs/screens,
 * the README's pictures), else web/test-results/screens, so a test run leaves the
 * committed pictures as they are. */
export const screensDir = resolve(process.env.SCREENS_DIR ?? join(webDir, "test-results", "screens"));

/** A free loopback port. */
export function freePort() {
  return new Promise((ok, fail) => {
    const s = createServer();
    s.once("error", fail);
    s.listen(0, "127.0.0.1", () => {
      const { port } = /** @type {import("node:net").AddressInfo} */ (s.address());
      s.close(() => ok(port));
    });
  });
}

/**
 * Starts `colosseum run` on a free port with its own config directory, and waits until
 * the gateway serves the page. Returns its URL and a stop function.
 * @param {Record<string, string>} [env] extra environment
 */
export async function startCluster(env = {}) {
  const bin = resolve(process.env.COLOSSEUM_BIN ?? join(repoDir, "target", "debug", "colosseum"));
  if (!existsSync(bin)) throw new Error(`no colosseum binary at ${bin}: build it (cargo build -p colosseum)`);
  const port = await freePort();
  const home = mkdtempSync(join(tmpdir(), "colosseum-web-"));
  const child = spawn(bin, ["run", "--addr", `127.0.0.1:${port}`], {
    env: {
      ...process.env,
      HOME: home,
      XDG_CONFIG_HOME: join(home, ".config"),
      WEB_ROOT: join(webDir, "dist"),
      REDIS_URL: "",
      RUST_LOG: process.env.RUST_LOG ?? "warn",
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout.on("data", (d) => (output += d));
  child.stderr.on("data", (d) => (output += d));
  const url = `http://127.0.0.1:${port}`;
  const started = Date.now();
  for (;;) {
    if (child.exitCode !== null) throw new Error(`colosseum run exited ${child.exitCode}:\n${output}`);
    try {
      const r = await fetch(`${url}/`);
      if (r.ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() - started > 60_000) {
      child.kill("SIGKILL");
      throw new Error(`colosseum run did not serve ${url}/ within 60 s:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return {
    url,
    port,
    home,
    output: () => output,
    async stop() {
      if (child.exitCode === null) {
        const done = new Promise((r) => child.once("exit", r));
        child.kill("SIGINT");
        const t = setTimeout(() => child.kill("SIGKILL"), 10_000);
        await done;
        clearTimeout(t);
      }
      // The cluster's home (its config, the records it saved) goes with it.
      rmSync(home, { recursive: true, force: true });
    },
  };
}

function chromiumPath() {
  if (process.env.CHROMIUM) return process.env.CHROMIUM;
  for (const p of ["/usr/bin/chromium", "/usr/bin/chromium-browser"]) if (existsSync(p)) return p;
  return execFileSync("sh", ["-c", "command -v chromium || command -v chromium-browser"]).toString().trim();
}

/** Debian's Chromium, headless, with the flags this closed network needs. */
export async function launchBrowser() {
  const browser = await chromium.launch({
    executablePath: chromiumPath(),
    headless: true,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
  const newContext = browser.newContext.bind(browser);
  browser.newContext = async (...args) => {
    const context = await newContext(...args);
    track(context);
    return context;
  };
  return browser;
}

/** Each context's requests still open (no response end yet) and its pages' console lines,
 * kept for {@link describePage}. */
const tracked = new WeakMap();

function track(context) {
  const open = new Map();
  const console = [];
  tracked.set(context, { open, console });
  context.on("request", (r) => open.set(r, Date.now()));
  context.on("requestfinished", (r) => open.delete(r));
  context.on("requestfailed", (r) => open.delete(r));
  context.on("page", (page) =>
    page.on("console", (m) => {
      console.push(`${m.type()}: ${m.text().slice(0, 300)}`);
      if (console.length > 30) console.shift();
    }),
  );
}

/**
 * What a page shows and waits for, for a test's failure message: its URL, the start of its
 * text, its context's requests still open (method, path, age) and its last console lines.
 * @param {import("playwright-core").Page} page
 */
export async function describePage(page) {
  const t = tracked.get(page.context());
  const text = await page
    .evaluate(() => document.body?.innerText ?? "")
    .catch((e) => `(no text: ${e.message})`);
  const open = t
    ? [...t.open].map(([r, at]) => `  ${r.method()} ${new URL(r.url()).pathname} open ${Date.now() - at} ms`)
    : [];
  return [
    `page ${page.url()}`,
    `text: ${text.slice(0, 600).replace(/\n+/g, " | ")}`,
    `open requests (${open.length}):`,
    ...open,
    "console:",
    ...(t?.console ?? []).map((l) => `  ${l}`),
  ].join("\n");
}

/**
 * Waits for `wait`; if it fails, the error names what `page` showed and waited for.
 * @template T
 * @param {import("playwright-core").Page} page
 * @param {Promise<T>} wait
 * @returns {Promise<T>}
 */
export async function explained(page, wait) {
  try {
    return await wait;
  } catch (e) {
    e.message = `${e.message}\n${await describePage(page)}`;
    throw e;
  }
}

/**
 * Saves a screenshot of `page` as docs/screens/NAME.png.
 * @param {import("playwright-core").Page} page
 * @param {string} name
 */
export async function screenshot(page, name) {
  mkdirSync(screensDir, { recursive: true });
  await page.screenshot({ path: join(screensDir, `${name}.png`), fullPage: true });
}

/**
 * Records every gRPC-Web body the page sends and receives, as it arrives: a server
 * stream's bytes are there while the stream is still open (a CDP session streams each
 * response's data as Chromium reads it), so a test can look at what a seat got before a
 * reveal. Each entry's `response` grows as data comes; `messages()` splits it into the
 * gRPC-Web data frames received so far (trailers left out).
 * @param {import("playwright-core").Page} page
 */
export async function recordNetwork(page) {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send("Network.enable");
  /** @type {{url: string, request: Buffer | null, response: Buffer, done: boolean, messages: () => Buffer[]}[]} */
  const seen = [];
  const byId = new Map();
  cdp.on("Network.requestWillBeSent", (e) => {
    const parts = e.request.postDataEntries?.map((p) => Buffer.from(p.bytes ?? "", "base64")) ?? [];
    const entry = {
      url: e.request.url,
      request: parts.length ? Buffer.concat(parts) : null,
      response: Buffer.alloc(0),
      done: false,
      streamed: false,
      messages() {
        return grpcWebFrames(this.response);
      },
    };
    byId.set(e.requestId, entry);
    seen.push(entry);
  });
  cdp.on("Network.responseReceived", (e) => {
    const entry = byId.get(e.requestId);
    if (!entry) return;
    cdp
      .send("Network.streamResourceContent", { requestId: e.requestId })
      .then((r) => {
        entry.streamed = true;
        entry.response = Buffer.concat([Buffer.from(r.bufferedData, "base64"), entry.response]);
      })
      .catch(() => {
        // Finished before streaming could start: loadingFinished reads the whole body.
      });
  });
  cdp.on("Network.dataReceived", (e) => {
    const entry = byId.get(e.requestId);
    if (entry && e.data) entry.response = Buffer.concat([entry.response, Buffer.from(e.data, "base64")]);
  });
  cdp.on("Network.loadingFinished", (e) => {
    const entry = byId.get(e.requestId);
    if (!entry) return;
    entry.done = true;
    if (entry.streamed) return;
    cdp
      .send("Network.getResponseBody", { requestId: e.requestId })
      .then((b) => {
        if (!entry.streamed) entry.response = Buffer.from(b.body, b.base64Encoded ? "base64" : "utf8");
      })
      .catch(() => {});
  });
  return seen;
}

/**
 * The data frames of a gRPC-Web body (flag 0: a message; 0x80 frames are trailers).
 * @param {Buffer} body
 */
export function grpcWebFrames(body) {
  const out = [];
  for (let i = 0; i + 5 <= body.length; ) {
    const len = body.readUInt32BE(i + 1);
    if (i + 5 + len > body.length) break; // a frame still arriving
    if ((body[i] & 0x80) === 0) out.push(body.subarray(i + 5, i + 5 + len));
    i += 5 + len;
  }
  return out;
}
