// A guest plays a whole GOPS match against the bot on the match page, by clicking cards as
// a player would, and the end screen shows the final score the match's record has (the
// record fetched through the API by another guest), the result, the published seed, the
// Verify link and the record's download (match-<id>.json). Midway the page's connection
// is cut (a proxy in front of the gateway closes it): the page says so, resumes its watch
// from the last message it had (after_version, after_index, after_tag) and misses or
// repeats nothing. Screenshots: match-gops and match-gops-phone (mid-match, desktop and
// 360 px), match-gops-end.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { fromBinary } from "@bufbuild/protobuf";
import { WatchMatchRequestSchema } from "../src/gen/colosseum/v1/colosseum_pb.js";
import { explained, grpcWebFrames, launchBrowser, recordNetwork, screenshot, startCluster } from "./harness.mjs";
import {
  assertAccessible,
  collectErrors,
  cuttableProxy,
  guestClient,
  myTurnOrEnd,
  openMatch,
  recordOf,
} from "./match-kit.mjs";

let cluster, browser;
before(async () => {
  cluster = await startCluster();
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  await cluster?.stop();
});

test("a guest plays GOPS against the bot to its end by clicking; the end screen shows the record's score", async () => {
  const me = await guestClient(cluster.url, "Gops Player");
  const created = await me.api.createMatch({
    game: "gops",
    optionsJson: "",
    opponent: { kind: { case: "bot", value: "random" } },
    seat: 0,
    idempotencyKey: crypto.randomUUID(),
  });
  const context = await browser.newContext({ viewport: { width: 1200, height: 900 }, acceptDownloads: true });
  const page = await context.newPage();
  const errors = collectErrors(page);
  const net = await recordNetwork(page);
  const proxy = await cuttableProxy(cluster.url);
  await openMatch(page, proxy.url, created.matchId, me.session);
  await page.getByRole("heading", { name: "GOPS", level: 1 }).waitFor();
  // The bot is named as such once the page has read the viewer's match list.
  await page.getByText("Bot “random” (Red)").first().waitFor();

  const status = page.locator(".board .table .status");
  let played = 0;
  while (await myTurnOrEnd(page)) {
    const before = await status.innerText();
    // Bid the card the prize is worth (hands and prizes are both 1..13, so it is held).
    const prize = await page.getByRole("img", { name: /^Prize: / }).getAttribute("aria-label");
    const m = /^Prize: (\w+),/.exec(prize ?? "");
    assert.ok(m, `a prize is up: ${prize}`);
    const hand = page.getByRole("region", { name: "Your hand" });
    await hand.getByRole("button", { name: `Bid ${m[1]}`, exact: true }).click();
    await hand.getByRole("button", { name: `Seal bid: ${m[1]}` }).click();
    played++;
    // The round resolves (the bot bids at once): the status moves on, or the match ends.
    await page
      .locator(".endscreen")
      .or(status.filter({ hasNotText: before }))
      .first()
      .waitFor({ timeout: 30_000 });
    if (played === 4) {
      await page.getByText(/^Round 4: /).first().waitFor();
      await assertAccessible(page);
      await screenshot(page, "match-gops");
      const phone = await context.newPage();
      await phone.setViewportSize({ width: 360, height: 780 });
      await openMatch(phone, cluster.url, created.matchId, me.session);
      const overflow = await phone.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      assert.ok(overflow <= 0, `the GOPS page fits 360 px (overflows by ${overflow} px)`);
      await assertAccessible(phone);
      await screenshot(phone, "match-gops-phone");
      await phone.close();
      // The network drops: the page says so and resumes where it was.
      proxy.cut();
      await page.getByText("Connection lost: reconnecting…").waitFor();
    }
  }
  assert.equal(played, 13, "thirteen bids clicked");
  // Two watches: the first from the start, the second resumed inside the last version seen.
  const watches = net
    .filter((e) => e.url.endsWith("/colosseum.v1.ColosseumService/WatchMatch"))
    .flatMap((e) => grpcWebFrames(e.request ?? Buffer.alloc(0)).map((f) => fromBinary(WatchMatchRequestSchema, f)));
  assert.equal(watches.length, 2, "the watch was opened again once");
  assert.equal(watches[0].afterVersion, 0n);
  assert.ok(watches[1].afterVersion > 0n && watches[1].afterIndex !== undefined && watches[1].afterTag !== undefined);
  assert.ok(watches.every((w) => w.includeViews));
  const log = await page.locator(".eventlog li").allInnerTexts();
  const rounds = log.filter((l) => /^Round \d+: (You|The bot|Both) /.test(l));
  assert.equal(rounds.length, 13, "each round's result once");
  assert.equal(new Set(rounds).size, 13);
  assert.equal(log.filter((l) => /^Round \d+: the prize is /.test(l)).length, 13, "each prize once");
  assert.equal(log.filter((l) => l.startsWith("You sealed your bid: ")).length, 13, "each sealed bid once");

  // The end screen: result, why, the score the record has, the seed, Verify, download.
  const end = page.locator(".endscreen");
  const title = await end.getByRole("heading", { level: 2 }).innerText();
  assert.match(title, /^(You won|You lost|Draw)$/);
  const record = await recordOf(cluster.url, created.matchId);
  const revealed = record.events.filter((e) => e.event.type === "revealed");
  assert.equal(revealed.length, 13);
  const [s0, s1] = revealed.at(-1).event.scores;
  const scoreText = await end.locator(".final-score").innerText();
  assert.equal(scoreText, `Final score: You ${s0}, the bot ${s1}`);
  const expected = s0 > s1 ? "You won" : s0 < s1 ? "You lost" : "Draw";
  assert.equal(title, expected);
  assert.equal(record.result.winner ?? null, s0 > s1 ? 0 : s0 < s1 ? 1 : null);
  assert.ok(record.seed, "the record publishes the seed");
  assert.equal(await end.locator(".seed code").innerText(), record.seed);
  assert.equal(await end.getByRole("link", { name: "Verify", exact: true }).getAttribute("href"), `#/verify/${created.matchId}`);
  // Each bid was read back in plain words.
  await page.getByText(/^Round 13: /).first().waitFor();
  await assertAccessible(page);
  await screenshot(page, "match-gops-end");

  const [download] = await Promise.all([
    page.waitForEvent("download"),
    end.getByRole("button", { name: "Download the record" }).click(),
  ]);
  assert.equal(download.suggestedFilename(), `match-${created.matchId}.json`);
  const saved = JSON.parse(readFileSync(await download.path(), "utf8"));
  assert.deepEqual(saved, record);

  // Rematch: a new match against the same bot, the page moves to it.
  await end.getByRole("button", { name: "Rematch the bot (random)" }).click();
  await page.waitForURL((u) => /#\/match\//.test(u.hash) && !u.hash.includes(created.matchId));
  await page.getByRole("heading", { name: "GOPS", level: 1 }).waitFor();
  await page.locator(".matchpage .yourmove").waitFor();
  // The dropped stream's failed fetch is the only error the page logged.
  assert.deepEqual(
    errors.filter((e) => !/Failed to load resource|ERR_CONNECTION|ERR_EMPTY_RESPONSE|network/i.test(e)),
    [],
  );
  await context.close();
  await proxy.close();
});

test("a match link that changes as the page starts still opens that match", async () => {
  const me = await guestClient(cluster.url, "Late Link");
  const { matchId } = await me.api.createMatch({
    game: "gops",
    optionsJson: "",
    opponent: { kind: { case: "bot", value: "random" } },
    seat: 0,
    idempotencyKey: crypto.randomUUID(),
  });
  const context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
  // The page starts on the lobby's hash; the match's hash arrives after its first render
  // read the route and before it listens for changes (made certain here: the hash is
  // replaced, without a hashchange event, just as the page starts listening).
  await context.addInitScript(
    ([session, hash]) => {
      localStorage.setItem("colosseum.session", JSON.stringify(session));
      const listen = window.addEventListener.bind(window);
      let moved = false;
      window.addEventListener = (type, ...rest) => {
        if (type === "hashchange" && !moved) {
          moved = true;
          history.replaceState(null, "", hash);
        }
        return listen(type, ...rest);
      };
    },
    [me.session, `#/match/${matchId}`],
  );
  const page = await context.newPage();
  const errors = collectErrors(page);
  await page.goto(`${cluster.url}/#/`);
  await explained(page, page.locator(".matchpage .board").waitFor({ timeout: 20_000 }));
  assert.ok(page.url().endsWith(`#/match/${matchId}`));
  await page.getByRole("heading", { name: "GOPS", level: 1 }).waitFor();
  assert.deepEqual(errors, []);
  await context.close();
});
