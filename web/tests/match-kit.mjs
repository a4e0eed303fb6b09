// What the match page's tests share: an API client of the test's own (gRPC-Web from node,
// as a third-party client would call), guest sessions handed to a page, and the page's
// common moves: open a match, wait for the viewer's turn or the end screen.
import { createClient } from "@connectrpc/connect";
import { createGrpcWebTransport } from "@connectrpc/connect-web";
import { ColosseumService } from "../src/gen/colosseum/v1/colosseum_pb.js";

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
  await page.locator(".matchpage .board").waitFor({ timeout: 20_000 });
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
