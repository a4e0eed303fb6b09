// Rated play from the pages alone: two people register (leaderboard opt-in), queue for a
// rated GOPS match by quick pairing, are paired into the same match, play it to its end
// through the match page (a card each round, sealed with the page's button), and both
// then find their new ratings on the leaderboard page; one of them opens their player
// page (rating, history chart, the rated match, and among the finished matches her rating
// after it with the change). Screenshots: leaderboard, player.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { launchBrowser, screenshot, startCluster } from "./harness.mjs";
import { assertNamedControls } from "./a11y.mjs";

let cluster, browser;
before(async () => {
  cluster = await startCluster();
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  await cluster?.stop();
});

/** A person in a browser of their own, registered from the sign-in page. */
async function register(name) {
  const context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
  const page = await context.newPage();
  const errors = [];
  page.on("pageerror", (e) => errors.push(e.message));
  await page.goto(`${cluster.url}/#/login`);
  const form = page.getByRole("region", { name: "Create an account" });
  await form.getByLabel("Email").fill(`${name.toLowerCase()}-${Date.now()}@example.org`);
  await form.getByLabel("Password", { exact: true }).fill("correct horse battery");
  await form.getByLabel("Display name (optional)").fill(name);
  await form.getByLabel("Show me on the leaderboards").check();
  await form.getByRole("button", { name: "Create account" }).click();
  await page.getByRole("heading", { name: "Lobby", level: 1 }).waitFor();
  await page.locator("header .who").getByRole("link", { name: new RegExp(name) }).waitFor();
  return { name, page, context, errors };
}

/** Queues for a rated GOPS match at a minute a move. */
async function quickPair(p) {
  const panel = p.page.getByRole("region", { name: "Quick pairing" });
  await panel.getByLabel("Game").selectOption("gops");
  await panel.getByLabel("Time per move").selectOption(String(60_000));
  const rated = panel.getByLabel("Rated");
  assert.ok(await rated.isEnabled(), "an account may play rated");
  await rated.check();
  await panel.getByRole("button", { name: "Find an opponent" }).click();
}

/**
 * Plays the page's seat to the end: each round the lowest card it may bid (`low`) or the
 * highest, sealed with the page's button. Answers how it ended for the page: won, lost, draw.
 */
async function playToEnd(page, low) {
  const hand = page.getByRole("region", { name: "Your hand" });
  const end = page.locator(".endscreen");
  const round = page.getByRole("region", { name: "Prize" }).locator(".status");
  const until = Date.now() + 180_000;
  for (;;) {
    assert.ok(Date.now() < until, "the match ended within 3 minutes");
    const seal = hand.getByRole("button", { name: /^(Choose a card to bid|Seal bid)/ });
    await seal.or(end).first().waitFor({ timeout: 60_000 });
    if (await end.isVisible()) break;
    const before = await round.innerText();
    try {
      const cards = hand.locator("button.cardface:not([disabled])");
      await (low ? cards.first() : cards.last()).click({ timeout: 2_000 });
      await hand.getByRole("button", { name: /^Seal bid/ }).click({ timeout: 2_000 });
    } catch {
      // the view moved on under the click (a round revealed): look again
      continue;
    }
    // The round is over once both have bid: the next one's prize, or the end.
    await page.waitForFunction(
      (b) => document.querySelector(".endscreen") || document.querySelector(".board .table .status")?.textContent !== b,
      before,
      { timeout: 60_000 },
    );
  }
  return (await end.getAttribute("class")).match(/\b(won|lost|draw)\b/)[1];
}

/** The leaderboard rows the page shows: name -> {rating, games}. */
async function boardRows(page) {
  const rows = await page.locator("table.board tbody tr").evaluateAll((trs) =>
    trs.map((tr) => [...tr.children].map((c) => c.textContent ?? "")),
  );
  return new Map(rows.map((r) => [r[1].trim(), { rank: Number(r[0]), rating: Number(r[2]), games: Number(r[4]) }]));
}

test("two accounts pair for a rated GOPS match, play it on the page and see their new ratings", async () => {
  const ann = await register("Ann");
  const bob = await register("Bob");

  await quickPair(ann);
  // Ann waits in the rated queue, and can see that it is rated.
  await ann.page.getByRole("status").filter({ hasText: "In the queue (rated, 1 minute a move)" }).waitFor();
  await quickPair(bob);
  await ann.page.waitForURL(/#\/match\/[0-9a-f-]{36}$/, { timeout: 30_000 });
  await bob.page.waitForURL(/#\/match\/[0-9a-f-]{36}$/, { timeout: 30_000 });
  const matchId = ann.page.url().split("/").pop();
  assert.equal(bob.page.url().split("/").pop(), matchId, "paired into the same match");

  // Ann bids low, Bob high: few ties, so a result that moves both ratings.
  const [a, b] = await Promise.all([playToEnd(ann.page, true), playToEnd(bob.page, false)]);
  const expected = { won: "lost", lost: "won", draw: "draw" }[a];
  assert.equal(b, expected, `Ann ${a}, Bob ${b}`);

  // Both find their new ratings on the leaderboard (one match: still provisional).
  for (const p of [ann, bob]) {
    await p.page.goto(`${cluster.url}/#/leaderboard/gops/provisional`);
    await p.page.getByRole("heading", { name: "Leaderboards", level: 1 }).waitFor();
    await p.page.locator("table.board").waitFor();
    // The ratings change once the match-maker rates the match: refresh until both show.
    let rows;
    for (let i = 0; ; i++) {
      rows = await boardRows(p.page);
      if (rows.get("Ann")?.games === 1 && rows.get("Bob")?.games === 1) break;
      assert.ok(i < 60, `both on the board after one game: ${JSON.stringify([...rows])}`);
      await p.page.waitForTimeout(500);
      await p.page.getByRole("button", { name: "Refresh" }).click();
    }
    const [ra, rb] = [rows.get("Ann").rating, rows.get("Bob").rating];
    if (a === "won") assert.ok(ra > 1500 && rb < 1500, `Ann won: ${ra} / ${rb}`);
    else if (a === "lost") assert.ok(ra < 1500 && rb > 1500, `Bob won: ${ra} / ${rb}`);
    else assert.ok(ra === 1500 && rb === 1500, `a draw between equals: ${ra} / ${rb}`);
    // Your own line is marked.
    assert.equal(await p.page.locator("table.board tr.me").innerText().then((t) => t.includes(p.name)), true);
  }
  await assertNamedControls(ann.page, "leaderboard");
  await screenshot(ann.page, "leaderboard");

  // Bob's page, from the board: his name and rating, as anyone may see them.
  await ann.page.locator("table.board").getByRole("link", { name: "Bob" }).click();
  await ann.page.getByRole("heading", { name: "Bob", level: 1 }).waitFor();
  await ann.page.getByRole("region", { name: "Recent rated matches" }).locator(`a[href="#/match/${matchId}"]`).waitFor();
  assert.equal(await ann.page.getByRole("region", { name: "Your recent matches" }).count(), 0, "only one's own page lists one's own matches");
  await ann.page.goBack();
  await ann.page.locator("table.board").waitFor();

  // Ann's player page: her rating, a one-point history, the rated match and a way to verify it.
  await ann.page.locator("table.board").getByRole("link", { name: "Ann" }).click();
  await ann.page.getByRole("heading", { name: "Ann", level: 1 }).waitFor();
  const ratings = ann.page.getByRole("region", { name: "Ratings" });
  await ratings.getByRole("row", { name: /Goofspiel \(GOPS\)/ }).waitFor();
  assert.match(await ratings.getByRole("row", { name: /Goofspiel \(GOPS\)/ }).innerText(), /provisional/);
  await ann.page.locator("figure.chart svg circle.dot").first().waitFor();
  // Two points: where every rating starts, and after this match.
  assert.equal(await ann.page.locator("figure.chart svg circle.dot").count(), 2);
  const recent = ann.page.getByRole("region", { name: "Recent rated matches" });
  await recent.locator(`a[href="#/match/${matchId}"]`).waitFor();
  assert.match(await recent.innerText(), { won: /won/, lost: /lost/, draw: /drew/ }[a]);
  // Her own matches (ListMyMatches): this one, against Bob, with how it ended.
  const mine = ann.page.getByRole("region", { name: "Your recent matches" });
  await mine.locator(`a[href="#/match/${matchId}"]`).waitFor();
  assert.match(await mine.innerText(), new RegExp(`${{ won: "won", lost: "lost", draw: "drew" }[a]} against Bob`));
  // Her finished matches (ListPlayerHistory, from the archive, once the ratings are
  // recorded): this one, against Bob, how it ended, and her rating after it with the change.
  const finished = ann.page.getByRole("region", { name: "Finished matches" });
  const row = finished.getByRole("row").filter({ has: ann.page.locator(`a[href="#/match/${matchId}"]`) });
  for (let i = 0; ; i++) {
    await finished.locator("table").or(finished.getByText("No finished matches yet.")).first().waitFor();
    if (await row.count()) break;
    assert.ok(i < 40, "the rated match is in the history within 20 s");
    await ann.page.waitForTimeout(500);
    await ann.page.reload();
  }
  await row.getByRole("link", { name: "Bob", exact: true }).waitFor();
  const cells = await row.locator("th, td").evaluateAll((cs) => cs.map((c) => c.innerText.replace(/\s+/g, " ").trim()));
  assert.equal(cells[3], `${{ won: "Won", lost: "Lost", draw: "Draw" }[a]} played to the end`);
  const change = cells[4].match(/^(\d+) \(([+\u2212])(\d+)\)$/);
  assert.ok(change, `a rating and its change: ${cells[4]}`);
  const [after, sign, by] = [Number(change[1]), change[2], Number(change[3])];
  if (a === "won") assert.ok(after > 1500 && sign === "+" && by > 0, cells[4]);
  else if (a === "lost") assert.ok(after < 1500 && sign === "\u2212" && by > 0, cells[4]);
  else assert.equal(cells[4], "1500 (+0)");
  await recent.getByRole("link", { name: /Verify the record/ }).click();
  await ann.page.locator(".verdict.good").or(ann.page.getByRole("button", { name: "Check the record" })).first().waitFor();
  await ann.page.goBack();
  await ann.page.getByRole("heading", { name: "Ann", level: 1 }).waitFor();
  await ann.page.locator("figure.chart").waitFor();
  await assertNamedControls(ann.page, "player page");
  await screenshot(ann.page, "player");
  // At phone width the page still fits: nothing wider than the screen.
  await ann.page.setViewportSize({ width: 360, height: 780 });
  await ann.page.locator("figure.chart").waitFor();
  const overflow = await ann.page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 0, `the player page fits 360 px (overflows by ${overflow} px)`);
  await screenshot(ann.page, "player-phone");

  assert.deepEqual([...ann.errors, ...bob.errors], []);
  await ann.context.close();
  await bob.context.close();
});
