// Masterminds Duel on the match page against the bot, played by keyboard and by clicking:
// the hand is drawn from the viewer's own view (each card's strength as my_strengths has
// it, the cards played this bout spent), the turn history as the view's history (a Reveal's
// strengths where it showed them, a Bluff as the card it was shown as), bout points and
// wins; then the match is played to its end. (match-boards.test.mjs takes this page's screenshots.)
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { MastermindsCard } from "../src/gen/colosseum/v1/masterminds_pb.js";
import { launchBrowser, startCluster } from "./harness.mjs";
import { assertAccessible, collectErrors, guestClient, myTurnOrEnd, openMatch, playToEnd, send } from "./match-kit.mjs";

let cluster, browser;
before(async () => {
  cluster = await startCluster();
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  await cluster?.stop();
});

const NAMES = {
  [MastermindsCard.BLUFF]: ["Bluff", "bluff"],
  [MastermindsCard.COUNTERSPELL]: ["Counterspell", "counterspell"],
  [MastermindsCard.EMPOWER]: ["Empower", "empower"],
  [MastermindsCard.FIREBALL]: ["Fireball", "fireball"],
  [MastermindsCard.KILL]: ["Kill", "kill"],
  [MastermindsCard.MAYHEM]: ["Mayhem", "mayhem"],
  [MastermindsCard.OFFERING]: ["Offering", "offering"],
  [MastermindsCard.REVEAL]: ["Reveal", "reveal"],
  [MastermindsCard.SWAP]: ["Swap", "swap"],
  [MastermindsCard.WARP_TIME]: ["Warp Time", "warpTime"],
};

/** The hand as drawn matches the viewer's view: strengths, and which cards are spent. */
async function assertHandIsView(page, api, matchId) {
  const r = await api.getView({ matchId });
  const v = r.view.game.value;
  const hand = page.getByRole("region", { name: "Your cards" });
  for (const [card, [name, key]] of Object.entries(NAMES)) {
    const held = v.myHand.cards.includes(Number(card));
    const label = `${name}, strength ${v.myStrengths[key]}${held ? "" : ", played this bout"}: `;
    assert.equal(
      await hand.getByRole("button", { name: label }).count(),
      1,
      `${label} (bout ${v.bout}, turn ${v.turn})`,
    );
  }
  return v;
}

/** The history table's rows (current bout, or earlier bouts) as the page draws them. */
async function historyRows(page) {
  return page.locator(".history table").first().locator("tbody tr").evaluateAll((rows) =>
    rows.map((tr) => [...tr.querySelectorAll("td")].map((td) => td.textContent ?? "")),
  );
}

test("a guest plays Masterminds against the bot; hand and history are the view's", async () => {
  const me = await guestClient(cluster.url, "Mastermind");
  const { matchId } = await me.api.createMatch({
    game: "masterminds",
    optionsJson: "",
    opponent: { kind: { case: "bot", value: "random" } },
    seat: 0,
    idempotencyKey: crypto.randomUUID(),
  });
  const context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
  const page = await context.newPage();
  const errors = collectErrors(page);
  await openMatch(page, cluster.url, matchId, me.session);
  await myTurnOrEnd(page);
  await assertHandIsView(page, me.api, matchId);

  // A Reveal at the first turn of a bout shows the strengths of its second turn (unless
  // the bot's Counterspell cancels it: then the next bout tries again). Keys: R, Enter.
  let revealed = null;
  for (let attempt = 0; attempt < 4 && !revealed; attempt++) {
    assert.ok(await myTurnOrEnd(page), "the match goes on");
    let v = await assertHandIsView(page, me.api, matchId);
    while (v.turn !== 0) {
      await playToEnd(page, "masterminds", 1); // play out the bout
      assert.ok(await myTurnOrEnd(page));
      v = (await me.api.getView({ matchId })).view.game.value;
    }
    const bout = v.bout;
    await page.bringToFront();
    await page.keyboard.press("r");
    const playReveal = page.getByRole("button", { name: "Play Reveal" });
    await playReveal.waitFor();
    await send(page, { click: () => page.keyboard.press("Enter") });
    await page.getByText("You played Reveal.").first().waitFor();
    // Turn 2: a Bluff, shown as the first card the page offers.
    assert.ok(await myTurnOrEnd(page));
    v = await assertHandIsView(page, me.api, matchId);
    if (v.bout !== bout) continue; // the bout ended at turn 1
    const hand = page.getByRole("region", { name: "Your cards" });
    await hand.getByRole("button", { name: /^Bluff, strength/ }).click();
    const shownAs = hand.getByRole("group", { name: "Show your Bluff as" });
    const claim = await shownAs.getByRole("button").first().innerText();
    await shownAs.getByRole("button", { name: claim }).click();
    await send(page, hand.getByRole("button", { name: `Play Bluff as ${claim}` }));
    await page.getByText(`You played Bluff, shown as ${claim}.`).first().waitFor();
    await myTurnOrEnd(page);
    const after = await me.api.getView({ matchId });
    const turns = after.view.game.value.history.filter((t) => t.bout === bout);
    const second = turns.find((t) => t.turn === 2);
    assert.ok(second, "the second turn was played");
    assert.equal(second.card0.card, MastermindsCard.BLUFF, "my own Bluff is known to me as a Bluff");
    assert.equal(second.card0.shownAs, Object.values(MastermindsCard).find((c) => NAMES[c]?.[0] === claim));
    if (second.revealed) revealed = { bout, second };
    if (after.view.game.value.bout === bout) {
      // The page's history of this bout is the view's, newest first.
      const rows = await historyRows(page);
      assert.equal(rows.length, turns.length);
      const row = rows.find((r) => r[0].startsWith(`${bout}.2`));
      assert.ok(row[1].startsWith(`Bluff as ${claim}`), `row ${row}`);
      if (second.revealed) {
        assert.equal(row[5], `${Number(second.revealed.seat0)}–${Number(second.revealed.seat1)}`, "Reveal's strengths");
      } else {
        assert.equal(row[5], "");
      }
    }
  }
  assert.ok(revealed, "a Reveal showed a turn's strengths");
  await page
    .getByText(
      `Reveal: in turn 2 the cards had strength ${Number(revealed.second.revealed.seat0)} (your) and ${Number(revealed.second.revealed.seat1)} (the bot's).`,
    )
    .first()
    .waitFor();

  await myTurnOrEnd(page);
  // A card chosen (not yet played), then the page at 360 px.
  const hand = page.getByRole("region", { name: "Your cards" });
  await hand.getByRole("button", { name: /, strength \d+: / }).and(page.locator(":enabled")).first().click();
  await assertAccessible(page);
  const phone = await context.newPage();
  await phone.setViewportSize({ width: 360, height: 780 });
  await openMatch(phone, cluster.url, matchId, me.session);
  const overflow = await phone.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 0, `the Masterminds page fits 360 px (overflows by ${overflow} px)`);
  await assertAccessible(phone);
  await phone.close();

  await playToEnd(page, "masterminds");
  const end = await me.api.getView({ matchId });
  const w = end.view.game.value.boutWins;
  assert.equal(
    await page.locator(".endscreen .final-score").innerText(),
    `Final score: Bouts won: you ${Number(w.seat0)}, the bot ${Number(w.seat1)}`,
  );
  assert.ok(Math.max(Number(w.seat0), Number(w.seat1)) === 4 || end.view.game.value.bout === 7, "played to its end");
  assert.deepEqual(errors, []);
  await context.close();
});
