// The public tournament page follows a running swiss to its final standings. The test
// is the organiser, through the platform API from node (gRPC-Web, a tenant key made with
// `colosseum tenant`): six guest players entered, a public swiss of three rounds, each
// round started and each match decided by AdjudicateMatch one at a time, so the page is
// seen live at every step: not started, a round playing with its games pending, each
// result arriving, between rounds, finished. The page itself holds no key and no session;
// its final standings must be the platform's own (GetStandings, read with the key).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { join, resolve } from "node:path";
import { createClient } from "@connectrpc/connect";
import { createGrpcWebTransport } from "@connectrpc/connect-web";
import { ColosseumService } from "../src/gen/colosseum/v1/colosseum_pb.js";
import { TournamentService } from "../src/gen/colosseum/v1/tournaments_pb.js";
import { launchBrowser, repoDir, screenshot, startCluster } from "./harness.mjs";
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

/** `colosseum tenant ...` against the cluster's own admin file; its standard output. */
function tenantCli(...args) {
  const bin = resolve(process.env.COLOSSEUM_BIN ?? join(repoDir, "target", "debug", "colosseum"));
  // The admin file is the one `colosseum run` wrote for this cluster's gateway address.
  return execFileSync(bin, ["tenant", ...args, "--gateway", cluster.url], {
    env: { ...process.env, HOME: cluster.home, XDG_CONFIG_HOME: join(cluster.home, ".config") },
  })
    .toString()
    .trim();
}

/** The organiser's platform client, holding a new tenant's key (never given to a page). */
function organiser() {
  const tenant = tenantCli("create", "--name", "web swiss");
  const key = tenantCli("key", "create", "--tenant", tenant);
  assert.match(key, /^ck_/);
  const bearer = (next) => async (req) => {
    req.header.set("authorization", `Bearer ${key}`);
    return next(req);
  };
  return createClient(TournamentService, createGrpcWebTransport({ baseUrl: cluster.url, interceptors: [bearer] }));
}

/** "2", "1½", "½" -> halves. */
const halves = (t) => {
  const m = /^(\d*)(½?)$/.exec(t.trim());
  assert.ok(m, `points ${t}`);
  return 2 * Number(m[1] || 0) + (m[2] ? 1 : 0);
};

const NAMES = ["Ada", "Ben", "Cleo", "Dev", "Eun", "Fox"];

test("the tournament page follows a running swiss to its final standings", async () => {
  const platform = organiser();
  const guests = createClient(ColosseumService, createGrpcWebTransport({ baseUrl: cluster.url }));
  const players = [];
  for (const name of NAMES) players.push({ id: (await guests.createGuestSession({ displayName: name })).playerId, name });
  const { tournament } = await platform.createTournament({
    idempotencyKey: crypto.randomUUID(),
    name: "Web swiss",
    format: { kind: { case: "swiss", value: { rounds: 3 } } },
    // Ten minutes a move: no match ends by its clock while the test decides it.
    game: { game: "gops", moveTimeMs: 600_000n },
    entrants: players.map((p) => ({ playerId: p.id, name: p.name })),
    publicPage: true,
  });
  const tid = tournament.tournamentId;

  const context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
  const page = await context.newPage();
  const sent = [];
  page.on("request", (r) => sent.push({ url: r.url(), auth: r.headers().authorization ?? "" }));
  await page.goto(`${cluster.url}/#/tournaments/${tid}`);
  await page.getByRole("heading", { name: "Web swiss", level: 1 }).waitFor();
  const summary = page.locator(".summary");
  await summary.getByText("Not started yet").waitFor();
  // The format in the server's words (PublicTournament.format_label): the page names none.
  await summary.getByText("Swiss, 3 rounds", { exact: false }).waitFor();
  await page.getByText("Live: updates as results come in.").waitFor();

  let finished = 0;
  for (let round = 1; round <= 3; round++) {
    const { round: paired } = await platform.startRound({ tournamentId: tid, round });
    assert.equal(paired.pairings.length, 3);
    // The page shows the round playing, its three games pending, without a reload.
    await summary.getByText(`Playing, round ${round} of 3`).waitFor();
    const section = page.getByRole("region", { name: `Round ${round}` });
    await assert.doesNotReject(section.locator(".score.pending").nth(2).waitFor());
    for (const [i, p] of paired.pairings.entries()) {
      // Seat 0 wins the first game of a round, seat 1 the second, the third is drawn.
      const winner = i === 2 ? undefined : i;
      await platform.adjudicateMatch({ tournamentId: tid, matchId: p.matchId, winner, note: "web test" });
      finished += 1;
      await summary.getByText(`${finished} of ${round * 3} games finished`).waitFor();
      const shown = ["1–0", "0–1", "½–½"][i];
      await section.locator("li", { has: page.locator(`a[href="#/match/${p.matchId}"]`) }).getByText(shown).waitFor();
    }
    if (round < 3) await summary.getByText("Between rounds").waitFor();
  }
  await summary.getByText("Finished").waitFor();
  await page.getByRole("heading", { name: "Final standings" }).waitFor();
  await page.getByText("The tournament is over: these are its final standings.").waitFor();

  // The final standings are the platform's own.
  const { standings } = await platform.getStandings({ tournamentId: tid });
  const expected = standings.map((s) => ({ rank: s.rank, name: s.name, points2: s.points2 }));
  const rows = await page.locator("table.standings tbody tr").evaluateAll((trs) =>
    trs.map((tr) => [...tr.children].map((c) => c.textContent ?? "")),
  );
  const shown = rows.map((r) => ({ rank: Number(r[0]), name: r[1].trim(), points2: halves(r[2]) }));
  assert.deepEqual(shown, expected);
  assert.equal(shown.reduce((a, s) => a + s.points2, 0), 2 * 9, "9 games, a point each");
  assert.deepEqual(shown.map((s) => s.name).sort(), [...NAMES].sort());

  // The crosstable: three rounds a player, every cell a result; three rounds of three games.
  assert.equal(await page.locator("table.crosstable tbody td.x-cell").count(), 18);
  assert.equal(await page.locator("table.crosstable td.x-cell.pending").count(), 0);
  assert.equal(await page.locator("table.crosstable td.x-cell.draw").count(), 6);
  assert.equal(await page.locator("section.round").count(), 3);
  assert.equal(await page.locator("ol.games-list li").count(), 9);
  assert.equal(await page.locator("ol.games-list .score.pending").count(), 0);

  // No key and no session anywhere: not in the page, not in a URL, not sent.
  assert.ok(!(await page.content()).includes("ck_"));
  assert.ok(sent.every((r) => !r.url.includes("ck_") && r.auth === ""), "the page sent no credentials");
  await assertNamedControls(page, "tournament page");
  await screenshot(page, "tournament");
  await context.close();
});
