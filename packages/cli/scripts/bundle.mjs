// Bundles the two CLI entry points (after `tsc -b`) into dist/bundle/ so that start-up loads a few
// files instead of ~280 modules (most of the cost of `shellgate sandbox` / `policy-check` used to be
// module resolution and loading). Behaviour is the same as running dist/bin/*.js directly:
// - code splitting keeps each command module (`import(`./commands/${module}/index.js`)` in run-command.ts)
//   and every other dynamic import in its own chunk, loaded only when used;
// - execpolicy's compile module: its loader (compile-loader.ts) `require`s it synchronously by its
//   declared subpath export, `@shellgate/execpolicy/compiler`. esbuild cannot see through
//   `createRequire`, so Node resolves that name from node_modules at run time (the synchronous entry
//   points, e.g. `collectExampleResults`); the async ones (`loadPolicy`) preload it with a plain
//   `import("./compile.js")`, an ordinary chunk here. No file in dist/bundle/ has to carry a
//   particular name;
// - packages that load files relative to their own modules (.wasm, native addons) or that are large
//   and only used by some commands stay external and are imported from node_modules as before.
import { createRequire } from "node:module";
import { readFile, rm } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const require = createRequire(import.meta.url);
const outdir = join(root, "dist", "bundle");
const zodNamespace = join(dirname(require.resolve("zod/package.json")), "v4", "classic", "external.js");

/**
 * Our packages write `import { z } from "zod"`. zod's entry exports `z` as a namespace object, and a
 * bundler that sees the namespace escape must keep every export behind it (all ~60 locales, JSON Schema
 * import/export), ~800 KB that V8 then has to compile on every start. Importing the same module as a
 * namespace (`import * as z`) and only reading members from it lets esbuild keep just what is used:
 * the same zod modules and instances, minus unused exports.
 */
const zodMembers = {
  name: "zod-namespace-import",
  setup(b) {
    b.onLoad({ filter: /[\\/]packages[\\/][^\\/]+[\\/]dist[\\/].*\.js$/ }, async (args) => {
      const source = await readFile(args.path, "utf8");
      const namespaceImport = `import * as z from ${JSON.stringify(zodNamespace)};`;
      let rewritten = source.replaceAll('import { z } from "zod";', namespaceImport);
      // A dynamic `import("zod")` hands out the whole namespace, which would keep everything again. The
      // one module doing it (policy-check/batch.ts) is itself loaded lazily, so a module-level namespace
      // import there loads zod no earlier than the command that needs it.
      const lazy = '  const { z } = await import("zod");\n';
      if (rewritten.includes(lazy)) rewritten = `${namespaceImport}\n${rewritten.replaceAll(lazy, "")}`;
      return rewritten === source ? undefined : { contents: rewritten, loader: "js", resolveDir: dirname(args.path) };
    });
  },
};

const EXTERNAL = [
  "node-pty",
  "web-tree-sitter",
  "tree-sitter-bash",
  "chevrotain",
  "@xterm/headless",
  "tree-kill",
  "execa",
  "@modelcontextprotocol/sdk",
  // the network proxy and its CommonJS protocol libraries, loaded with the first proxy-routed run
  "@shellgate/network-proxy",
  // required by name at run time (see above); listed so that an import of it is never inlined either
  "@shellgate/execpolicy/compiler",
];

await rm(outdir, { recursive: true, force: true });
const result = await build({
  entryPoints: {
    shellgate: join(root, "dist", "bin", "shellgate.js"),
    "policy-check": join(root, "dist", "bin", "policy-check.js"),
  },
  outdir,
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  // Error classes set `this.name = new.target.name`; keep class names even where bundling renames them.
  keepNames: true,
  // Start-up compiles every loaded chunk: without comments and whitespace there is less to read and
  // scan, and pure-ASCII files stay one-byte strings in V8 (a dash in a comment made a 215 KB chunk
  // two-byte). Measured, CPU time, interleaved A/B: exec -- /bin/true 9-13 ms, sandbox 6 ms faster.
  // Identifiers are kept, so a --debug stack trace stays readable without source maps.
  minifyWhitespace: true,
  minifySyntax: true,
  charset: "ascii",
  external: EXTERNAL.flatMap((p) => [p, `${p}/*`]),
  entryNames: "[name]",
  chunkNames: "[name]-[hash]",
  sourcemap: "linked",
  plugins: [zodMembers],
  metafile: true,
  logLevel: "warning",
});

const outputs = Object.entries(result.metafile.outputs).filter(([file]) => file.endsWith(".js"));
const bytes = outputs.reduce((n, [, o]) => n + o.bytes, 0);
process.stdout.write(`bundle: ${outputs.length} files, ${(bytes / 1024).toFixed(0)} KiB in dist/bundle/\n`);
