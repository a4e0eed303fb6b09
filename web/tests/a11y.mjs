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
    const all = await page.getByRole(role).count();
    const named = await page.getByRole(role, { name: /\S/ }).count();
    if (named !== all) unnamed.push(`${all - named} ${role}(s)`);
  }
  assert.deepEqual(unnamed, [], `${what}: controls without an accessible name`);
}
