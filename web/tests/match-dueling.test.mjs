// Two browser contexts play Dueling Monsters against each other on the match page: one
// creates the match with an open seat, the other opens its challenge link (a guest session
// made at once, the seat taken). Hidden information, proved with twin matches: the same
// prizes, seat 0 seals a different monster and weapon in each; right after seat 0 submits
// and before seat 1 does, seat 1's page (its board and log) and every gRPC-Web message it
// received (the WatchMatch stream read while still open, GetView) are the same in both
// twins, so nothing of seat 0's sealed cards reached it. Once seat 1 submits the blacks are
// revealed and the twins differ. Then the match is played to its end by clicking in both
// contexts, and a rematch sent the same way. Screenshots: match-dueling-monsters, -phone.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { fromBinary, toJson } from "@bufbuild/protobuf";
import { GetViewResponseSchema, WatchMatchResponseSchema } from "../src/gen/colosseum/v1/colosseum_pb.js";
import { launchBrowser, recordNetwork, screenshot, startCluster } from "./harness.mjs";
import { assertAccessible, collectErrors, guestClient, myTurnOrEnd, openMatch, playOne, send } from "./match-kit.mjs";

let cluster, browser;
before(async () => {
  cluster = await startCluster();
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  await cluster?.stop();
});

const PRIZES = JSON.stringify({
  prizes: [
    [5, 9, 1, 8, 2, 7, 3, 6, 4],
    [4, 6, 3, 7, 2, 8, 1, 9, 5],
    [9, 8, 7, 6, 5, 4, 3, 2, 1],
  ],
});

/** What seat 1's page received, decoded, without what differs between any two matches
 * (tags, trace contexts, deadlines, the seed's commitment). */
function received(net) {
  const events = [];
  const views = [];
  for (const entry of net) {
    const method = entry.url.split("/").pop();
    for (const bytes of entry.messages()) {
      if (method === "WatchMatch") {
        const m = toJson(WatchMatchResponseSchema, fromBinary(WatchMatchResponseSchema, bytes));
        delete m.tag;
        delete m.traceparent;
        if (m.view) {
          delete m.view.deadlineInMs;
          delete m.view.deadlineAtMs;
          views.push(m.view);
        }
        if (m.event?.matchStarted) delete m.event.matchStarted.commitment;
        if (m.event) events.push(m);
      } else if (method === "GetView") {
        const v = toJson(GetViewResponseSchema, fromBinary(GetViewResponseSchema, bytes));
        delete v.deadlineInMs;
        delete v.deadlineAtMs;
        delete v.viewJson;
        views.push(v);
      }
    }
  }
  return { events, latestView: views.at(-1), views };
}

/** Seat 1's page as drawn: the board and the log (no clock, no match id). */
async function drawn(page) {
  return {
    board: await page.locator(".matchpage .board").innerHTML(),
    log: await page.locator(".eventlog").innerText(),
  };
}

/** Seat 0 plays `black` and `white` on its page by clicking. */
async function playCards(page, black, white) {
  await page.bringToFront();
  const mine = page.getByRole("region", { name: "Your cards" });
  await mine.getByRole("button", { name: new RegExp(`^Monster level ${black}, `) }).click();
  await mine.getByRole("button", { name: `Weapon ${white}`, exact: true }).click();
  await send(page, mine.getByRole("button", { name: `Play monster ${black} with weapon ${white}` }));
}

test("two players duel on the page; seat 1 never holds seat 0's sealed cards before the reveal", async () => {
  const creator = await guestClient(cluster.url, "Ann Creator");
  const twins = [];
  for (let i = 0; i < 2; i++) {
    const m = await creator.api.createMatch({
      game: "dueling-monsters",
      optionsJson: PRIZES,
      opponent: { kind: { case: "open", value: {} } },
      seat: 0,
      idempotencyKey: crypto.randomUUID(),
    });
    twins.push(m.matchId);
  }
  const ctx0 = await browser.newContext({ viewport: { width: 1200, height: 900 } });
  const ctx1 = await browser.newContext({ viewport: { width: 1200, height: 900 } });
  const seat0 = [];
  const seat1 = [];
  const nets = [];
  const errors = [];
  for (const id of twins) {
    const p0 = await ctx0.newPage();
    errors.push(collectErrors(p0));
    await openMatch(p0, cluster.url, id, creator.session);
    // The creator waits with the challenge link to send.
    const link = await p0.getByRole("textbox", { name: "Challenge link" }).inputValue();
    assert.equal(link, `${cluster.url}/#/match/${id}`);
    seat0.push(p0);

    // The friend opens the link: no session yet, so the page makes a guest and joins.
    const p1 = await ctx1.newPage();
    errors.push(collectErrors(p1));
    nets.push(await recordNetwork(p1));
    await p1.goto(link);
    await p1.getByText("You play Red (you took the open seat)").waitFor({ timeout: 20_000 });
    seat1.push(p1);
  }
  // The creator's page sees the seat taken: the invite goes, its clock runs.
  for (const p of seat0) await p.getByRole("textbox", { name: "Challenge link" }).waitFor({ state: "detached" });
  const held = await seat1[0].evaluate(() => JSON.parse(localStorage.getItem("colosseum.session") ?? "null"));
  assert.ok(held?.token && held.account === false, "the friend got a guest session");

  // Round 1: seat 0 seals different cards in the twins.
  await myTurnOrEnd(seat0[0]);
  await myTurnOrEnd(seat0[1]);
  await playCards(seat0[0], 1, 9);
  await playCards(seat0[1], 3, 2);
  for (const p of seat1) await p.getByText("Your opponent has submitted.").waitFor();
  await seat1[0].waitForTimeout(500); // anything still on its way arrives

  const [a, b] = nets.map(received);
  assert.ok(a.events.length > 0 && b.events.length > 0, "seat 1 received the stream's events while it was open");
  assert.deepEqual(a.events, b.events, "seat 1 received the same events in both twins");
  assert.deepEqual(a.latestView, b.latestView, "seat 1's latest view is the same in both twins");
  assert.deepEqual(a.latestView.view.duelingMonsters.moved, [0]);
  for (const r of [a, b]) {
    assert.ok(!r.events.some((e) => e.event.duelingMonsters?.moveSealed?.seat === 0), "no sealed move of seat 0");
    assert.ok(r.views.every((v) => !v.view?.duelingMonsters?.myMove), "no sealed move in seat 1's views");
  }
  const [da, db] = [await drawn(seat1[0]), await drawn(seat1[1])];
  assert.deepEqual(da, db, "seat 1's page draws the same in both twins");
  assert.doesNotMatch(da.log, /weapon 9|weapon 2|level 1 monster|level 3 monster/);
  await assertAccessible(seat1[0]);
  await screenshot(seat1[0], "match-dueling-monsters");
  const phone = await ctx1.newPage();
  await phone.setViewportSize({ width: 360, height: 780 });
  await openMatch(phone, cluster.url, twins[0], held);
  const overflow = await phone.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 0, `the Dueling Monsters page fits 360 px (overflows by ${overflow} px)`);
  await assertAccessible(phone);
  await screenshot(phone, "match-dueling-monsters-phone");
  await phone.close();

  // Seat 1 plays the same in both: the round resolves, the blacks are shown, the twins part.
  for (const p of seat1) await playCards(p, 2, 5);
  await seat1[0].getByText(/^Battle 1: .*level 1/).first().waitFor();
  await seat1[1].getByText(/^Battle 1: .*level 3/).first().waitFor();
  assert.notDeepEqual(await drawn(seat1[0]), await drawn(seat1[1]));

  // The second twin ends here: seat 1 resigns (with the confirmation), both pages say why.
  await seat1[1].getByRole("button", { name: "Resign…" }).click();
  await seat1[1].getByRole("button", { name: "Yes, resign" }).click();
  await seat1[1].getByRole("heading", { name: "You lost", level: 2 }).waitFor();
  assert.match(await seat1[1].locator(".endscreen .why").innerText(), /you resigned/);
  await seat0[1].getByRole("heading", { name: "You won", level: 2 }).waitFor();
  assert.match(await seat0[1].locator(".endscreen .why").innerText(), /your opponent resigned/);

  // The first twin is played to its end by clicking on both pages (seat 0 its highest
  // cards, seat 1 its lowest: two mirrored hands would tie every bout, replayed without
  // end).
  const pages = [seat0[0], seat1[0]];
  const started = Date.now();
  let moves = 0;
  for (let guard = 0; guard < 200; guard++) {
    if ((await pages[0].locator(".endscreen").count()) && (await pages[1].locator(".endscreen").count())) break;
    let moved = false;
    for (const p of pages) {
      if (await p.locator(".matchpage .yourmove").isVisible()) {
        await playOne["dueling-monsters"](p, p === pages[0] ? "last" : "first");
        moves++;
        moved = true;
      }
    }
    if (!moved) await pages[0].waitForTimeout(100);
  }
  const t0 = await pages[0].locator(".endscreen h2").innerText();
  const t1 = await pages[1].locator(".endscreen h2").innerText();
  assert.ok(moves >= 2 * 8, `both seats played their battles (${moves} moves in ${Date.now() - started} ms)`);
  assert.deepEqual(
    [t0, t1].sort(),
    t0 === "Draw" ? ["Draw", "Draw"] : ["You lost", "You won"],
    "one page says won, the other lost",
  );
  assert.match(await pages[1].locator(".endscreen .final-score").innerText(), /^Final score: Bouts won: you \d, your opponent \d/);

  // Rematch: seat 0 makes a new match with an open seat and sends the link again.
  await pages[0].getByRole("button", { name: "Rematch: a new match to send your opponent" }).click();
  await pages[0].waitForURL((u) => !u.hash.includes(twins[0]));
  const again = await pages[0].getByRole("textbox", { name: "Challenge link" }).inputValue();
  assert.ok(!again.includes(twins[0]) && !again.includes(twins[1]));
  await pages[1].goto(again);
  await pages[1].getByText("You play Red (you took the open seat)").waitFor();
  await pages[0].getByRole("textbox", { name: "Challenge link" }).waitFor({ state: "detached" });
  await pages[0].locator(".matchpage .yourmove").waitFor();
  assert.deepEqual(errors.flat(), []);
  await ctx0.close();
  await ctx1.close();
});
