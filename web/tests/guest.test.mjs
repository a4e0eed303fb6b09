// A guest signs in from the sign-in page under a chosen name, plays as that name in the
// lobby, and logs out: the page forgets the session and the server refuses its token.
// Also: the token is never in the URL, the DOM or the console. Screenshots: login, lobby
// (desktop and phone width).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { launchBrowser, screenshot, startCluster } from "./harness.mjs";
import { grpcWebStatus } from "./grpcweb.mjs";
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

test("a guest signs in with a chosen name and logs out", async () => {
  const context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
  const page = await context.newPage();
  const console_ = [];
  page.on("console", (m) => console_.push(m.text()));
  await page.goto(`${cluster.url}/#/login`);
  await page.getByRole("heading", { name: "Sign in", level: 1 }).waitFor();
  // The password rule is said before anything is typed.
  await assert.doesNotReject(page.getByText("At least 8 characters").waitFor());
  await assertNamedControls(page, "sign-in page");
  await screenshot(page, "login");

  // By keyboard alone: Tab to the guest's name field, type, Enter.
  const nameBox = page.getByRole("textbox", { name: "Display name", exact: true });
  for (let i = 0; i < 20 && !(await nameBox.evaluate((el) => el === document.activeElement)); i++) await page.keyboard.press("Tab");
  await page.keyboard.type("Ada Guest");
  await page.keyboard.press("Enter");
  await page.getByRole("heading", { name: "Lobby", level: 1 }).waitFor();
  const badge = page.locator("header .who");
  await badge.getByRole("link", { name: /Ada Guest/ }).waitFor();
  assert.match(await badge.innerText(), /guest/);

  const held = await page.evaluate(() => JSON.parse(localStorage.getItem("colosseum.session") ?? "null"));
  assert.ok(held?.token, "the session is kept in localStorage");
  assert.equal(held.displayName, "Ada Guest");
  assert.equal(held.account, false);
  // The guest can use the lobby: the games and their bots are listed.
  await page.getByRole("button", { name: /Play Goofspiel \(GOPS\) against the .* bot/ }).first().waitFor();
  await page.getByRole("heading", { name: "Open seeks" }).waitFor();
  await assertNamedControls(page, "lobby");
  await screenshot(page, "lobby");
  const phone = await context.newPage();
  await phone.setViewportSize({ width: 360, height: 780 });
  await phone.goto(`${cluster.url}/#/`);
  await phone.getByRole("heading", { name: "Quick pairing" }).waitFor();
  await phone.getByRole("button", { name: /against the .* bot/ }).first().waitFor();
  const overflow = await phone.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 0, `the lobby fits 360 px (overflows by ${overflow} px)`);
  await assertNamedControls(phone, "lobby at 360 px");
  await screenshot(phone, "lobby-phone");
  await phone.close();

  // The token is in no URL, nowhere in the DOM, never logged.
  assert.ok(!page.url().includes(held.token));
  assert.ok(!(await page.content()).includes(held.token));
  assert.ok(!console_.some((l) => l.includes(held.token)));
  assert.equal(await grpcWebStatus(cluster.url, "colosseum.v1.LobbyService/GetProfile", held.token), 0);

  await badge.getByRole("button", { name: "Log out" }).click();
  await badge.getByRole("link", { name: "Sign in" }).waitFor();
  assert.equal(await page.evaluate(() => localStorage.getItem("colosseum.session")), null);
  // The server refuses the old token from now on (UNAUTHENTICATED).
  assert.equal(await grpcWebStatus(cluster.url, "colosseum.v1.LobbyService/GetProfile", held.token), 16);

  // A session the server no longer takes (ended elsewhere) is forgotten when the page opens.
  await page.evaluate((s) => localStorage.setItem("colosseum.session", JSON.stringify(s)), held);
  await page.reload();
  await badge.getByText("Your session has ended.").waitFor();
  await badge.getByRole("link", { name: "Sign in" }).waitFor();
  assert.equal(await page.evaluate(() => localStorage.getItem("colosseum.session")), null);
  await context.close();
});
