// Hexspiel on the match page, watched by a spectator: Blue plays on the page by clicking
// (bids, then stones on the SVG board, cheapest cells down a column), Red is a client of
// the test's own through the API. The spectator's board shows every stone where a
// spectator's GetView says, and never a sealed bid: while Blue's bid is sealed and Red's
// not, the spectator's page says only that Blue has bid, and no message it received (the
// WatchMatch stream read while open, GetView) carries a bid or a hand. Screenshot:
// match-hexspiel-player (Blue's page; match-boards.test.mjs takes the spectator's).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { fromBinary, toJson } from "@bufbuild/protobuf";
import { GetViewResponseSchema, WatchMatchResponseSchema } from "../src/gen/colosseum/v1/colosseum_pb.js";
import { launchBrowser, recordNetwork, screenshot, startCluster } from "./harness.mjs";
import { assertAccessible, collectErrors, guestClient, openMatch, playOne } from "./match-kit.mjs";

let cluster, browser;
before(async () => {
  cluster = await startCluster();
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  await cluster?.stop();
});

/** Every WatchMatch and GetView message a page received, decoded to JSON. */
function decoded(net) {
  const out = [];
  for (const entry of net) {
    const method = entry.url.split("/").pop();
    const schema =
      method === "WatchMatch" ? WatchMatchResponseSchema : method === "GetView" ? GetViewResponseSchema : null;
    if (!schema) continue;
    for (const bytes of entry.messages()) out.push(toJson(schema, fromBinary(schema, bytes)));
  }
  return out;
}

/** The stones a page's board draws, by seat: cell names from the cells' accessible names. */
async function stonesDrawn(page) {
  const labels = await page
    .locator("svg.hexboard")
    .getByRole("img", { name: /stone$/ })
    .evaluateAll((els) => els.map((e) => e.getAttribute("aria-label") ?? ""));
  const of = (c) => labels.filter((l) => l.endsWith(`${c} stone`)).map((l) => l.split(":")[0]).sort();
  return [of("Blue"), of("Red")];
}

test("a spectator sees Hexspiel's stones where the view says and no sealed bid", async () => {
  const blue = await guestClient(cluster.url, "Blue Player");
  const red = await guestClient(cluster.url, "Red Client");
  const { matchId } = await blue.api.createMatch({
    game: "hexspiel",
    optionsJson: "",
    opponent: { kind: { case: "playerId", value: red.session.playerId } },
    seat: 0,
    idempotencyKey: crypto.randomUUID(),
  });
  await red.api.joinMatch({ matchId, idempotencyKey: crypto.randomUUID() });

  const ctx = await browser.newContext({ viewport: { width: 1200, height: 900 } });
  const page = await ctx.newPage();
  const errors = [collectErrors(page)];
  await openMatch(page, cluster.url, matchId, blue.session);

  const spectatorCtx = await browser.newContext({ viewport: { width: 1200, height: 900 } });
  const watcher = await spectatorCtx.newPage();
  errors.push(collectErrors(watcher));
  const net = await recordNetwork(watcher);
  await openMatch(watcher, cluster.url, matchId, null); // a guest made at once: both seats are held, so it watches
  await watcher.getByText("You are watching").waitFor();
  assert.equal(await watcher.getByRole("region", { name: "Your bidding cards" }).count(), 0);

  const spectator = await guestClient(cluster.url, "Checker");
  let sealedChecks = 0;
  let shot = false;
  for (let i = 0; i < 120; i++) {
    const v = await spectator.api.getView({ matchId });
    if (v.outcome) break;
    const hv = v.view.game.value;
    if (hv.stones0.length >= 4 && hv.stones1.length >= 2) break;
    if (await page.locator(".matchpage .yourmove").isVisible()) {
      const bidding = hv.toMove === 1; // HEXSPIEL_TURN_BID
      if (bidding && !shot && hv.stones0.length >= 2) {
        // Blue's board mid-match, a bid chosen (not yet sealed): the screenshot, 360 px.
        shot = true;
        await page.bringToFront();
        await page.keyboard.press("Digit5");
        await assertAccessible(page);
        await screenshot(page, "match-hexspiel-player");
        const phone = await ctx.newPage();
        await phone.setViewportSize({ width: 360, height: 780 });
        await openMatch(phone, cluster.url, matchId, blue.session);
        const overflow = await phone.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
        assert.ok(overflow <= 0, `the Hexspiel page fits 360 px (overflows by ${overflow} px)`);
        await assertAccessible(phone);
        await phone.close();
      }
      await playOne.hexspiel(page);
      if (bidding) {
        // Blue's bid is sealed, Red's is not: the spectator is told that much and no more.
        await watcher.getByText("Blue has bid. Red has not bid yet.").waitFor();
        await watcher.waitForTimeout(200);
        const got = decoded(net);
        for (const m of got) {
          assert.ok(!m.event?.hexspiel?.bidSealed, `no sealed bid in the spectator's messages: ${JSON.stringify(m)}`);
          // A WatchMatch view message carries a GetViewResponse in `view`; GetView is one.
          const gv = m.view?.view ? m.view : m;
          const h = gv.view?.hexspiel;
          if (h) {
            assert.equal(h.myBid, undefined, "no bid in a spectator's view");
            assert.equal(h.hand, undefined, "no hand in a spectator's view");
            assert.equal(h.viewer, undefined);
          }
        }
        assert.ok(got.some((m) => m.view?.view?.hexspiel?.moved?.includes(0)), "the spectator was told Blue has bid");
        const text = await watcher.locator(".matchpage").innerText();
        assert.doesNotMatch(text, /You bid|bid your/);
        sealedChecks++;
      }
      continue;
    }
    const rv = await red.api.getView({ matchId });
    // Red bids only once Blue has sealed its bid, so that moment can be looked at.
    const redBids = rv.legalMoves.some((m) => m.game.value.kind.case === "bid");
    if (rv.legalMoves.length && (!redBids || hv.moved.includes(0))) {
      // Red: the lowest bid it holds; on its Hex turn, the legal move placing the most stones.
      const moves = rv.legalMoves.map((m) => m.game.value);
      const bids = moves.filter((m) => m.kind.case === "bid");
      const pick = bids.length
        ? bids[0]
        : moves.filter((m) => !m.kind.value.pattern).sort((a, b) => b.kind.value.place.length - a.kind.value.place.length)[0];
      await red.api.submitMove({
        matchId,
        move: { game: { case: "hexspiel", value: pick } },
        idempotencyKey: crypto.randomUUID(),
      });
      continue;
    }
    await page.waitForTimeout(100);
  }
  assert.ok(sealedChecks >= 3, `the sealed state was checked in several rounds (${sealedChecks})`);

  // The spectator's board: every stone where the spectators' view puts it.
  const v = await spectator.api.getView({ matchId });
  assert.equal(v.seat, undefined);
  const hv = v.view.game.value;
  assert.ok(hv.stones0.length >= 2 && hv.stones1.length >= 1, "stones were placed");
  await watcher.bringToFront();
  await watcher.waitForFunction(
    (n) => document.querySelectorAll("svg.hexboard .stone").length === n,
    hv.stones0.length + hv.stones1.length,
    { polling: 100 },
  );
  assert.deepEqual(await stonesDrawn(watcher), [[...hv.stones0].sort(), [...hv.stones1].sort()]);
  // AP banks as the view says.
  const ap = [Number(hv.ap.seat0), Number(hv.ap.seat1)];
  await watcher.getByLabel(new RegExp(`\\(Blue\\): ${ap[0]} AP`)).waitFor();
  await watcher.getByLabel(new RegExp(`\\(Red\\): ${ap[1]} AP`)).waitFor();
  await assertAccessible(watcher);
  // A spectator's page has nothing to click on the board.
  assert.equal(await watcher.locator("svg.hexboard [role=button]").count(), 0);
  assert.deepEqual(errors.flat(), []);
  await ctx.close();
  await spectatorCtx.close();
});
