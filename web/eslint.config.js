// The web client's lint: typescript-eslint's recommended rules, type-aware, over src/ and
// tests/ (the generated messages under src/gen are not linted).
import js from "@eslint/js";
import tseslint from "typescript-eslint";
import globals from "globals";

export default tseslint.config(
  { ignores: ["dist/", "src/gen/", "node_modules/"] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      "@typescript-eslint/switch-exhaustiveness-check": "error",
      "@typescript-eslint/no-floating-promises": "error",
      "no-console": ["error", { allow: ["warn", "error"] }],
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
    },
  },
  {
    files: ["tests/**", "build.mjs", "eslint.config.js"],
    rules: { "no-console": "off" },
  },
  // The tests and scripts are plain JavaScript run by node: not in the TypeScript project,
  // so linted without type information, with node's globals.
  {
    files: ["**/*.mjs", "**/*.js"],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: { ...tseslint.configs.disableTypeChecked.languageOptions, globals: { ...globals.node } },
  },
  // A test's page.evaluate callbacks run in the browser.
  { files: ["tests/**"], languageOptions: { globals: { ...globals.browser } } },
);
