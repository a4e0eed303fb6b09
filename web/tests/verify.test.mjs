// The verify page: a real record (a GOPS match against the bot, played to its end by the
// test's own client) replays to the same result, opened from a file and fetched by its
// match id; the same record with one event changed is refused, naming that event; text
// that is no record at all is refused in plain words.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { launchBrowser, screenshot, startCluster } from "./harness.mjs";
import { finishedBotMatch } from "./api-kit.mjs";
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

test("a real record is accepted and a tampered one refused, naming the difference", async () => {
  const { matchId, recordJson } = await finishedBotMatch(cluster.url);
  const record = JSON.parse(recordJson);
  assert.equal(record.format, "colosseum-record/1");

  const page = await (await browser.newContext({ viewport: { width: 1200, height: 900 } })).newPage();
  const errors = [];
  page.on("pageerror", (e) => errors.push(e.message));
  await page.goto(`${cluster.url}/#/verify`);
  await page.getByRole("heading", { name: "Verify a match record" }).waitFor();
  await assertNamedControls(page, "verify page");

  // The real record, opened from a file: accepted.
  const file = join(cluster.home, `match-${matchId}.json`);
  writeFileSync(file, recordJson);
  await page.getByLabel("Open a record file (JSON)").setInputFiles(file);
  await page.waitForFunction((n) => document.querySelector("#record-text")?.value.length === n, recordJson.length);
  await page.getByRole("button", { name: "Check the record" }).click();
  const good = page.locator(".verdict.good");
  await good.waitFor();
  assert.match(await good.innerText(), /replays to the same result/);
  // The game is named by its title once the page has the games' list (ListGames, asked
  // once per page; until it comes, by its name): waited for, not read at once.
  await good.getByText(new RegExp(`Goofspiel \\(GOPS\\), ${record.steps.length} steps`)).waitFor();
  assert.equal(await page.locator(".verdict.bad").count(), 0);

  // One event changed: the first round's prize. Refused, naming that event.
  const i = record.events.findIndex((e) => e.event.type === "round_started");
  assert.ok(i >= 0);
  const tampered = structuredClone(record);
  const prize = tampered.events[i].event.prize;
  tampered.events[i].event.prize = prize === 13 ? 12 : prize + 1;
  await page.getByLabel("Or paste the record").fill(JSON.stringify(tampered, null, 2));
  assert.equal(await page.locator(".verdict").count(), 0, "an edit clears the old verdict");
  await page.getByRole("button", { name: "Check the record" }).click();
  const bad = page.locator(".verdict.bad");
  await bad.waitFor();
  const said = await bad.innerText();
  assert.match(said, /does not replay to the same result/);
  assert.match(said, new RegExp(`event ${i + 1}\\b`), `names event ${i + 1}: ${said}`);
  assert.match(said, /prize/, `names the field: ${said}`);
  await screenshot(page, "verify");

  // Not a record at all: a plain refusal, no verdict.
  await page.getByLabel("Or paste the record").fill('{"hello": "world"}');
  await page.getByRole("button", { name: "Check the record" }).click();
  await page.locator("p.error[role=alert]").waitFor();
  assert.equal(await page.locator(".verdict").count(), 0);

  // By match id (#/verify/<id>): the page fetches the record itself, then accepts it.
  await page.goto(`${cluster.url}/#/verify/${matchId}`);
  await page.waitForFunction((n) => document.querySelector("#record-text")?.value.length === n, recordJson.length);
  await page.getByRole("button", { name: "Check the record" }).click();
  await page.locator(".verdict.good").waitFor();
  assert.deepEqual(errors, []);
});
