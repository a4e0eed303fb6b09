// The boards of Hexspiel, Cure & Plague and Masterminds on the match page, checked
// against the views the API gives for the same matches.
// - Hexspiel, watched: two guests play twin matches through the API (the same prize
//   order and moves, then Blue seals a different bid in each). A spectator guest's page
//   draws on the SVG board the stones its own GetView lists, cell by cell. With Blue's
//   bid sealed and Red's owed it says that Blue has bid, and its whole page (board, SVG,
//   log) is the same in both twins: the bid's value is nowhere in it. Red's bid
//   then reveals both and the twins' pages differ.
// - Cure & Plague against the bot, played by clicking: after each move the grid shows
//   each of the view's tiles (human, cure, plague in their cells, and nothing else),
//   the score and the seats' roles and reserve time as the view has them.
// - Masterminds against the bot, played by clicking: the hand shows the view's cards
//   (names, strengths, which are played), the history table grows by a row each turn,
//   and the strengths a Reveal showed appear in the table, the last result and the log.
// Screenshots: match-hexspiel, match-cure-plague, match-masterminds, each also -phone
// (360 px wide).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { launchBrowser, screenshot, startCluster } from "./harness.mjs";
import { collectErrors, guestClient, myTurnOrEnd, openMatch, playOne, send } from "./match-kit.mjs";

let cluster, browser;
before(async () => {
  cluster = await startCluster();
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  await cluster?.stop();
});

const DESKTOP = { width: 1200, height: 900 };
const PHONE = { width: 360, height: 780 };

/** As the page words a count: "1 tile", "3 tiles". */
const plural = (n, one) => `${n} ${n === 1 ? one : `${one}s`}`;

/** As the page's clocks show a time ("5:00", "0:42"). */
function clock(ms) {
  const t = Math.max(0, Math.ceil(ms / 1000));
  return `${Math.floor(t / 60)}:${String(t % 60).padStart(2, "0")}`;
}

/** The game's view of `matchId` as `api`'s session sees it, with the response. */
async function viewOf(api, matchId) {
  const r = await api.getView({ matchId });
  return { resp: r, v: r.view?.game.value };
}

/** Polls `api`'s view until `ok(resp)`: a bot's move or a reveal has come. */
async function viewWhen(api, matchId, ok, what) {
  const until = Date.now() + 20_000;
  for (;;) {
    const got = await viewOf(api, matchId);
    if (ok(got.resp)) return got;
    if (Date.now() > until) throw new Error(`the view never showed ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Opens a second page of `context` 360 px wide on the match, waits for `ready`, saves the
 * screenshot `name`; answers the page's horizontal overflow and what `measure` found. */
async function phoneShot(context, matchId, session, name, ready, measure) {
  const phone = await context.newPage();
  const errors = collectErrors(phone);
  await phone.setViewportSize(PHONE);
  await openMatch(phone, cluster.url, matchId, session);
  await ready(phone);
  const overflow = await phone.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  const measured = await phone.locator(".matchpage .board").evaluate(measure);
  await screenshot(phone, name);
  await phone.close();
  assert.deepEqual(errors, []);
  return { overflow, measured };
}

// Hexspiel ------------------------------------------------------------------------------

const HEX_OPTIONS = JSON.stringify({ prizes: [[1, 2, 3, 4, 5, 6, 7]] });

/** Each of the 64 cells as the SVG draws it: its name (from its label), the stone drawn in
 * it (0, 1 or null), whether that stone's centre lies inside the cell, and the label. */
function drawnCells(page) {
  return page.locator("svg.hexboard g.cell").evaluateAll((gs) =>
    gs.map((g) => {
      const poly = g.querySelector("polygon");
      const label = poly?.getAttribute("aria-label") ?? "";
      const circle = g.querySelector("circle.stone");
      let inside = false;
      if (circle && poly) {
        const b = poly.getBBox();
        const cx = Number(circle.getAttribute("cx"));
        const cy = Number(circle.getAttribute("cy"));
        inside = cx > b.x && cx < b.x + b.width && cy > b.y && cy < b.y + b.height;
      }
      const seat = circle?.classList.contains("seat0") ? 0 : circle?.classList.contains("seat1") ? 1 : null;
      return { cell: label.split(":")[0], seat, inside, label, cls: g.getAttribute("class") };
    }),
  );
}

/** A spectator page's text with what differs between any two matches (the id, the clocks)
 * taken out. */
async function spectatorText(page) {
  const text = await page.locator(".matchpage").innerText();
  return text.replace(/match [0-9a-f]{8}/, "match ID").replace(/\b\d+:\d\d\b/g, "M:SS");
}

test("a spectator's Hexspiel board shows the stones its view lists, and a sealed bid is only said to be sealed", async () => {
  const started = Date.now();
  const blue = await guestClient(cluster.url, "Blue Player");
  const red = await guestClient(cluster.url, "Red Player");
  const move = (who, matchId, kind) =>
    who.api.submitMove({
      matchId,
      move: { game: { case: "hexspiel", value: { kind } } },
      idempotencyKey: crypto.randomUUID(),
    });
  const bid = (who, matchId, card) => move(who, matchId, { case: "bid", value: BigInt(card) });
  const place = (who, matchId, cells) => move(who, matchId, { case: "hex", value: { place: cells } });

  // Twins: the same prize order and moves; only Blue's sealed bid of round 3 differs.
  const sealed = [2, 6];
  const twins = [];
  for (const card of sealed) {
    const { matchId } = await blue.api.createMatch({
      game: "hexspiel",
      optionsJson: HEX_OPTIONS,
      opponent: { kind: { case: "open", value: {} } },
      seat: 0,
      idempotencyKey: crypto.randomUUID(),
    });
    assert.equal((await red.api.joinMatch({ matchId })).seat, 1);
    // Round 1 (worth 1, 8 AP): Blue wins and places two stones.
    await bid(blue, matchId, 7);
    await bid(red, matchId, 1);
    await place(blue, matchId, ["d4", "d5"]);
    // Round 2 (worth 2, 7 AP): Red wins and places two.
    await bid(blue, matchId, 1);
    await bid(red, matchId, 8);
    await place(red, matchId, ["e4", "f4"]);
    // Round 3: Blue seals its bid, Red owes its own.
    await bid(blue, matchId, card);
    twins.push(matchId);
  }

  const watcher = await guestClient(cluster.url, "Spectator");
  const context = await browser.newContext({ viewport: DESKTOP });
  const pages = [];
  const errors = [];
  for (const id of twins) {
    const page = await context.newPage();
    errors.push(collectErrors(page));
    await openMatch(page, cluster.url, id, watcher.session);
    pages.push(page);
  }

  for (const [i, id] of twins.entries()) {
    const page = pages[i];
    // The spectator's own view: no seat, no hand, no bid of Blue's, only that it moved.
    const { resp, v } = await viewOf(watcher.api, id);
    assert.equal(resp.seat, undefined, "the watcher holds no seat");
    assert.equal(resp.view?.game.case, "hexspiel");
    assert.deepEqual([...resp.toMove], [1]);
    assert.deepEqual([...v.moved], [0]);
    assert.equal(v.myBid, undefined);
    assert.equal(v.hand, undefined);
    assert.deepEqual([...v.stones0].sort(), ["d4", "d5"]);
    assert.deepEqual([...v.stones1].sort(), ["e4", "f4"]);

    await page.getByText("You are watching").waitFor();
    const board = page.locator("svg.hexboard");
    await board.and(page.getByRole("group", { name: "Hex board: Blue has 2 stones, Red has 2 stones" })).waitFor();
    // Every cell: a stone exactly where the view has one, of its seat, drawn inside the cell.
    const owner = new Map([...v.stones0.map((c) => [c, 0]), ...v.stones1.map((c) => [c, 1])]);
    const cells = await drawnCells(page);
    assert.equal(cells.length, 64);
    const names = cells.map((c) => c.cell).sort();
    const all = [..."abcdefgh"].flatMap((col) => [1, 2, 3, 4, 5, 6, 7, 8].map((row) => `${col}${row}`)).sort();
    assert.deepEqual(names, all, "each of the 64 cells once");
    for (const c of cells) {
      const seat = owner.get(c.cell) ?? null;
      assert.equal(c.seat, seat, `${c.cell}: the stone drawn is the view's (${c.label})`);
      if (seat !== null) {
        assert.ok(c.inside, `${c.cell}: the stone is drawn inside its cell`);
        assert.equal(c.label, `${c.cell}: ${seat === 0 ? "Blue" : "Red"} stone`);
        assert.match(c.cls, new RegExp(`\\bstone${seat}\\b`));
      } else {
        const cost = v.costs["abcdefgh".indexOf(c.cell[0]) + 8 * (Number(c.cell.slice(1)) - 1)];
        assert.equal(c.label, `${c.cell}: empty, costs ${cost} AP`);
      }
    }
    assert.equal(await board.locator("circle.stone").count(), owner.size, "no other stone is drawn");
    // A spectator gets nothing to click.
    assert.equal(await board.getByRole("button").count(), 0);
    assert.equal(await page.getByRole("region", { name: "Your bidding cards" }).count(), 0);

    // The bid: sealed, its value not said.
    await page.locator(".board .moved").getByText("Blue has bid. Red has not bid yet.").waitFor();
    await page.getByText("Blue sealed a bid.").first().waitFor();
    assert.match(await page.locator(".board .status").innerText(), /^Set 1 · round 3 of 7 · Both players bid for the prize\.$/);
    assert.equal(await page.locator(".board .lastresult").innerText(), "Last round: Blue bid 1, Red bid 8: Red won the worth-2 prize.");
  }

  // The twins differ only in Blue's sealed card: the spectator's pages are the same, text,
  // board markup (the SVG with its labels) and log alike.
  const [a, b] = pages;
  await a.waitForTimeout(300); // anything still on its way arrives
  assert.equal(await a.locator(".matchpage .board").innerHTML(), await b.locator(".matchpage .board").innerHTML());
  assert.equal(await a.locator(".eventlog").innerText(), await b.locator(".eventlog").innerText());
  const [ta, tb] = [await spectatorText(a), await spectatorText(b)];
  assert.equal(ta, tb, "the spectator's page says the same in both twins");
  assert.doesNotMatch(ta, /Blue bid [26]\b|bid your|You bid/);

  await screenshot(a, "match-hexspiel");
  const { overflow, measured } = await phoneShot(
    context,
    twins[0],
    watcher.session,
    "match-hexspiel-phone",
    (p) => p.locator(".board .moved").getByText("Blue has bid.").waitFor(),
    (board) => {
      const svg = board.querySelector("svg.hexboard");
      const box = svg.getBoundingClientRect();
      const scale = box.width / svg.viewBox.baseVal.width;
      const cost = svg.querySelector("text.cost");
      const px = parseFloat(getComputedStyle(cost).fontSize) * scale;
      return `board ${Math.round(box.width)}x${Math.round(box.height)} px, drawn at ${scale.toFixed(2)}x, cost digits ${px.toFixed(1)} px`;
    },
  );
  console.log(`# hexspiel at 360 px: horizontal overflow ${overflow} px; ${measured}`);
  assert.ok(overflow <= 0, `the Hexspiel page fits 360 px (overflows by ${overflow} px)`);

  // Red bids 3 in both: the round is revealed, and now the twins' pages part.
  for (const id of twins) await bid(red, id, 3);
  await a.getByText("Blue bid 2, Red bid 3: Red won the worth-3 prize.").first().waitFor();
  await b.getByText("Blue bid 6, Red bid 3: Blue won the worth-3 prize.").first().waitFor();
  assert.notEqual(await spectatorText(a), await spectatorText(b));
  for (const e of errors) assert.deepEqual(e, []);
  await context.close();
  console.log(`# hexspiel: ${Date.now() - started} ms`);
});

// Cure & Plague ---------------------------------------------------------------------------

/** Checks the page against the view: the grid's tiles, the score, the roles, the reserves. */
async function checkCurePlague(page, resp, v) {
  const tiles = v.tiles.length;
  const grid = page.locator("svg.cpgrid");
  await grid.and(page.getByRole("group", { name: `Grid of game ${v.game}: ${plural(tiles, "tile")}` })).waitFor();
  const labels = await grid.locator("rect[aria-label]").evaluateAll((rs) => rs.map((r) => r.getAttribute("aria-label") ?? ""));
  const byCell = new Map(labels.map((l) => [l.split(": ")[0], l]));
  const xy = (c) => `(${Number(c.x)}, ${Number(c.y)})`;
  for (const [i, t] of v.tiles.entries()) {
    assert.match(byCell.get(xy(t.human)) ?? "", /^\(-?\d+, -?\d+\): a (living|dead) human$/, `tile ${i + 1}'s human`);
    assert.match(byCell.get(xy(t.cure)) ?? "", /^\(-?\d+, -?\d+\): a cure$/, `tile ${i + 1}'s cure`);
    assert.match(byCell.get(xy(t.plague)) ?? "", /^\(-?\d+, -?\d+\): a (neutralized )?plague$/, `tile ${i + 1}'s plague`);
  }
  const placed = labels.filter((l) => / a (living human|dead human|cure|plague|neutralized plague)$/.test(l));
  assert.equal(placed.length, 3 * tiles, "the grid shows the view's tiles' cells and no others");
  const count = (re) => placed.filter((l) => re.test(l)).length;
  assert.equal(count(/ human$/), tiles);
  assert.equal(count(/ a cure$/), tiles);
  assert.equal(count(/ plague$/), tiles);
  assert.equal(await grid.locator(".glyph").count(), 3 * tiles, "a glyph in each placed cell");
  // The humans alive and the plagues neutralized are the view's score.
  assert.equal(count(/ a living human$/), v.score.survivors, "living humans drawn = the score's survivors");
  assert.equal(count(/ a neutralized plague$/), v.score.neutralized, "neutralized plagues drawn = the score's");
  const table = await page.locator(".board.cureplague .table").innerText();
  assert.match(table, new RegExp(`^Game ${v.game} of 2 · ${plural(tiles, "tile")} of 21 · `));
  assert.ok(
    table.includes(`${plural(v.score.survivors, "human")} alive (the Cure's score), ${plural(v.score.neutralized, "plague cell")} neutralized.`),
    `the score shown is the view's: ${table}`,
  );
  // Each seat's role and reserve time as the view has them.
  const reserve = [v.reserveMs0, v.reserveMs1].map(Number);
  for (const s of [0, 1]) {
    const panel = page.locator(`.seatbar .seatpanel.seat${s}`);
    assert.equal(await panel.locator(".value").innerText(), s === v.cure ? "Cure" : "Plague", `seat ${s}'s role`);
    assert.equal(await panel.locator(".reserve").innerText(), `reserve ${clock(reserve[s])}`, `seat ${s}'s reserve`);
  }
  assert.ok(resp.toMove.length === 1, "one seat to move");
}

test("Cure & Plague against the bot by clicking: the grid, score, roles and reserves are the view's", async () => {
  const started = Date.now();
  const me = await guestClient(cluster.url, "Cure Player");
  const { matchId } = await me.api.createMatch({
    game: "cure-plague",
    optionsJson: "",
    opponent: { kind: { case: "bot", value: "random" } },
    seat: 0,
    idempotencyKey: crypto.randomUUID(),
  });
  const context = await browser.newContext({ viewport: DESKTOP });
  const page = await context.newPage();
  const errors = collectErrors(page);
  await openMatch(page, cluster.url, matchId, me.session);
  await page.getByRole("heading", { name: "Cure & Plague", level: 1 }).waitFor();
  await page.getByText("Bot “random” (Red)").first().waitFor();

  let tiles = 0;
  for (let moves = 0; moves < 4; moves++) {
    assert.ok(await myTurnOrEnd(page), "the match goes on");
    // The bot has moved when the view owes seat 0 a move.
    const { resp, v } = await viewWhen(me.api, matchId, (r) => r.toMove.includes(0), "seat 0 to move");
    assert.ok(v.tiles.length > tiles, `tiles were placed (${tiles} -> ${v.tiles.length})`);
    tiles = v.tiles.length;
    await checkCurePlague(page, resp, v);
    await playOne["cure-plague"](page);
  }
  assert.ok(await myTurnOrEnd(page));
  const { resp, v } = await viewWhen(me.api, matchId, (r) => r.toMove.includes(0), "seat 0 to move");
  await checkCurePlague(page, resp, v);
  assert.ok(v.tiles.length >= 9, `four tiles of mine and the bot's are down (${v.tiles.length} tiles)`);
  await screenshot(page, "match-cure-plague");
  const { overflow, measured } = await phoneShot(
    context,
    matchId,
    me.session,
    "match-cure-plague-phone",
    (p) => p.getByRole("group", { name: `Grid of game ${v.game}: ${plural(v.tiles.length, "tile")}` }).waitFor(),
    (board) => {
      const svg = board.querySelector("svg.cpgrid");
      const box = svg.getBoundingClientRect();
      const cell = svg.querySelector("rect[aria-label]").getBoundingClientRect();
      const wrap = board.querySelector(".gridwrap");
      return `grid ${Math.round(box.width)}x${Math.round(box.height)} px (cells ${cell.width.toFixed(1)} px), its wrapper scrolls ${wrap.scrollWidth - wrap.clientWidth} px`;
    },
  );
  console.log(`# cure & plague at 360 px: horizontal overflow ${overflow} px; ${measured}`);
  assert.ok(overflow <= 0, `the Cure & Plague page fits 360 px (overflows by ${overflow} px)`);
  assert.deepEqual(errors, []);
  await context.close();
  console.log(`# cure & plague: ${Date.now() - started} ms`);
});

// Masterminds ----------------------------------------------------------------------------

/** The ten cards in the enum's order, with their strength fields. */
const MM = [
  ["Bluff", "bluff"],
  ["Counterspell", "counterspell"],
  ["Empower", "empower"],
  ["Fireball", "fireball"],
  ["Kill", "kill"],
  ["Mayhem", "mayhem"],
  ["Offering", "offering"],
  ["Reveal", "reveal"],
  ["Swap", "swap"],
  ["Warp Time", "warpTime"],
];
const REVEAL = 8;

/** The hand as drawn: each card's name, strength, whether it was played, whether enabled. */
function drawnHand(page) {
  return page
    .getByRole("region", { name: "Your cards" })
    .locator("button.cardface")
    .evaluateAll((bs) =>
      bs.map((b) => ({
        label: b.getAttribute("aria-label") ?? "",
        strength: b.querySelector(".mmstr")?.textContent ?? "",
        name: b.querySelector(".mmname")?.textContent ?? "",
        spent: b.classList.contains("spent"),
        enabled: !b.disabled,
      })),
    );
}

/** The history table's rows as drawn (current bout and earlier ones). */
function historyRows(page) {
  return page
    .getByRole("region", { name: "Turns so far" })
    .locator("tbody tr")
    .evaluateAll((rows) => rows.map((r) => [...r.querySelectorAll("td")].map((td) => td.textContent ?? "")));
}

test("Masterminds against the bot by clicking: the hand is the view's, the history grows, a Reveal's strengths are shown", async () => {
  const started = Date.now();
  const me = await guestClient(cluster.url, "Mastermind");
  const { matchId } = await me.api.createMatch({
    game: "masterminds",
    optionsJson: "",
    opponent: { kind: { case: "bot", value: "random" } },
    seat: 0,
    idempotencyKey: crypto.randomUUID(),
  });
  const context = await browser.newContext({ viewport: DESKTOP });
  const page = await context.newPage();
  const errors = collectErrors(page);
  await openMatch(page, cluster.url, matchId, me.session);
  await page.getByRole("heading", { name: "Masterminds Duel", level: 1 }).waitFor();
  await page.getByText("No turn has been played yet.").waitFor();

  let revealed = null;
  let turns = 0;
  // Until a Reveal has shown strengths, at least three turns are played and the current
  // bout has two rows (a bout may end early: then its rows fold under "Earlier bouts").
  let inBout = 0;
  for (; turns < 24 && (turns < 3 || !revealed || inBout < 2); turns++) {
    assert.ok(await myTurnOrEnd(page), "the match goes on");
    const { resp, v } = await viewWhen(
      me.api,
      matchId,
      (r) => r.view?.game.value.history.length === turns && r.toMove.includes(0),
      `turn ${turns + 1} owed`,
    );
    // The hand: all ten cards, each with the view's strength, the held ones playable.
    const held = new Set(v.myHand.cards);
    const legal = new Set(resp.legalMoves.map((m) => m.game.value.card));
    await page.locator(".board.masterminds .status").getByText(`Bout ${v.bout} of 7 · turn ${v.turn + 1} of 9`).waitFor();
    const hand = await drawnHand(page);
    assert.equal(hand.length, 10);
    for (const [i, [name, key]] of MM.entries()) {
      const card = i + 1;
      const s = v.myStrengths[key];
      const h = hand[i];
      assert.equal(h.name, name);
      assert.equal(h.strength, String(s), `${name}'s strength is the view's`);
      assert.ok(h.label.startsWith(`${name}, strength ${s}${held.has(card) ? ":" : ", played this bout:"}`), h.label);
      assert.equal(h.spent, !held.has(card), `${name} ${held.has(card) ? "held" : "played"}`);
      assert.equal(h.enabled, legal.has(card), `${name} playable as the legal moves say`);
    }
    // The history: a row per resolved turn, one more each turn.
    const rows = await historyRows(page);
    assert.equal(rows.length, v.history.length, "a history row per resolved turn");
    assert.equal(rows.length, turns);

    // Reveal when it is held, else the first card held (a Bluff shown as the first choice).
    const reveal = legal.has(REVEAL) && !revealed;
    const mine = page.getByRole("region", { name: "Your cards" });
    let played;
    if (reveal) {
      await mine.getByRole("button", { name: /^Reveal, strength / }).click();
      played = "Reveal";
      await send(page, mine.getByRole("button", { name: "Play Reveal" }));
    } else {
      played = (await mine.locator("button.cardface:enabled .mmname").first().textContent()) ?? "";
      await playOne.masterminds(page);
    }
    await page.getByText(new RegExp(`^You played ${played}`)).first().waitFor();

    // The turn resolves (the bot commits at once): the table has a row more, the view's.
    const after = await viewWhen(me.api, matchId, (r) => r.view?.game.value.history.length === turns + 1 || !!r.outcome, `turn ${turns + 1} resolved`);
    const last = after.v.history.at(-1);
    await page.waitForFunction(
      (n) => document.querySelectorAll('section[aria-label="Turns so far"] tbody tr').length === n,
      turns + 1,
    );
    const now = await historyRows(page);
    const row = now.find((r) => r[0].startsWith(`${last.bout}.${last.turn}`));
    assert.ok(row, `a row for turn ${last.bout}.${last.turn}`);
    assert.ok(row[1].startsWith(played), `my card in the row: ${row[1]} (played ${played})`);
    const p = [Number(last.points?.seat0 ?? 0), Number(last.points?.seat1 ?? 0)];
    assert.equal(row[4], `${p[0]}–${p[1]}`, "the turn's points");
    assert.equal(row[3], last.winner === undefined ? "tie" : last.winner === 0 ? "You" : "The bot", "the turn's winner");
    if (last.revealed) {
      const rv = [Number(last.revealed.seat0), Number(last.revealed.seat1)];
      assert.equal(row[5], `${rv[0]}–${rv[1]}`, "the Reveal column shows the view's strengths");
      assert.ok(
        (await page.locator(".board .lastresult").innerText()).endsWith(`; Reveal showed strengths ${rv[0]} and ${rv[1]}.`),
        "the last result says what the Reveal showed",
      );
      await page
        .locator(".eventlog")
        .getByText(`Reveal: in turn ${last.turn} the cards had strength ${rv[0]} (your) and ${rv[1]} (the bot's).`)
        .waitFor();
      revealed = { turn: `${last.bout}.${last.turn}`, rv };
    } else {
      assert.equal(row[5], "", "no strengths shown without a Reveal");
    }
    inBout = after.v.history.filter((t) => t.bout === after.v.bout).length;
    if (after.resp.outcome) break;
  }
  assert.ok(revealed, `a Reveal resolved within ${turns} turns`);
  assert.ok(turns >= 3, `${turns} turns played`);
  console.log(`# masterminds: ${turns} turns; Reveal showed ${revealed.rv.join("–")} in turn ${revealed.turn}`);

  await screenshot(page, "match-masterminds");
  const { overflow, measured } = await phoneShot(
    context,
    matchId,
    me.session,
    "match-masterminds-phone",
    (p) => p.getByRole("region", { name: "Turns so far" }).locator("table").first().locator("tbody tr").first().waitFor(),
    (board) => {
      const wrap = board.querySelector(".history .tablewrap");
      const right = wrap.getBoundingClientRect().right;
      const hidden = [...wrap.querySelectorAll("thead th")]
        .filter((th) => th.getBoundingClientRect().right > right + 1)
        .map((th) => th.textContent);
      return `history table ${wrap.scrollWidth} px wide in ${wrap.clientWidth} px (scrolls sideways); columns cut off: ${hidden.join(", ") || "none"}`;
    },
  );
  console.log(`# masterminds at 360 px: horizontal overflow ${overflow} px; ${measured}`);
  assert.ok(overflow <= 0, `the Masterminds page fits 360 px (overflows by ${overflow} px)`);
  assert.deepEqual(errors, []);
  await context.close();
  console.log(`# masterminds: ${Date.now() - started} ms`);
});
