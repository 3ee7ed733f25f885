// Bundles the two CLI entry points (after `tsc -b`) into dist/bundle/ so that start-up loads a few
// files instead of ~280 modules (without it, most of the cost of `shellgate sandbox` / `policy-check` is
// module resolution and loading). `shellgate` is one CommonJS file run through V8's code cache (see
// below); `policy-check` is built apart, as CommonJS files of its own. Behaviour is the same as running
// dist/bin/*.js directly:
// - each command module (`import(`./commands/${module}/index.js`)` in run-command.ts) and every other
//   internal dynamic import is a module body run only when used;
// - execpolicy's compile module: its loader (compile-loader.ts) `require`s it synchronously by its
//   declared subpath export, `@shellgate/execpolicy/compiler`. esbuild cannot see through
//   `createRequire`, so Node resolves that name from node_modules at run time (the synchronous entry
//   points, e.g. `collectExampleResults`); the async ones (`loadPolicy`) preload it with a plain
//   `import("./compile.js")`, an ordinary chunk of the shellgate bundle (policy-check's is a file of its
//   own, policy-check-compiler.cjs). No file in dist/bundle/ has to carry a
//   particular name;
// - packages that load files relative to their own modules (.wasm, native addons) or that are large
//   and only used by some commands stay external and are imported from node_modules as before.
import { createRequire } from "node:module";
import { chmod, readFile, rm, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Script } from "node:vm";
import { build } from "esbuild";
import { BUNDLE_HEADER } from "../dist/launch/run-bundle.js";
import { blankRedundantNames } from "./blank-names.mjs";

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
  "tree-sitter-powershell",
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

const common = {
  bundle: true,
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
  sourcemap: "linked",
  metafile: true,
  logLevel: "warning",
};

await rm(outdir, { recursive: true, force: true });

// The source packages are ES modules; a CommonJS file knows its own URL only as __filename.
const cjsUrl = {
  define: { "import.meta.url": "__importMetaUrl" },
  banner: { js: 'var __importMetaUrl = require("node:url").pathToFileURL(__filename).href;' },
};

// shellgate is one CommonJS file, run by dist/bundle/launch.cjs through V8's code cache (see
// src/launch/run-bundle.ts): a cached start neither parses nor compiles it, so one file of every
// command costs less than ES module chunks loaded per command (measured, interleaved: `sandbox --
// /bin/true` 177 → 128 ms, `exec -- /bin/true` 217 → 166 ms). Internal `import()`s become lazily run
// module bodies; those of external ES modules stay `import()` and are then renamed to the launcher's
// (`_sgimp`, as long as `import`, so that the source map still fits).
const SHELLGATE_FILE = join(outdir, "shellgate.cjs");
// esbuild reads an ES default or namespace import of a CommonJS module through `__toESM`, which copies
// every property of the module onto a new object, once per importing module: 69 copies of path, os,
// fs and fs/promises in shellgate.cjs, 3-4 ms of a start (measured alone). Builtins go through
// `__oneNS` instead (the rewrite below; same length, so the source map still fits): esbuild's own
// `__toESM`, made once per builtin and shared, as an ES module's namespace is.
const ONE_NAMESPACE = "var __oneNS = ((made) => (mod, isNodeMode) => { const byMode = made[isNodeMode ? 1 : 0]; let ns = byMode.get(mod); if (ns === undefined) byMode.set(mod, (ns = __toESM(mod, isNodeMode))); return ns; })([new WeakMap(), new WeakMap()]);";
const shellgate = await build({
  ...common,
  ...cjsUrl,
  entryPoints: [join(root, "dist", "bin", "shellgate.js")],
  outfile: SHELLGATE_FILE,
  format: "cjs",
  banner: { js: `${cjsUrl.banner.js}\n${ONE_NAMESPACE}` },
  supported: { "dynamic-import": true },
  external: EXTERNAL.flatMap((p) => [p, `${p}/*`]),
  plugins: [zodMembers],
});
{
  const code = await readFile(SHELLGATE_FILE, "utf8");
  if (code.includes("_sgimp")) throw new Error("bundle: shellgate.cjs already uses the name _sgimp");
  // Every real `import(` is a call; the one other occurrence is a string esbuild names a glob with.
  let rewritten = code.replace(/(?<!['"\w$.])import\(/g, "_sgimp(");
  const left = rewritten.match(/(?<!['"\w$.])import\(/g);
  if (left) throw new Error(`bundle: ${left.length} import() calls left in shellgate.cjs`);
  rewritten = rewritten.replaceAll('__toESM(require("node:', '__oneNS(require("node:');
  // The launcher reads the bundle as latin1 (a plain copy, no UTF-8 decoding), which is the same text
  // only while every byte is ASCII; `charset: "ascii"` escapes strings and identifiers but leaves
  // regular expression literals as written, so a curly quote in one would slip through.
  const nonAscii = rewritten.search(/[^\x00-\x7f]/);
  if (nonAscii >= 0) {
    const line = rewritten.slice(0, nonAscii).split("\n").length;
    throw new Error(`bundle: shellgate.cjs is not pure ASCII (line ${line}: ${JSON.stringify(rewritten.slice(nonAscii - 30, nonAscii + 10))}); write the character as an escape in the source`);
  }
  // The launcher compiles the file as it is (see BUNDLE_HEADER in src/launch/run-bundle.ts): the
  // CommonJS wrapper takes the shebang's line, so every other line keeps its number and columns and
  // the source map still fits; the file is no longer a script of its own.
  if (!rewritten.startsWith("#!")) throw new Error("bundle: shellgate.cjs does not start with the shebang line the wrapper replaces");
  rewritten = `${BUNDLE_HEADER}${rewritten.slice(rewritten.indexOf("\n"))}\n})`;
  // The rewrites above are textual: the bundle must still be the same program, and at least parse.
  try {
    new Script(rewritten, { filename: SHELLGATE_FILE });
  } catch (error) {
    throw new Error(`bundle: shellgate.cjs no longer parses after its rewrites: ${error.message}`);
  }
  await writeFile(SHELLGATE_FILE, rewritten);
  await chmod(SHELLGATE_FILE, 0o644);
}
const launch = await build({
  ...common,
  ...cjsUrl,
  entryPoints: [join(root, "dist", "launch", "shellgate-launch.js")],
  outfile: join(outdir, "launch.cjs"),
  format: "cjs",
  supported: { "dynamic-import": true },
});

// policy-check is built apart, as CommonJS files sharing nothing with the shellgate bundle. A check
// is over in a few milliseconds, so start-up is nearly all it costs, and an ES module start pays for
// Node's module loader (measured: an empty .mjs costs 9-18 ms of CPU more than `node -e 0`, an empty
// .cjs nothing) and for each chunk it links; the launcher (bin/, CommonJS by bin/package.json)
// `require`s policy-check.cjs. V8 compiles all of a file that `require` reads, so what a run does not
// always need is a file of its own, `require`d on first use (esbuild turns each such `import()` into a
// `require`: no ES module loader on any path):
// - policy-check.cjs: the entry, which answers `--version` itself;
// - policy-check-main.cjs: the command and execpolicy without its compiler;
// - policy-check-compiler.cjs: execpolicy's compiler, which a compiled-policy cache hit never loads
//   (90 of the 160 KB). Its copies of execpolicy's modules are distinct from the main file's, which
//   execpolicy's errors.ts allows for (`instanceof` holds across copies); nothing else crosses.
// zod (only `--stdin`) is loaded from node_modules.
const cjs = {
  ...common,
  ...cjsUrl,
  format: "cjs",
  supported: { "dynamic-import": false },
  external: [...EXTERNAL, "zod"].flatMap((p) => [p, `${p}/*`]),
};
/** Resolve `specifier` imported from a file matching `importer` to the sibling file `file`, unbundled. */
const apart = (specifier, importer, file) => ({
  name: `apart-${file}`,
  setup(b) {
    b.onResolve({ filter: new RegExp(`^${specifier.replaceAll(".", "\\.")}$`) }, (args) =>
      importer.test(args.importer) ? { path: `./${file}`, external: true } : undefined,
    );
  },
});
const COMPILER_FILE = "policy-check-compiler.cjs";
const MAIN_FILE = "policy-check-main.cjs";
const policyCheck = await build({
  ...cjs,
  entryPoints: [join(root, "dist", "bin", "policy-check.js")],
  outfile: join(outdir, "policy-check.cjs"),
  plugins: [apart("./policy-check-main.js", /[\\/]dist[\\/]bin[\\/]policy-check\.js$/, MAIN_FILE)],
});
const policyCheckMain = await build({
  ...cjs,
  entryPoints: [join(root, "dist", "bin", "policy-check-main.js")],
  outfile: join(outdir, MAIN_FILE),
  // compile-loader's async preload, `import("./compile.js")`
  plugins: [apart("./compile.js", /[\\/]execpolicy[\\/]dist[\\/]policy[\\/]compile-loader\.js$/, COMPILER_FILE)],
});
const policyCheckCompiler = await build({
  ...cjs,
  entryPoints: [require.resolve("@shellgate/execpolicy/compiler")],
  outfile: join(outdir, COMPILER_FILE),
});
for (const [result, what, file] of [[policyCheck, /[\\/]commands[\\/]policy-check[\\/]/, "policy-check.cjs"], [policyCheckMain, /[\\/]policy[\\/]compile\.js$/, MAIN_FILE]]) {
  const inlined = Object.keys(result.metafile.inputs).filter((f) => what.test(f));
  if (inlined.length) throw new Error(`bundle: ${file} holds what belongs in a file of its own (${inlined.join(", ")}); see apart()`);
}

// `keepNames` (see `common`) leaves ~2,000 `__name` calls in the files; most set a name the function
// or class has anyway and go (scripts/blank-names.mjs says which; same length, so the maps still fit).
for (const result of [shellgate, launch, policyCheck, policyCheckMain, policyCheckCompiler]) {
  for (const file of Object.keys(result.metafile.outputs).filter((f) => /\.c?js$/.test(f))) {
    const { code, removed, kept } = blankRedundantNames(await readFile(file, "latin1"));
    try {
      new Script(code, { filename: file });
    } catch (error) {
      throw new Error(`bundle: ${file} no longer parses after removing __name calls: ${error.message}`);
    }
    await writeFile(file, code, "latin1");
    if (process.env.SHELLGATE_BUNDLE_VERBOSE) process.stdout.write(`bundle: ${file}: ${removed} __name calls removed, ${kept} kept\n`);
  }
}

const outputs = [shellgate, launch, policyCheck, policyCheckMain, policyCheckCompiler].flatMap((result) => Object.entries(result.metafile.outputs)).filter(([file]) => /\.c?js$/.test(file));
const bytes = outputs.reduce((n, [, o]) => n + o.bytes, 0);
process.stdout.write(`bundle: ${outputs.length} files, ${(bytes / 1024).toFixed(0)} KiB in dist/bundle/\n`);
