// Builds the web client into dist/: esbuild bundles src/main.tsx (with the messages
// generated from proto/ by `npm run gen`) into one script and one stylesheet; the page is
// static/index.html, which loads them (no inline script: the gateway's CSP forbids it).
import * as esbuild from "esbuild";
import { copyFileSync, mkdirSync } from "node:fs";

const dev = process.argv.includes("--dev");
mkdirSync("dist", { recursive: true });
await esbuild.build({
  entryPoints: ["src/main.tsx"],
  bundle: true,
  format: "esm",
  target: ["es2022"],
  jsx: "automatic",
  jsxImportSource: "preact",
  minify: !dev,
  sourcemap: dev ? "inline" : false,
  outfile: "dist/app.js",
  logLevel: "warning",
  legalComments: "none",
});
for (const f of ["index.html", "style.css", "favicon.svg"]) copyFileSync(`static/${f}`, `dist/${f}`);
console.log("web: built dist/ (app.js, index.html, style.css)");
