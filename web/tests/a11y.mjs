// Every control a page shows has an accessible name: buttons, links, text boxes, selects,
// check boxes (what a screen reader says for it), counted by role with and without a name.
import assert from "node:assert/strict";

const ROLES = ["button", "link", "textbox", "combobox", "checkbox", "radio", "spinbutton", "slider"];

/**
 * Fails naming the roles with controls that have no accessible name on `page` now.
 * @param {import("playwright-core").Page} page
 * @param {string} what the page, for the message
 */
export async function assertNamedControls(page, what) {
  const unnamed = [];
  for (const role of ROLES) {
    // The two counts are two looks at a live page (a list may gain a row between them):
    // they are compared only when the page held still across them.
    for (let tries = 1; ; tries++) {
      const all = await page.getByRole(role).count();
      const named = await page.getByRole(role, { name: /\S/ }).count();
      const again = await page.getByRole(role).count();
      if (all !== again && tries < 10) {
        await new Promise((r) => setTimeout(r, 100));
        continue;
      }
      if (named !== all) unnamed.push(`${all - named} ${role}(s)`);
      break;
    }
  }
  assert.deepEqual(unnamed, [], `${what}: controls without an accessible name`);
}
