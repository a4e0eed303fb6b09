// A player's finished matches on the player page (ListPlayerHistory, from the archive the
// in-memory cluster keeps). Through the test's own API client a guest, Ada, plays a GOPS
// match against a bot to its end, resigns ten more against bots, and loses one to another
// guest, Bea, who resigns; a last match stays in progress. Ada's page then lists the
// twelve finished ones newest first, ten and "More" for the other two, each once, with
// the opponent (the bot's name marked "bot", Bea's a link to her page), the result from
// Ada's side and why; the match in progress is nowhere in the panel nor in what
// ListPlayerHistory sent. Bea's page, opened by Ada, lists Bea's matches only; a player
// with none says so; a visitor without a session is offered a guest's; a cluster that
// keeps no archive (FAILED_PRECONDITION, stood in for by the test) shows its words and the
// rest of the page stays. Screenshots: player-history, player-history-phone.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { explained, launchBrowser, screenshot, startCluster } from "./harness.mjs";
import { assertNamedControls } from "./a11y.mjs";
import { playOut } from "./api-kit.mjs";
import { collectErrors, guestClient } from "./match-kit.mjs";

let cluster, browser;
before(async () => {
  cluster = await startCluster();
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  await cluster?.stop();
});

const HOUR = 3_600_000n;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** A GOPS match of `api`'s player against `bot`, at an hour a move (so one left alone
 * stays in progress for the whole test). */
async function botMatch(api, bot) {
  const { matchId, seat } = await api.createMatch({
    game: "gops",
    opponent: { kind: { case: "bot", value: bot } },
    seat: 0,
    moveTimeMs: HOUR,
    idempotencyKey: crypto.randomUUID(),
  });
  return { matchId, seat };
}

/** Waits until `api`'s player's history (ListPlayerHistory, all of it) holds `n` matches;
 * answers it, newest first. */
async function historyOf(api, n) {
  const until = Date.now() + 20_000;
  for (;;) {
    const { entries } = await api.listPlayerHistory({ pageSize: 100 });
    if (entries.length >= n) return entries;
    assert.ok(Date.now() < until, `the archive holds ${n} matches within 20 s (${entries.length} so far)`);
    await sleep(200);
  }
}

/** Opens `#/player/<id>` in `page` holding `session` (null: none). */
async function openPlayer(page, playerId, session) {
  await page.goto(`${cluster.url}/#/`);
  await page.evaluate((s) => {
    if (s) localStorage.setItem("colosseum.session", JSON.stringify(s));
    else localStorage.removeItem("colosseum.session");
  }, session);
  await page.goto(`${cluster.url}/#/player/${playerId}`);
  // Only a hash changed: load the page again, so that it starts with that session.
  await page.reload();
  await explained(page, page.getByRole("region", { name: "Ratings" }).waitFor({ timeout: 20_000 }));
}

/** The rows the panel shows: the match each links to, and each cell's text. */
async function rows(panel) {
  return panel.locator("table.history tbody tr").evaluateAll((trs) =>
    trs.map((tr) => ({
      match: tr.querySelector('a[href^="#/match/"]')?.getAttribute("href")?.split("/").pop(),
      cells: [...tr.children].map((c) => c.innerText.replace(/\s+/g, " ").trim()),
      opponentHref: tr.children[2].querySelector("a")?.getAttribute("href") ?? null,
    })),
  );
}

const WORD = { 1: "Won", 2: "Lost", 3: "Draw" };

test("the player page lists a player's finished matches, newest first, a page at a time", async () => {
  const ada = await guestClient(cluster.url, "Ada");
  const bea = await guestClient(cluster.url, "Bea");
  const cy = await guestClient(cluster.url, "Cy");
  const { games } = await ada.api.listGames({});
  const bots = games.find((g) => g.name === "gops").bots;
  assert.ok(bots.length > 0, "GOPS has a bot");
  const botAt = (i) => bots[i % bots.length];

  // Ada's matches, in the order they end: one played out, ten resigned, one Bea resigns.
  const finished = [];
  const played = await botMatch(ada.api, botAt(0));
  const final = await playOut(ada.api, played.matchId, played.seat);
  finished.push({ id: played.matchId, bot: botAt(0), reason: "played to the end" });
  for (let i = 0; i < 10; i++) {
    const { matchId } = await botMatch(ada.api, botAt(i + 1));
    await ada.api.resign({ matchId });
    finished.push({ id: matchId, bot: botAt(i + 1), result: "Lost", reason: "resigned" });
    await sleep(5); // each ends at a later millisecond than the one before
  }
  const { matchId: versus } = await ada.api.createMatch({
    game: "gops",
    opponent: { kind: { case: "playerId", value: bea.session.playerId } },
    seat: 0,
    moveTimeMs: HOUR,
    idempotencyKey: crypto.randomUUID(),
  });
  await bea.api.joinMatch({ matchId: versus });
  await bea.api.resign({ matchId: versus });
  finished.push({ id: versus, result: "Won", reason: "the opponent resigned" });
  // Bea's own two, against bots.
  const beas = [versus];
  for (let i = 0; i < 2; i++) {
    const { matchId } = await botMatch(bea.api, botAt(i));
    await bea.api.resign({ matchId });
    beas.unshift(matchId);
    await sleep(5);
  }
  // And one of Ada's that stays in progress (her move, an hour to make it).
  const { matchId: running } = await botMatch(ada.api, botAt(0));

  const newest = [...finished].reverse();
  const archived = await historyOf(ada.api, finished.length);
  assert.deepEqual(archived.map((e) => e.matchId), newest.map((m) => m.id), "the API's order: newest first");
  const playedEntry = archived.find((e) => e.matchId === played.matchId);
  newest.find((m) => m.id === played.matchId).result = WORD[playedEntry.result];
  assert.ok(final.outcome, "the played match ended");
  await historyOf(bea.api, beas.length);

  const context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
  const page = await context.newPage();
  const errors = collectErrors(page);
  // Every ListPlayerHistory answer the page receives, to look for the match in progress.
  const answers = [];
  page.on("response", async (r) => {
    if (r.url().endsWith("/ListPlayerHistory")) answers.push(await r.body().catch(() => Buffer.alloc(0)));
  });
  await openPlayer(page, ada.session.playerId, ada.session);
  await page.getByRole("heading", { name: "Ada", level: 1 }).waitFor();
  const panel = page.getByRole("region", { name: "Finished matches" });
  const table = panel.getByRole("table", { name: "Finished matches, newest first" });
  await explained(page, table.waitFor());
  await panel.locator("table.history tbody tr").nth(9).waitFor();

  // The first page: the ten newest, newest first.
  let shown = await rows(panel);
  assert.deepEqual(shown.map((r) => r.match), newest.slice(0, 10).map((m) => m.id));
  // Against Bea: a win, her name a link to her page; not rated.
  const [vs] = shown;
  assert.equal(vs.cells[2], "Bea");
  assert.equal(vs.opponentHref, `#/player/${bea.session.playerId}`);
  assert.match(vs.cells[1], /Goofspiel \(GOPS\)/);
  assert.match(vs.cells[3], /^Won the opponent resigned$/);
  assert.equal(vs.cells[4], "not rated");
  assert.ok(vs.cells[0].length > 0, "when it ended");
  // Against the bots: their names marked "bot", lost by resigning.
  for (const [i, r] of shown.slice(1).entries()) {
    const m = newest[i + 1];
    assert.equal(r.cells[2], `${m.bot} bot`, `row ${i + 1}: the bot's name and its mark`);
    assert.equal(r.opponentHref, null, "a bot has no player page");
    assert.equal(r.cells[3], `${m.result} ${m.reason}`);
  }
  // Each match link is named for the game, the opponent and when it ended.
  await panel.getByRole("link", { name: /^Goofspiel \(GOPS\) against Bea, ended / }).waitFor();

  // "More": the other two, after the ten, each match once; then no more to ask for.
  const more = panel.getByRole("button", { name: "More finished matches" });
  assert.equal(await more.innerText(), "More");
  await more.click();
  await panel.locator("table.history tbody tr").nth(11).waitFor();
  await panel.getByRole("status").filter({ hasText: "12 finished matches shown, all of them." }).waitFor();
  assert.equal(await more.count(), 0, "no \"More\" after the last page");
  shown = await rows(panel);
  assert.deepEqual(shown.map((r) => r.match), newest.map((m) => m.id));
  assert.equal(new Set(shown.map((r) => r.match)).size, shown.length, "each match once");
  const last = shown.at(-1);
  assert.equal(last.cells[3], `${newest.at(-1).result} played to the end`, "the played-out match, as the archive has it");

  // The match in progress: not in the panel, not in any answer the panel had; it is in
  // Ada's own list (ListMyMatches), in progress.
  assert.equal(await panel.locator(`a[href="#/match/${running}"]`).count(), 0);
  assert.ok(answers.length >= 2, "two pages were asked for");
  for (const body of answers) assert.ok(!body.includes(running), "ListPlayerHistory sent nothing of the match in progress");
  const mine = page.getByRole("region", { name: "Your recent matches" });
  await mine.locator(`a[href="#/match/${running}"]`).waitFor();

  // A row's link opens the finished match (its end screen).
  await panel.locator(`a[href="#/match/${versus}"]`).click();
  await explained(page, page.locator(".endscreen").waitFor({ timeout: 20_000 }));
  await page.goBack();
  await table.waitFor();

  await assertNamedControls(page, "player page with finished matches");
  await panel.getByRole("button", { name: "More finished matches" }).click();
  await panel.locator("table.history tbody tr").nth(11).waitFor();
  await screenshot(page, "player-history");

  // At phone width the page still fits: nothing wider than the screen.
  await page.setViewportSize({ width: 360, height: 780 });
  await table.waitFor();
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 0, `the player page fits 360 px (overflows by ${overflow} px)`);
  const tableOverflow = await panel.locator(".table-wrap").evaluate((el) => el.scrollWidth - el.clientWidth);
  assert.ok(tableOverflow <= 0, `the finished matches fit 360 px without scrolling sideways (by ${tableOverflow} px)`);
  await assertNamedControls(page, "player page at 360 px");
  await screenshot(page, "player-history-phone");
  await page.setViewportSize({ width: 1200, height: 900 });

  // Bea's page, opened by Ada: Bea's matches only, her loss to Ada linking to Ada's page.
  await page.goto(`${cluster.url}/#/player/${bea.session.playerId}`);
  await page.getByRole("heading", { name: /^Player /, level: 1 }).waitFor();
  const beaPanel = page.getByRole("region", { name: "Finished matches" });
  await beaPanel.locator("table.history tbody tr").nth(beas.length - 1).waitFor();
  shown = await rows(beaPanel);
  assert.deepEqual(shown.map((r) => r.match), beas, "Bea's three, newest first");
  assert.equal(shown.at(-1).cells[2], "Ada");
  assert.equal(shown.at(-1).opponentHref, `#/player/${ada.session.playerId}`);
  assert.equal(shown.at(-1).cells[3], "Lost resigned");
  assert.equal(await beaPanel.getByRole("button", { name: "More finished matches" }).count(), 0);
  assert.equal(await page.getByRole("region", { name: "Your recent matches" }).count(), 0, "only one's own page lists one's own matches");

  // Cy has played nothing.
  await page.goto(`${cluster.url}/#/player/${cy.session.playerId}`);
  await page.getByRole("region", { name: "Finished matches" }).getByText("No finished matches yet.").waitFor();

  // A visitor without a session (a browser of its own: a session is kept per origin) is
  // offered a guest's, then sees Ada's history.
  const visitorContext = await browser.newContext({ viewport: { width: 1200, height: 900 } });
  const visitor = await visitorContext.newPage();
  const visitorErrors = collectErrors(visitor);
  await openPlayer(visitor, ada.session.playerId, null);
  const vPanel = visitor.getByRole("region", { name: "Finished matches" });
  await vPanel.getByText("Seeing finished matches needs a session: a guest's will do.").waitFor();
  await assertNamedControls(visitor, "player page without a session");
  await vPanel.getByRole("button", { name: "Continue as a guest to see them" }).click();
  await vPanel.locator("table.history tbody tr").nth(9).waitFor();
  assert.deepEqual((await rows(vPanel)).map((r) => r.match), newest.slice(0, 10).map((m) => m.id));
  await visitorContext.close();

  // A cluster that keeps no archive answers FAILED_PRECONDITION (the test stands in for
  // it): the panel says so, and the rest of the page is there.
  const refusal = "this cluster keeps no archive of finished matches (its operator sets ARCHIVE_URL)";
  await page.route("**/colosseum.v1.ColosseumService/ListPlayerHistory", (route) =>
    route.fulfill({
      status: 200,
      headers: {
        "content-type": "application/grpc-web+proto",
        "grpc-status": "9",
        "grpc-message": encodeURIComponent(refusal),
      },
      body: "",
    }),
  );
  await page.goto(`${cluster.url}/#/player/${ada.session.playerId}`);
  const refused = page.getByRole("region", { name: "Finished matches" });
  await explained(page, refused.getByRole("alert").filter({ hasText: refusal }).waitFor());
  assert.equal(await refused.locator("table").count(), 0);
  assert.equal(await refused.getByText("No finished matches yet.").count(), 0, "a refusal is not an empty history");
  await page.getByRole("region", { name: "Ratings" }).getByRole("row", { name: /Goofspiel \(GOPS\)/ }).waitFor();
  await page.getByRole("region", { name: "Your recent matches" }).locator(`a[href="#/match/${running}"]`).waitFor();
  await page.unroute("**/colosseum.v1.ColosseumService/ListPlayerHistory");

  assert.deepEqual([...errors, ...visitorErrors], []);
  await context.close();
});
