import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { promisify } from "node:util";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { collectExampleResults, defaultPolicyCacheDir, loadPolicy, parsePolicy, PolicyDiagnosticError, PolicyReadError, shlexSplit } from "../src/index.js";

const execFileP = promisify(execFile);
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "execpolicy-load-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("loading files", () => {
  it("accumulates rules across files in order; host_executable is last-wins across files", async () => {
    const a = join(dir, "a.rules");
    const b = join(dir, "b.rules");
    await writeFile(a, 'prefix_rule(pattern=["npm"], decision="prompt")\nhost_executable(name="npm", paths=["/a/npm"])\n');
    await writeFile(b, 'prefix_rule(pattern=["npm", "test"])\nhost_executable(name="npm", paths=["/b/npm"])\n');
    const p = await loadPolicy([a, b]);
    expect(p.files).toEqual([a, b]);
    expect(p.evaluate(["npm", "test"]).matchedRules.map((m) => [m.source.file, m.decision])).toEqual([[a, "prompt"], [b, "allow"]]);
    expect(p.evaluate(["/b/npm", "test"], { resolveHostExecutables: true }).decision).toBe("prompt");
    expect(p.evaluate(["/a/npm", "test"], { resolveHostExecutables: true }).decision).toBeUndefined();
  });

  it("example validation sees host_executable entries of earlier files and of the whole current file, not later files", () => {
    const ex = 'prefix_rule(pattern=["git"], match=[["/usr/bin/git"]])';
    expect(() => parsePolicy([{ path: "1", source: 'host_executable(name="git", paths=["/bin/git"])' }, { path: "2", source: ex }])).toThrow(PolicyDiagnosticError);
    expect(parsePolicy([{ path: "1", source: ex }, { path: "2", source: 'host_executable(name="git", paths=["/bin/git"])' }]).rules).toHaveLength(1);
  });

  it("reports a missing file as PolicyReadError naming it, and a bad file with its path", async () => {
    const missing = join(dir, "nope.rules");
    await expect(loadPolicy([missing])).rejects.toMatchObject({ constructor: PolicyReadError, code: "POLICY_READ_FAILED", file: missing });
    await expect(loadPolicy([dir])).rejects.toBeInstanceOf(PolicyReadError);
    const bad = join(dir, "bad.rules");
    await writeFile(bad, "\n\nprefix_rule(pattern=[1])\n");
    await expect(loadPolicy([bad])).rejects.toMatchObject({ file: bad, line: 3, column: 1, code: "INVALID_PATTERN" });
  });

  it("answers an unchanged set of files from the compiled cache, and recompiles when a file changes", async () => {
    const cacheDir = join(dir, "cache");
    const f = join(dir, "c.rules");
    await writeFile(f, 'prefix_rule(pattern=["a"], justification="j")\nhost_executable(name="a", paths=["/x/a"])\nnetwork_rule(host="h.com", protocol="http", decision="deny")\n');
    const first = await loadPolicy([f], { cacheDir });
    expect(await readdir(cacheDir)).toHaveLength(1);
    const second = await loadPolicy([f], { cacheDir });
    expect(second.rules).toEqual(first.rules);
    expect([...second.hostExecutables]).toEqual([...first.hostExecutables]);
    expect(second.networkRules).toEqual(first.networkRules);
    await writeFile(f, 'prefix_rule(pattern=["b"])\n');
    expect((await loadPolicy([f], { cacheDir })).rules.map((r) => r.program)).toEqual(["b"]);
    // A corrupt entry is ignored, not trusted.
    for (const name of await readdir(cacheDir)) await writeFile(join(cacheDir, name), '{"format":"shellgate-execpolicy-cache-v1","key":"x"}');
    expect((await loadPolicy([f], { cacheDir })).rules.map((r) => r.program)).toEqual(["b"]);
  });

  it("a cache entry is trusted only from a private directory: not through a linked directory or entry, not from one others can write", async () => {
    const { chmod, mkdir, symlink } = await import("node:fs/promises");
    const f = join(dir, "forge.rules");
    await writeFile(f, 'prefix_rule(pattern=["ls"], decision="allow")\n');
    const forge = async (cacheDir: string) => {
      await loadPolicy([f], { cacheDir });
      const [name] = await readdir(cacheDir);
      const file = join(cacheDir, name!);
      await writeFile(file, (await readFile(file, "utf8")).replaceAll('"ls"', '"forged"'));
      return name!;
    };
    // Control: in a private directory a changed entry is what the load returns (the cache is trusted).
    const trusted = join(dir, "cache-trusted");
    const name = await forge(trusted);
    expect((await loadPolicy([f], { cacheDir: trusted })).rules.map((r) => r.program)).toEqual(["forged"]);
    // The same entry behind a linked directory, behind a linked entry, or in a directory others can write: ignored.
    const linkedDir = join(dir, "cache-link");
    await symlink(trusted, linkedDir);
    expect((await loadPolicy([f], { cacheDir: linkedDir })).rules.map((r) => r.program)).toEqual(["ls"]);
    const linkedEntry = join(dir, "cache-entry-link");
    await mkdir(linkedEntry, { mode: 0o700 });
    await symlink(join(trusted, name), join(linkedEntry, name));
    expect((await loadPolicy([f], { cacheDir: linkedEntry })).rules.map((r) => r.program)).toEqual(["ls"]);
    const shared = join(dir, "cache-shared");
    await forge(shared);
    await chmod(shared, 0o777);
    expect((await loadPolicy([f], { cacheDir: shared })).rules.map((r) => r.program)).toEqual(["ls"]);
  });

  it("an entry named like this file set but compiled from other inputs is a miss: a key collision can never give a wrong policy", async () => {
    const cacheDir = join(dir, "cache-collide");
    const f = join(dir, "allow.rules");
    await writeFile(f, 'prefix_rule(pattern=["rm"], decision="allow")\n');
    await loadPolicy([f], { cacheDir });
    const [name] = await readdir(cacheDir);
    const entry = JSON.parse(await readFile(join(cacheDir, name!), "utf8")) as { inputs: string };
    // The file now forbids; an attacker-kept entry under the same name still says allow, with old inputs.
    await writeFile(f, 'prefix_rule(pattern=["rm"], decision="forbidden")\n');
    const forged = { ...entry };
    const newInputs = entry.inputs.replace('decision="allow"', 'decision="forbidden"');
    const { cacheKey } = await import("../src/policy/cache.js");
    await writeFile(join(cacheDir, `${cacheKey(newInputs)}.json`), JSON.stringify({ ...forged, key: cacheKey(newInputs) }));
    expect((await loadPolicy([f], { cacheDir })).evaluate(["rm"]).decision).toBe("forbidden");
  });

  it("collectExampleResults reports every example instead of failing at the first", () => {
    const reports = collectExampleResults([{ path: "e.rules", source: 'prefix_rule(pattern=["git", "push"], match=["git push", "git pull"], not_match=["git push -f", "git status"])' }]);
    expect(reports).toHaveLength(1);
    expect(reports[0]!.results.map((r) => [r.kind, r.example.join(" "), r.passed])).toEqual([
      ["match", "git push", true], ["match", "git pull", false], ["not_match", "git push -f", false], ["not_match", "git status", true],
    ]);
  });
});

describe("defaultPolicyCacheDir", () => {
  it("takes SHELLGATE_POLICY_CACHE_DIR, then an absolute XDG_CACHE_HOME, then ~/.cache", () => {
    expect(defaultPolicyCacheDir({ HOME: "/h" })).toBe("/h/.cache/shellgate/execpolicy");
    expect(defaultPolicyCacheDir({ HOME: "/h", XDG_CACHE_HOME: "relative" })).toBe("/h/.cache/shellgate/execpolicy");
    expect(defaultPolicyCacheDir({ HOME: "/h", XDG_CACHE_HOME: "/x" })).toBe("/x/shellgate/execpolicy");
    expect(defaultPolicyCacheDir({ HOME: "/h", XDG_CACHE_HOME: "/x", SHELLGATE_POLICY_CACHE_DIR: "/p" })).toBe("/p");
  });
});

describe("shlexSplit", () => {
  it.each([
    ["a b\tc\nd", ["a", "b", "c", "d"]],
    [`'a b' "c d" e\\ f`, ["a b", "c d", "e f"]],
    [`"a\\"b" "\\$x" "\\q"`, ['a"b', "$x", "\\q"]],
    ["ls # comment", ["ls"]],
    ["a#b", ["a#b"]],
    ["'' x", ["", "x"]],
    ["a\r", ["a\r"]],
  ])("%j", (input, out) => {
    expect(shlexSplit(input)).toEqual(out);
  });
  it("rejects unbalanced quotes and trailing backslashes", () => {
    expect(shlexSplit("a 'b")).toBeNull();
    expect(shlexSplit('a "b')).toBeNull();
    expect(shlexSplit("a\\")).toBeNull();
  });
});

describe("error identity", () => {
  it("instanceof works by class chain even for an error from another copy of the module", async () => {
    const { PolicyError: Base, PolicyDiagnosticError: Diag, PolicyReadError: Read } = await import("../src/errors.js");
    const e = new Diag("SYNTAX_ERROR", "x", { file: "f", line: 1, column: 1 });
    const foreign = Object.create(Error.prototype, { [Symbol.for("@shellgate/execpolicy:error-kinds")]: { value: ["PolicyDiagnosticError", "PolicyError"] } });
    expect([e instanceof Base, e instanceof Diag, e instanceof Read]).toEqual([true, true, false]);
    expect([foreign instanceof Base, foreign instanceof Diag, foreign instanceof Read, new Error("x") instanceof Base]).toEqual([true, true, false, false]);
  });
});

describe("built package (needs `npx tsc -b packages/execpolicy`)", () => {
  const dist = new URL("../dist/index.js", import.meta.url);
  it.skipIf(!existsSync(dist))("loads the parser on demand with a synchronous require, without warnings", async () => {
    const script = `import(${JSON.stringify(dist.href)}).then((ep) => {
      const p = ep.parsePolicy([{ path: "x.rules", source: 'prefix_rule(pattern=["a"] + ["b"], decision="prompt")' }]);
      process.stdout.write(JSON.stringify(ep.evaluationToCodexJson(p.evaluate(["a", "b"]))));
    })`;
    const { stdout, stderr } = await execFileP(process.execPath, ["-e", script]);
    expect(stderr).toBe("");
    expect(stdout).toBe('{"matchedRules":[{"prefixRuleMatch":{"matchedPrefix":["a","b"],"decision":"prompt"}}],"decision":"prompt"}');
  });
});
