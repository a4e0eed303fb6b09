// Cure & Plague on the match page against the bot: the grid is drawn from the view (every
// tile's human, cure and plague where the view has them, the score the board would have
// now, both reserves), a tile is placed with an item (Transform: an L) by picking cells on
// the grid, the rest of the match is played by clicking, and the end screen's score is
// the games the view reports. (match-boards.test.mjs takes this page's screenshots.)
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
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

const cellLabel = (c) => `(${Number(c.x)}, ${Number(c.y)})`;

/** The grid as drawn: each occupied cell's accessible name by its "(x, y)". */
async function drawnCells(page) {
  const labels = await page
    .locator("svg.cpgrid rect[role=img]")
    .evaluateAll((els) => els.map((e) => e.getAttribute("aria-label") ?? ""));
  return new Map(labels.map((l) => [l.slice(0, l.indexOf(":")), l]));
}

/** Every tile of the view is on the grid, cell by cell, and nothing else is. */
async function assertGridIsView(page, api, matchId) {
  const v = (await api.getView({ matchId })).view.game.value;
  await page.waitForFunction((n) => document.querySelectorAll("svg.cpgrid rect[role=img]").length === n, 3 * v.tiles.length, {
    polling: 100,
  });
  const drawn = await drawnCells(page);
  assert.equal(drawn.size, 3 * v.tiles.length);
  for (const t of v.tiles) {
    assert.match(drawn.get(cellLabel(t.human)) ?? "", /human/, `human at ${cellLabel(t.human)}`);
    assert.match(drawn.get(cellLabel(t.cure)) ?? "", /: a cure/, `cure at ${cellLabel(t.cure)}`);
    assert.match(drawn.get(cellLabel(t.plague)) ?? "", /plague/, `plague at ${cellLabel(t.plague)}`);
  }
  const score = await page.locator(".board .table").innerText();
  assert.match(score, new RegExp(`${v.score.survivors} humans? alive`));
  assert.match(score, new RegExp(`${v.score.neutralized} plague cells? neutralized`));
  return v;
}

test("a guest places Cure & Plague tiles on the grid; the grid is the view's", async () => {
  const me = await guestClient(cluster.url, "Cure Player");
  const { matchId } = await me.api.createMatch({
    game: "cure-plague",
    optionsJson: JSON.stringify({ items: { 0: ["transform", "permute"] } }),
    opponent: { kind: { case: "bot", value: "random" } },
    seat: 0,
    idempotencyKey: crypto.randomUUID(),
  });
  const context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
  const page = await context.newPage();
  const errors = collectErrors(page);
  await openMatch(page, cluster.url, matchId, me.session);
  assert.ok(await myTurnOrEnd(page), "the Cure moves first");
  await assertGridIsView(page, me.api, matchId);
  // Both reserves are shown beside the clocks, and the roles.
  const bar = page.getByRole("group", { name: "Players, scores and clocks" });
  assert.equal(await bar.locator(".reserve").count(), 2);
  await bar.getByText("Cure", { exact: true }).waitFor();
  await bar.getByText("Plague", { exact: true }).waitFor();

  // First tile with Transform: an L, cure at the corner, picked cell by cell.
  const turn = page.getByRole("region", { name: "Your tile" });
  await turn.getByRole("radio", { name: /^Transform/ }).check();
  const grid = page.locator("svg.cpgrid");
  await grid.getByRole("button", { name: /place the cure here/ }).first().click();
  await grid.getByRole("button", { name: /place the human here/ }).first().click();
  const place = turn.getByRole("button", { name: "Place this tile" });
  if (!(await place.isEnabled())) await grid.getByRole("button", { name: /place the plague here/ }).first().click();
  const tile = await turn.locator("p").first().innerText();
  const m = /human \((-?\d+), (-?\d+)\), cure \((-?\d+), (-?\d+)\), plague \((-?\d+), (-?\d+)\)/.exec(tile);
  assert.ok(m, `the tile is spelled out before it is placed: ${tile}`);
  const [hx, hy, cx, cy, px, py] = m.slice(1).map(Number);
  // An L: both arms touch the cure, and they are not in one line.
  assert.equal(Math.abs(hx - cx) + Math.abs(hy - cy), 1);
  assert.equal(Math.abs(px - cx) + Math.abs(py - cy), 1);
  assert.ok(hx !== px && hy !== py, "the human and the plague are at right angles");
  await send(page, place);
  await page.locator(".eventlog li", { hasText: /^Tile 2 of 21: You placed a tile with Transform: / }).first().waitFor();
  await myTurnOrEnd(page);
  const v = await assertGridIsView(page, me.api, matchId);
  assert.deepEqual(
    v.tiles.slice(1, 2).map((t) => [t.human, t.cure, t.plague].map(cellLabel)),
    [[`(${hx}, ${hy})`, `(${cx}, ${cy})`, `(${px}, ${py})`]],
  );
  // Transform is spent: only Permute is left to choose.
  assert.equal(await turn.getByRole("radio", { name: /^Transform/ }).count(), 0);
  await turn.getByRole("radio", { name: /^Permute/ }).waitFor();

  // A few tiles more, the page at 360 px, then the rest of the match.
  await playToEnd(page, "cure-plague", 4);
  await myTurnOrEnd(page);
  await assertGridIsView(page, me.api, matchId);
  await grid.getByRole("button", { name: /place the cure here/ }).first().click();
  await assertAccessible(page);
  const phone = await context.newPage();
  await phone.setViewportSize({ width: 360, height: 780 });
  await openMatch(phone, cluster.url, matchId, me.session);
  const overflow = await phone.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 0, `the Cure & Plague page fits 360 px (overflows by ${overflow} px)`);
  await assertAccessible(phone);
  await phone.close();
  await turn.getByRole("button", { name: "Start again" }).click();

  const moves = await playToEnd(page, "cure-plague");
  assert.ok(moves >= 10, `the rest of both games was played (${moves} tiles)`);
  const end = await me.api.getView({ matchId });
  const games = end.view.game.value.games;
  assert.equal(games.length, 2);
  const score = await page.locator(".endscreen .final-score").innerText();
  for (const [i, g] of games.entries()) {
    assert.ok(
      score.includes(`Game ${i + 1}: ${g.cure === 0 ? "you" : "the bot"} as Cure kept ${g.survivors} human`),
      `${score} has game ${i + 1}`,
    );
  }
  const won = end.outcome.winner === 0;
  assert.equal(await page.locator(".endscreen h2").innerText(), end.outcome.winner === undefined ? "Draw" : won ? "You won" : "You lost");
  assert.deepEqual(errors, []);
  await context.close();
});
