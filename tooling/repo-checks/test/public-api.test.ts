// Every entry point's public names, pinned: a new export (or a lost one) fails here and shows up in review.
// An entry point is a package's `src/index.ts` and each subpath its package.json "exports" names; its list
// is `public-api/<package>[.<subpath>].txt`, one name per line, sorted. Types are erased at run time, so
// the names come from the declarations (the TypeScript checker), read from the sources.
import { existsSync, readFileSync, readdirSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const listDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../public-api");

interface EntryPoint { readonly list: string; readonly specifier: string; readonly source: string }

/** `./dist/x/index.js` (what the package.json exports) → `src/x/index.ts` (what it is built from). */
function sourceOf(pkgDir: string, target: unknown): string {
  const spec = typeof target === "string" ? target : (target as Record<string, string>).import ?? (target as Record<string, string>).default;
  if (!spec?.startsWith("./dist/")) throw new Error(`${pkgDir}: an export that is not built from src: ${JSON.stringify(target)}`);
  return path.join(pkgDir, "src", spec.slice("./dist/".length).replace(/\.js$/, ".ts"));
}

function entryPoints(): EntryPoint[] {
  const entries: EntryPoint[] = [];
  for (const dir of readdirSync(path.join(root, "packages")).sort()) {
    const pkgDir = path.join(root, "packages", dir);
    const manifestFile = path.join(pkgDir, "package.json");
    if (!existsSync(manifestFile)) continue;
    const manifest = JSON.parse(readFileSync(manifestFile, "utf8")) as { name: string; exports: Record<string, unknown> };
    for (const [key, target] of Object.entries(manifest.exports)) {
      if (key === "./package.json") continue;
      const subpath = key === "." ? "" : key.slice(2);
      entries.push({
        list: path.join(listDir, `${dir}${subpath ? `.${subpath.replaceAll("/", ".")}` : ""}.txt`),
        specifier: subpath ? `${manifest.name}/${subpath}` : manifest.name,
        source: sourceOf(pkgDir, target),
      });
    }
  }
  return entries;
}

const entries = entryPoints();
const program = ts.createProgram(entries.map((e) => e.source), {
  module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, target: ts.ScriptTarget.ES2022, strict: true, noEmit: true,
});
const checker = program.getTypeChecker();

/** Every name (value or type) a module exports, sorted. */
function exportedNames(file: string): string[] {
  const source = program.getSourceFile(file);
  const symbol = source && checker.getSymbolAtLocation(source);
  if (!symbol) throw new Error(`cannot read the exports of ${file}`);
  return checker.getExportsOfModule(symbol).map((s) => s.name).sort();
}

function pinnedNames(list: string): string[] {
  if (!existsSync(list)) return [];
  return readFileSync(list, "utf8").split("\n").filter((line) => line !== "");
}

describe("public API", () => {
  it("finds every entry point, among them the subpaths", () => {
    const specifiers = entries.map((e) => e.specifier);
    expect(specifiers).toContain("@shellgate/orchestrator/admission");
    expect(specifiers).toContain("@shellgate/sandbox/conformance");
    expect(specifiers.length).toBeGreaterThanOrEqual(11);
  });

  it.each(entries.map((e) => [e.specifier, e] as const))("%s exports exactly the names of its list", (_specifier, entry) => {
    const names = exportedNames(entry.source);
    const pinned = pinnedNames(entry.list);
    const added = names.filter((n) => !pinned.includes(n));
    const lost = pinned.filter((n) => !names.includes(n));
    expect({ added, lost }, `update ${path.relative(root, entry.list)}`).toEqual({ added: [], lost: [] });
    expect(pinned, "the list is sorted, one name per line").toEqual([...pinned].sort());
  });

  it("has a list for no entry point that does not exist", () => {
    const lists = new Set(entries.map((e) => path.basename(e.list)));
    expect(readdirSync(listDir).filter((f) => !lists.has(f))).toEqual([]);
  });

  it("writes no `export *` in a package's sources: every entry point lists its names", () => {
    const offenders = entries.filter((e) => /^export \* from/m.test(readFileSync(e.source, "utf8")));
    expect(offenders.map((e) => e.specifier)).toEqual([]);
  });
});
