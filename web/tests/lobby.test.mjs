// The lobby between three guests: a bot match at once (then listed as the player's own,
// with whose move it is), a seek posted by one and accepted by another (both land on the
// same match), a challenge link opened by a friend (who takes the open seat; the match is
// then the creator's, against that friend), live matches listed for a third person to
// watch, and a quick-pairing ticket cancelled.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { launchBrowser, startCluster } from "./harness.mjs";
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

const MATCH = /#\/match\/([0-9a-f-]{36})$/;

/** A guest under `name` in a browser of their own, in the lobby. */
async function guest(name) {
  const context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
  const page = await context.newPage();
  const errors = [];
  page.on("pageerror", (e) => errors.push(e.message));
  await page.goto(`${cluster.url}/#/login`);
  await page.getByRole("textbox", { name: "Display name", exact: true }).fill(name);
  await page.getByRole("button", { name: "Continue as guest" }).click();
  await page.getByRole("heading", { name: "Lobby", level: 1 }).waitFor();
  return { page, context, errors };
}

async function toLobby(page) {
  await page.goto(`${cluster.url}/#/`);
  await page.getByRole("heading", { name: "Lobby", level: 1 }).waitFor();
}

test("bots, seeks, challenge links, live matches and a cancelled ticket from the lobby", async () => {
  const ann = await guest("Ann");
  const bob = await guest("Bob");
  const cat = await guest("Cat");

  // A bot at once: to the match, and back in the lobby it is Ann's, her move.
  await ann.page.getByRole("button", { name: "Play Goofspiel (GOPS) against the random bot" }).click();
  await ann.page.waitForURL(MATCH);
  const botMatch = MATCH.exec(ann.page.url())[1];
  await ann.page.locator(".matchpage .board").waitFor();
  await toLobby(ann.page);
  const mine = ann.page.getByRole("region", { name: "Your matches in progress" });
  const botLine = mine.locator("li", { has: ann.page.locator(`a[href="#/match/${botMatch}"]`) });
  await botLine.waitFor();
  assert.match(await botLine.innerText(), /Goofspiel \(GOPS\) vs random\s*bot\s*· Your move/);

  // Ann posts a seek; Bob accepts it; both land on the same match.
  const seeks = ann.page.getByRole("region", { name: "Open seeks" });
  await seeks.getByLabel("Time per move").selectOption(String(5 * 60_000));
  await seeks.getByRole("button", { name: "Post a seek" }).click();
  await seeks.getByRole("status").filter({ hasText: "Your seek is posted (casual, 5 minutes a move)" }).waitFor();
  await assertNamedControls(ann.page, "lobby with a seek waiting");
  const accept = bob.page.getByRole("button", { name: "Accept Ann's Goofspiel (GOPS) seek" });
  await accept.waitFor({ timeout: 15_000 }); // the list is read again every 5 s
  await accept.focus(); // by keyboard
  await bob.page.keyboard.press("Enter");
  await bob.page.waitForURL(MATCH);
  await ann.page.waitForURL(MATCH, { timeout: 15_000 });
  const seekMatch = MATCH.exec(bob.page.url())[1];
  assert.equal(MATCH.exec(ann.page.url())[1], seekMatch, "the seek's two players share its match");

  // A challenge link: Bob opens it and takes the open seat; it is then Ann's match against Bob.
  await toLobby(ann.page);
  const challenge = ann.page.getByRole("region", { name: "Challenge a friend" });
  await challenge.getByRole("button", { name: "Make a link" }).click();
  const link = await challenge.getByLabel("Send this link to your friend").inputValue();
  const m = new RegExp(`^${cluster.url}/#/match/([0-9a-f-]{36})$`).exec(link);
  assert.ok(m, `a match link on the page's own origin: ${link}`);
  const challengeMatch = m[1];
  await challenge.getByRole("button", { name: "Copy link" }).waitFor();
  await bob.page.goto(link);
  await bob.page.locator(".matchpage .board").waitFor({ timeout: 20_000 });
  await toLobby(ann.page);
  const challengeLine = mine.locator("li", { has: ann.page.locator(`a[href="#/match/${challengeMatch}"]`) });
  await challengeLine.waitFor();
  await challengeLine.getByText("vs Bob").waitFor({ timeout: 15_000 });

  // Cat sees the matches being played, by name, and watches one.
  const live = cat.page.getByRole("region", { name: "Live matches" });
  await cat.page.reload();
  await live.locator(`a[href="#/match/${seekMatch}"]`).waitFor();
  const names = await live.locator("a").allInnerTexts();
  assert.ok(names.includes("Ann vs Bob") || names.includes("Bob vs Ann"), `live: ${names}`);
  assert.ok(names.some((n) => /Ann vs random|random vs Ann/.test(n)), `the bot match is live too: ${names}`);
  await live.getByLabel("Game").selectOption("hexspiel");
  await live.getByText("No match is being played right now.").waitFor();
  await live.getByLabel("Game").selectOption("gops");
  await live.locator(`a[href="#/match/${seekMatch}"]`).click();
  await cat.page.waitForURL(new RegExp(`#/match/${seekMatch}$`));
  await cat.page.locator(".matchpage .board").waitFor();

  // A quick-pairing ticket, cancelled.
  await toLobby(cat.page);
  const quick = cat.page.getByRole("region", { name: "Quick pairing" });
  assert.ok(await quick.getByLabel("Rated").isDisabled(), "a guest cannot ask for rated play");
  await quick.getByLabel("Game").selectOption("masterminds");
  await quick.getByRole("button", { name: "Find an opponent" }).click();
  await quick.getByRole("status").filter({ hasText: "In the queue (casual, 1 minute a move)" }).waitFor();
  await quick.getByRole("button", { name: "Cancel" }).click();
  await quick.getByRole("button", { name: "Find an opponent" }).or(quick.getByText("Cancelled.")).first().waitFor();

  assert.deepEqual([...ann.errors, ...bob.errors, ...cat.errors], []);
  for (const p of [ann, bob, cat]) await p.context.close();
});
