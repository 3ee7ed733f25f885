import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const entry = fileURLToPath(new URL("../dist/index.js", import.meta.url));

/**
 * Runs a fresh Node process that imports the built package, does `work`, and prints which of the
 * heavy dependencies ended up in the CommonJS module cache (where createRequire puts them).
 */
function loadedAfter(work: string): string[] {
  const script = `
    import { createRequire } from "node:module";
    const m = await import(${JSON.stringify(entry)});
    ${work}
    const cache = Object.keys(createRequire(import.meta.url).cache);
    const heavy = ["node-pty", "@xterm/headless", "tree-kill"].filter((n) => cache.some((f) => f.includes("/node_modules/" + n + "/")));
    process.stdout.write(JSON.stringify(heavy));
  `;
  const out = execFileSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8", cwd: process.cwd() });
  return JSON.parse(out) as string[];
}

describe.skipIf(process.platform === "win32")("heavy dependencies load on first use", () => {
  it("a pipe command loads neither node-pty, xterm nor tree-kill", () => {
    const loaded = loadedAfter(`await m.spawnPipe({ argv: ["/bin/sh", "-c", "exit 0"], cwd: "/", env: { PATH: "/usr/bin:/bin" } }).result();`);
    expect(loaded).toEqual([]);
  });

  it("a rendered PTY loads node-pty and xterm (control: the probe sees a load)", () => {
    const loaded = loadedAfter(
      `await m.spawnPty({ argv: ["/bin/sh", "-c", "echo hi"], cwd: "/", env: { PATH: "/usr/bin:/bin", TERM: "xterm" }, render: true }).result();`,
    );
    expect(loaded).toEqual(expect.arrayContaining(["node-pty", "@xterm/headless"]));
  });
});
