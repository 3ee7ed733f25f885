// The escape and trust-boundary suites are written to pass both as root and as an ordinary user.
// When this run is root, run them again as nobody, so that an escape only root's sandbox blocks
// (or a test that only works as root) cannot go unnoticed.
//
// A checkout below a directory only root can traverse (a 0700 parent, as CI's may be) would make
// every file unreachable for nobody. Instead of copying the repository, the checkout is bind-mounted
// onto a world-readable temp directory inside a private mount namespace (`unshare --mount`), which
// disappears with the run.
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const REPO = fileURLToPath(new URL("../../../", import.meta.url));
const NOBODY = 65534;

function whyNot(): string | undefined {
  if (process.platform !== "linux") return `not Linux (${process.platform})`;
  if (process.getuid?.() !== 0) return "the tests already run unprivileged (not root)";
  if (process.env["SHELLGATE_UNPRIVILEGED_RUN"]) return "already inside an unprivileged run";
  for (const tool of ["/usr/bin/unshare", "/usr/bin/setpriv", "/usr/bin/mount"]) {
    if (!fs.existsSync(tool)) return `${tool} is missing (util-linux)`;
  }
  return undefined;
}

interface Outcome {
  code: number | null;
  output: string;
}

/** Run `vitest run FILES` in `pkg` (relative to the repository) as nobody; files are globs vitest understands. */
function runAsNobody(pkg: string, files: string[]): Promise<Outcome> {
  const stage = fs.mkdtempSync(path.join(os.tmpdir(), "sg-unpriv-"));
  fs.chmodSync(stage, 0o755);
  const vitest = path.join(stage, "node_modules", "vitest", "vitest.mjs");
  // `--configLoader runner`: vite would otherwise write a bundled config next to vitest.config.ts,
  // which nobody cannot do in a root-owned checkout. Paths travel as positional parameters, so no
  // shell quoting is involved.
  const script = `mount --bind "$1" "$2" && cd "$3" && shift 3 && exec setpriv --reuid=${NOBODY} --regid=${NOBODY} --clear-groups "$@"`;
  const args = [REPO, stage, path.join(stage, pkg), process.execPath, vitest, "run", "--configLoader", "runner", ...files];
  const env: Record<string, string> = {
    PATH: "/usr/local/bin:/usr/bin:/bin",
    HOME: os.tmpdir(),
    LANG: "C.UTF-8",
    NO_COLOR: "1",
    SHELLGATE_UNPRIVILEGED_RUN: "1",
    ...(process.env["CI"] ? { CI: process.env["CI"] } : {}),
  };
  return new Promise((resolve, reject) => {
    const child = spawn("/usr/bin/unshare", ["--mount", "--propagation", "private", "--", "/bin/sh", "-c", script, "sh", ...args], { env, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (d: Buffer) => (output += d.toString()));
    child.stderr.on("data", (d: Buffer) => (output += d.toString()));
    child.on("error", reject);
    child.on("close", (code) => {
      // Never recursive: were the bind mount ever visible here, a recursive delete would empty the checkout.
      fs.rmdirSync(stage);
      resolve({ code, output });
    });
  });
}

/** vitest's own count line of the inner run, e.g. `Tests  49 passed | 3 skipped (52)`. */
function passedCount(output: string): number {
  const line = output.split("\n").find((l) => /^\s*Tests\s+/.test(l)) ?? "";
  return Number(/(\d+) passed/.exec(line)?.[1] ?? 0);
}

/** Every *.test.ts under dir. */
function listTests(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith(".test.ts"))
    .map((e) => path.join(e.parentPath, e.name));
}

const skip = whyNot();

const SUITES: Array<[string, string[]]> = [
  ["packages/sandbox-linux", ["test/escapes", "test/limits", "test/conformance"]],
  ["packages/cli", ["test/trust-", "test/commands/sandbox/"]],
];

it("names suites that exist", () => {
  // vitest takes the filters as substrings and runs whatever matches: a filter left behind by a
  // move would silently drop its suite from the unprivileged run.
  for (const [pkg, filters] of SUITES) {
    const tests = listTests(path.join(REPO, pkg, "test")).map((f) => path.relative(path.join(REPO, pkg), f));
    for (const filter of filters) expect(tests.some((t) => t.includes(filter)), `${pkg}: no test file matches ${filter}`).toBe(true);
  }
});

describe.skipIf(skip !== undefined)(`escape and trust suites as nobody${skip ? ` (skipped: ${skip})` : ""}`, () => {
  it.each(SUITES)("%s %j", async (pkg, files) => {
    const r = await runAsNobody(pkg, files);
    const tail = r.output.split("\n").slice(-60).join("\n");
    expect(r.code, tail).toBe(0);
    expect(passedCount(r.output), tail).toBeGreaterThan(0);
  });
});
