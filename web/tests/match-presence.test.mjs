// Seat presence on the match page: two contexts hold the two seats of a GOPS match and a
// third watches. The page's watch asks for presence (include_presence). When seat 1's
// context is closed (its page killed, its stream gone) seat 0's log says the opponent
// left and its clock keeps running, and its seat bar marks the opponent not connected; the
// spectator's log says Red left. Another page of seat 0 opened then says at once that the
// opponent is not connected right now. Seat 1 comes back in a new context with the same
// session (the token the page kept in localStorage): seat 0's log says the opponent is
// back, the mark goes, and the page that came back writes no presence line (its opponent
// was there all along; its own seat is never news).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { fromBinary } from "@bufbuild/protobuf";
import { WatchMatchRequestSchema, WatchMatchResponseSchema } from "../src/gen/colosseum/v1/colosseum_pb.js";
import { explained, grpcWebFrames, launchBrowser, recordNetwork, startCluster } from "./harness.mjs";
import { assertAccessible, collectErrors, guestClient, myTurnOrEnd, openMatch, playOne } from "./match-kit.mjs";

let cluster, browser;
before(async () => {
  cluster = await startCluster();
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  await cluster?.stop();
});

const LEFT = "Your opponent left the match; their clock keeps running.";
const BACK = "Your opponent is back.";
const ABSENT = "Your opponent is not connected right now.";
/** Any presence line, whoever it names. */
const PRESENCE = / (left the match; their clock keeps running|is back|is not connected right now)\.$/;

/** The WatchMatch streams a page opened: the requests sent and the messages received. */
function watches(net) {
  const streams = net.filter((e) => e.url.endsWith("/colosseum.v1.ColosseumService/WatchMatch"));
  return {
    requests: streams.flatMap((e) =>
      grpcWebFrames(e.request ?? Buffer.alloc(0)).map((f) => fromBinary(WatchMatchRequestSchema, f)),
    ),
    presence: streams.flatMap((e) =>
      e
        .messages()
        .map((f) => fromBinary(WatchMatchResponseSchema, f).presence)
        .filter((p) => p !== undefined)
        .map((p) => [...p.connected]),
    ),
  };
}

/** Polls `check` until it answers something truthy (at most `timeout` ms). */
async function until(what, check, timeout = 20_000) {
  const started = Date.now();
  for (;;) {
    const v = await check();
    if (v) return v;
    if (Date.now() - started > timeout) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Waits for a line of the page's event log. */
const line = (page, text, timeout = 20_000) =>
  page.locator(".eventlog li").filter({ hasText: text }).first().waitFor({ timeout });

/** The page's log lines, newest first. */
const logOf = (page) => page.locator(".eventlog li").allInnerTexts();

test("a player who leaves and comes back is told to the other seat and to a spectator", async () => {
  const creator = await guestClient(cluster.url, "Ann Stays");
  const { matchId } = await creator.api.createMatch({
    game: "gops",
    optionsJson: "",
    opponent: { kind: { case: "open", value: {} } },
    seat: 0,
    idempotencyKey: crypto.randomUUID(),
  });
  const ctx0 = await browser.newContext({ viewport: { width: 1200, height: 900 } });
  const p0 = await ctx0.newPage();
  const errors = [collectErrors(p0)];
  const net0 = await recordNetwork(p0);
  await openMatch(p0, cluster.url, matchId, creator.session);
  const link = await p0.getByRole("textbox", { name: "Challenge link" }).inputValue();

  // The friend takes seat 1 through the link (a guest made at once).
  const ctx1 = await browser.newContext({ viewport: { width: 1200, height: 900 } });
  const p1 = await ctx1.newPage();
  await p1.goto(link);
  await explained(p1, p1.getByText("You play Red (you took the open seat)").waitFor({ timeout: 20_000 }));
  const held = await p1.evaluate(() => JSON.parse(localStorage.getItem("colosseum.session") ?? "null"));
  assert.ok(held?.token, "the friend's page keeps its session");
  await p0.getByRole("textbox", { name: "Challenge link" }).waitFor({ state: "detached" });

  // A spectator (a guest of its own) watches.
  const ctxS = await browser.newContext({ viewport: { width: 1200, height: 900 } });
  const spec = await ctxS.newPage();
  errors.push(collectErrors(spec));
  const netS = await recordNetwork(spec);
  await openMatch(spec, cluster.url, matchId, null);
  await spec.getByText("You are watching").waitFor();

  // Round 1, both seats bid: both pages are live.
  for (const p of [p0, p1]) {
    assert.ok(await myTurnOrEnd(p));
    await playOne.gops(p);
  }
  for (const p of [p0, p1, spec]) await line(p, /^Round 1: .* Score: /);
  // Seat 0's page and the spectator's asked for presence and were told both seats are here.
  for (const [net, who] of [
    [net0, "seat 0"],
    [netS, "the spectator"],
  ]) {
    await until(`${who} told both seats are connected`, () =>
      watches(net).presence.some((c) => c[0] === true && c[1] === true),
    );
    assert.ok(watches(net).requests.every((r) => r.includePresence && r.includeViews), `${who}'s watch asks for presence`);
  }
  assert.deepEqual((await logOf(p0)).filter((l) => PRESENCE.test(l)), [], "no presence news while both are here");
  const away = p0.locator(".seatpanel.seat1 .presence");
  assert.equal(await away.getAttribute("aria-live"), "polite");
  assert.equal(await away.innerText(), "");

  // Seat 1's browser goes away: its context closed, its stream with it.
  await ctx1.close();
  await line(p0, LEFT, 10_000);
  await away.filter({ hasText: "not connected" }).waitFor();
  await line(spec, "Red left the match; their clock keeps running.", 10_000);
  await spec.locator(".seatpanel.seat1 .presence").filter({ hasText: "not connected" }).waitFor();
  assert.equal(await p0.locator(".seatpanel.seat0 .presence").count(), 0, "no presence mark for the viewer's own seat");
  await assertAccessible(p0);

  // Another page of seat 0, opened while the opponent is away, says so once caught up.
  const p0b = await ctx0.newPage();
  errors.push(collectErrors(p0b));
  await openMatch(p0b, cluster.url, matchId, creator.session);
  await line(p0b, ABSENT, 10_000);
  assert.deepEqual((await logOf(p0b)).filter((l) => PRESENCE.test(l)), [ABSENT]);
  await p0b.close();

  // Seat 1 comes back: a new context holding the same session.
  const ctx1b = await browser.newContext({ viewport: { width: 1200, height: 900 } });
  const p1b = await ctx1b.newPage();
  errors.push(collectErrors(p1b));
  await openMatch(p1b, cluster.url, matchId, held);
  await p1b.getByText("You play Red").waitFor();
  await line(p0, BACK, 10_000);
  await line(spec, "Red is back.", 10_000);
  await until("the mark to go", async () => (await away.innerText()) === "");

  // Round 2: the page that came back plays on; its own return and its opponent (there all
  // along) are no news to it. Its presence came before round 2's events on its stream.
  for (const p of [p0, p1b]) {
    assert.ok(await myTurnOrEnd(p));
    await playOne.gops(p);
  }
  for (const p of [p0, p1b]) await line(p, /^Round 2: .* Score: /);
  assert.deepEqual((await logOf(p1b)).filter((l) => PRESENCE.test(l)), [], "the returning page writes no presence line");

  // Seat 0's log, newest first: back after left, both after round 1's result and before
  // round 2's; the spectator's the same in colours.
  const log0 = await logOf(p0);
  assert.deepEqual(log0.filter((l) => PRESENCE.test(l)), [BACK, LEFT]);
  const at = (re) => log0.findIndex((l) => (typeof re === "string" ? l === re : re.test(l)));
  assert.ok(at(/^Round 2: .* Score: /) < at(BACK) && at(BACK) < at(LEFT) && at(LEFT) < at(/^Round 1: .* Score: /));
  assert.deepEqual(
    (await logOf(spec)).filter((l) => PRESENCE.test(l)),
    ["Red is back.", "Red left the match; their clock keeps running."],
  );
  assert.deepEqual(errors.flat(), []);
  for (const c of [ctx0, ctx1b, ctxS]) await c.close();
});
