// The package's modules import each other through barrels and deep paths; a runtime import cycle
// would make some export `undefined` at load time depending on which module is loaded first.
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const SRC = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../src");

/** Relative imports that survive compilation (`import type` and all-`type` named imports are erased). */
function runtimeImports(source: string): string[] {
  const out: string[] = [];
  for (const m of source.matchAll(/^(import|export)\s+(type\s+)?([^;]*?)from\s+"(\.[^"]+)"/gms)) {
    const [, kind, typeOnly, clause = "", target = ""] = m;
    if (typeOnly) continue;
    const named = /\{([^}]*)\}/.exec(clause)?.[1];
    const names = named?.split(",").map((n) => n.trim()).filter((n) => n.length > 0) ?? [];
    const bareClause = clause.replace(/\{[^}]*\}/, "").replace(/[\s,]/g, "");
    if (kind === "import" && names.length > 0 && bareClause === "" && names.every((n) => n.startsWith("type "))) continue;
    out.push(target);
  }
  return out;
}

/** Every cycle found by a depth-first walk, as module paths relative to src. */
function findCycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const state = new Map<string, "open" | "done">();
  const cycles: string[][] = [];
  const visit = (node: string, stack: string[]) => {
    state.set(node, "open");
    for (const dep of graph.get(node) ?? []) {
      if (state.get(dep) === "open") cycles.push([...stack.slice(stack.indexOf(dep)), dep]);
      else if (!state.has(dep)) visit(dep, [...stack, dep]);
    }
    state.set(node, "done");
  };
  for (const node of graph.keys()) if (!state.has(node)) visit(node, [node]);
  return cycles;
}

async function sourceGraph(): Promise<Map<string, string[]>> {
  const files = (await readdir(SRC, { recursive: true })).filter((f) => f.endsWith(".ts"));
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const source = await readFile(path.join(SRC, file), "utf8");
    const deps = runtimeImports(source).map((t) => path.join(path.dirname(file), t.replace(/\.js$/, ".ts")));
    graph.set(path.normalize(file), deps);
  }
  return graph;
}

describe("module graph", () => {
  it("the cycle finder sees a cycle and ignores type-only imports", () => {
    expect(runtimeImports('import { a } from "./a.js";\nimport type { B } from "./b.js";\nimport { type C } from "./c.js";')).toEqual(["./a.js"]);
    expect(runtimeImports('import { type C, d } from "./c.js";\nexport * from "./e.js";')).toEqual(["./c.js", "./e.js"]);
    const graph = new Map([
      ["a.ts", ["b.ts"]],
      ["b.ts", ["a.ts"]],
    ]);
    expect(findCycles(graph)).toEqual([["a.ts", "b.ts", "a.ts"]]);
  });

  it("sessions import nothing from tools (not even types): tools build on sessions, never the reverse", async () => {
    const files = (await readdir(path.join(SRC, "sessions"))).filter((f) => f.endsWith(".ts"));
    expect(files.length).toBeGreaterThan(3);
    for (const file of files) {
      const source = await readFile(path.join(SRC, "sessions", file), "utf8");
      const targets = [...source.matchAll(/from\s+"([^"]+)"/g)].map((m) => m[1] ?? "");
      expect(targets.filter((t) => t.startsWith("../tools/")), file).toEqual([]);
    }
  });

  it("names no sandbox backend: backends are the integrator's to register", async () => {
    const files = (await readdir(SRC, { recursive: true })).filter((f) => f.endsWith(".ts"));
    for (const file of files) expect(await readFile(path.join(SRC, file), "utf8"), file).not.toMatch(/@shellgate\/sandbox-/);
    const manifest = JSON.parse(await readFile(path.join(SRC, "..", "package.json"), "utf8")) as Record<string, Record<string, string> | undefined>;
    for (const field of ["dependencies", "devDependencies", "peerDependencies", "optionalDependencies"]) {
      expect(Object.keys(manifest[field] ?? {}).filter((n) => n.startsWith("@shellgate/sandbox-")), field).toEqual([]);
    }
  });

  it("src has no runtime import cycles", async () => {
    const graph = await sourceGraph();
    expect(graph.size).toBeGreaterThan(40);
    expect(findCycles(graph)).toEqual([]);
  });
});
