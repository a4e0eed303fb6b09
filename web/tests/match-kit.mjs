// What the match page's tests share: an API client of the test's own (gRPC-Web from node,
// as a third-party client would call), guest sessions handed to a page, and the page's
// common moves: open a match, wait for the viewer's turn or the end screen.
import { createClient } from "@connectrpc/connect";
import { createGrpcWebTransport } from "@connectrpc/connect-web";
import { ColosseumService } from "../src/gen/colosseum/v1/colosseum_pb.js";
import { explained } from "./harness.mjs";

/**
 * A client of its own with a fresh guest session.
 * @param {string} url the gateway
 * @param {string} [name] a display name
 */
export async function guestClient(url, name = "") {
  const held = { token: "" };
  const bearer = (next) => async (req) => {
    if (held.token) req.header.set("authorization", `Bearer ${held.token}`);
    return next(req);
  };
  const api = createClient(ColosseumService, createGrpcWebTransport({ baseUrl: url, interceptors: [bearer] }));
  const s = await api.createGuestSession({ displayName: name });
  held.token = s.token;
  return {
    api,
    /** The session as the page keeps it in localStorage. */
    session: { token: s.token, playerId: s.playerId, displayName: s.displayName, account: false },
  };
}

/**
 * Opens `#/match/<id>` in `page`, holding `session` (null: the page makes its own guest).
 * @param {import("playwright-core").Page} page
 * @param {string} url
 * @param {string} matchId
 * @param {object | null} session
 */
export async function openMatch(page, url, matchId, session) {
  await page.goto(`${url}/#/`);
  await page.evaluate((s) => {
    if (s) localStorage.setItem("colosseum.session", JSON.stringify(s));
    else localStorage.removeItem("colosseum.session");
  }, session);
  await page.goto(`${url}/#/match/${matchId}`);
  await explained(page, page.locator(".matchpage .board").waitFor({ timeout: 20_000 }));
}

/**
 * Waits until the page says it is the viewer's move (true) or shows the end screen (false).
 * @param {import("playwright-core").Page} page
 */
export async function myTurnOrEnd(page, timeout = 30_000) {
  const turn = page.locator(".matchpage .yourmove");
  const end = page.locator(".endscreen");
  await turn.or(end).first().waitFor({ timeout });
  return !(await end.isVisible());
}

/** The JSON record of a finished match, fetched through the API by a fresh guest. */
export async function recordOf(url, matchId) {
  const { api } = await guestClient(url, "record reader");
  const r = await api.getMatchRecord({ matchId });
  return JSON.parse(r.recordJson);
}

/**
 * Fails the test on any error the page logs or throws (a CSP refusal among them).
 * @param {import("playwright-core").Page} page
 */
export function collectErrors(page) {
  const errors = [];
  page.on("pageerror", (e) => errors.push(`page error: ${e.message}`));
  page.on("console", (m) => {
    if (m.type() === "error") errors.push(`console: ${m.text()}`);
  });
  return errors;
}

/**
 * Clicks `submit` (the button that sends the move) and waits until the page heard of it:
 * a new line in the event log (the viewer's own sealed move, a tile placed...; the log's
 * `data-lines` counts them all, drawn or not) or the end.
 * @param {import("playwright-core").Page} page
 * @param {import("playwright-core").Locator} submit
 */
export async function send(page, submit) {
  const count = () =>
    page.evaluate(() => Number(document.querySelector(".eventlog ol.log")?.getAttribute("data-lines") ?? 0));
  const before = await count();
  await submit.click();
  await page.waitForFunction(
    (n) =>
      Number(document.querySelector(".eventlog ol.log")?.getAttribute("data-lines") ?? 0) > n ||
      document.querySelector(".endscreen") !== null,
    before,
    // Polled on a timer: animation frames stop in a page that is not in front.
    { timeout: 30_000, polling: 100 },
  );
}

/** The enabled buttons in `scope` whose accessible name matches `name`. */
function enabled(scope, name) {
  return scope.getByRole("button", { name }).and(scope.page().locator(":enabled"));
}

/**
 * One move of each game, made by clicking as a player would (the first choice the page
 * offers, or a plain plan: GOPS bids the prize's own value, Hexspiel's Blue builds down a
 * column), then `send`.
 */
export const playOne = {
  /** @param {import("playwright-core").Page} page */
  async gops(page) {
    const prize = await page.getByRole("img", { name: /^Prize: / }).getAttribute("aria-label");
    const m = /^Prize: (\w+),/.exec(prize ?? "");
    const hand = page.getByRole("region", { name: "Your hand" });
    await hand.getByRole("button", { name: `Bid ${m[1]}`, exact: true }).click();
    await send(page, hand.getByRole("button", { name: /^Seal bid: / }));
  },
  /**
   * @param {import("playwright-core").Page} page
   * @param {"first" | "last"} [pick] the lowest or the highest cards left
   */
  async "dueling-monsters"(page, pick = "last") {
    const mine = page.getByRole("region", { name: "Your cards" });
    await enabled(mine, /^Monster level \d, \d+ left$/)[pick]().click();
    await enabled(mine, /^Weapon \d$/)[pick]().click();
    await send(page, mine.getByRole("button", { name: /^Play monster \d with weapon \d$/ }));
  },
  /** @param {import("playwright-core").Page} page */
  async hexspiel(page) {
    const bidding = page.getByRole("region", { name: "Your bidding cards" });
    const bids = enabled(bidding, /^Bid \d/);
    if ((await bids.count()) > 0) {
      await bids.last().click();
      await send(page, bidding.getByRole("button", { name: /^Seal bid: / }));
      return;
    }
    // A Hex turn: stones down the first column that Red has not cut, cheapest first.
    const board = page.locator("svg.hexboard");
    const turn = page.getByRole("region", { name: "Your Hex turn" });
    const place = turn.getByRole("button", { name: /^Place / }).and(page.locator(":enabled"));
    for (let picked = 0; picked < 2; picked++) {
      const cells = await board.getByRole("button").evaluateAll((els) =>
        els.map((e) => e.getAttribute("aria-label") ?? "").filter((l) => !l.includes("picked")),
      );
      const red = await board.getByRole("img", { name: /Red stone/ }).evaluateAll((els) =>
        els.map((e) => (e.getAttribute("aria-label") ?? "")[0]),
      );
      const cols = ["d", "e", "c", "f", "b", "g", "a", "h"].filter((c) => !red.includes(c)).concat(["d", "e"]);
      const choice = cols
        .flatMap((c) => cells.filter((l) => l.startsWith(c)))
        .sort((a, b) => Number(/costs (\d+)/.exec(a)?.[1] ?? 9) - Number(/costs (\d+)/.exec(b)?.[1] ?? 9))[0];
      if (!choice) break;
      await board.getByRole("button", { name: choice, exact: true }).click();
    }
    if ((await place.count()) === 0) await turn.getByRole("button", { name: "Clear" }).click();
    // A pattern these stones complete is declared (its upgraded card is worth having).
    const patterns = turn.getByRole("group", { name: "Declare a pattern these stones complete" });
    if (await patterns.isVisible()) await patterns.getByRole("radio").nth(1).check();
    await send(page, turn.getByRole("button", { name: /^Place / }));
  },
  /** @param {import("playwright-core").Page} page */
  async "cure-plague"(page) {
    const turn = page.getByRole("region", { name: "Your tile" });
    const grid = page.locator("svg.cpgrid");
    for (let i = 0; i < 3; i++) {
      if (await turn.getByRole("button", { name: "Place this tile" }).isEnabled()) break;
      await grid.getByRole("button", { name: /place the (cure|human|plague) here/ }).first().click();
    }
    await send(page, turn.getByRole("button", { name: "Place this tile" }));
  },
  /** @param {import("playwright-core").Page} page */
  async masterminds(page) {
    const mine = page.getByRole("region", { name: "Your cards" });
    await enabled(mine, /, strength \d+: /).first().click();
    const bluff = mine.getByRole("group", { name: "Show your Bluff as" });
    if (await bluff.isVisible()) await bluff.getByRole("button").first().click();
    await send(page, mine.getByRole("button", { name: /^Play / }));
  },
};

// A page not in front gets no animation frames, and Playwright waits for frames to see a
// button stand still before clicking it: each move brings its page to the front first.
for (const [game, play] of Object.entries(playOne)) {
  playOne[game] = async (page, ...rest) => {
    await page.bringToFront();
    return play(page, ...rest);
  };
}

/**
 * Plays the viewer's moves until the match ends (or `max` moves); answers how many.
 * @param {import("playwright-core").Page} page
 * @param {keyof typeof playOne} game
 */
export async function playToEnd(page, game, max = 500) {
  let moves = 0;
  while (moves < max && (await myTurnOrEnd(page, 60_000))) {
    await playOne[game](page);
    moves++;
  }
  return moves;
}

/**
 * Every control on the page has an accessible name, and no element carries an inline
 * style attribute (the gateway's CSP allows none).
 * @param {import("playwright-core").Page} page
 */
export async function assertAccessible(page) {
  const problems = await page.evaluate(() => {
    const out = [];
    const controls = document.querySelectorAll("button, [role=button], input, select, textarea, a[href], [tabindex]");
    for (const el of controls) {
      const labelled = el.getAttribute("aria-labelledby");
      const name =
        el.getAttribute("aria-label") ||
        (labelled && document.getElementById(labelled)?.textContent) ||
        (el.labels && [...el.labels].map((l) => l.textContent).join(" ")) ||
        el.textContent;
      if (!name || !name.trim()) out.push(`no name: ${el.outerHTML.slice(0, 120)}`);
    }
    for (const el of document.querySelectorAll("[style]")) out.push(`inline style: ${el.outerHTML.slice(0, 120)}`);
    return out;
  });
  if (problems.length) throw new Error(problems.join("\n"));
}

/**
 * A TCP proxy in front of the gateway whose connections the test can cut, as a network
 * drop would: `cut()` closes every open connection (the page's streams break) and keeps
 * listening, so the page's next calls get through.
 * @param {string} target the gateway's URL
 */
export async function cuttableProxy(target) {
  const { createServer, connect } = await import("node:net");
  const { port: targetPort, hostname } = new URL(target);
  const sockets = new Set();
  const server = createServer((client) => {
    const upstream = connect(Number(targetPort), hostname);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on("close", () => sockets.delete(s));
      s.on("error", () => {});
    }
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise((ok) => server.listen(0, "127.0.0.1", ok));
  server.unref(); // a failed test's open proxy keeps nothing running
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    cut() {
      for (const s of sockets) s.destroy();
    },
    close() {
      this.cut();
      return new Promise((ok) => server.close(ok));
    },
  };
}
