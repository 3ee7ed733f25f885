import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { makeScratch, runBin } from "./helpers.js";

const s = makeScratch();
afterAll(() => s.cleanup());
const run = (...args: string[]) => runBin(args, { env: s.env, cwd: s.project });

describe("`shellgate exec CMD ARGS` (built bin): the first word that is not an option starts the command", () => {
  it("`exec ls -la` runs `ls -la`", async () => {
    writeFileSync(path.join(s.project, "visible.txt"), "x");
    const r = await run("exec", "ls", "-la");
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    // -l shows modes and -a shows dot entries: both options reached ls
    expect(r.stdout).toMatch(/^-rw\S* .* visible\.txt$/m);
    expect(r.stdout).toMatch(/ \.\.$/m);
  });

  it("`exec git status --short` runs git with its own option", async () => {
    const repo = path.join(s.root, "repo");
    execFileSync("git", ["init", "-q", repo]);
    writeFileSync(path.join(repo, "new.txt"), "x");
    const r = await runBin(["exec", "--cwd", repo, "git", "status", "--short"], { env: s.env, cwd: s.project });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("?? new.txt\n");
  });

  it("options after the command word belong to the command; `--` still works", async () => {
    const after = await run("exec", "printf", "%s|", "--json", "--timeout", "--debug");
    expect(after.code).toBe(0);
    expect(after.stdout).toBe("--json|--timeout|--debug|");
    const dashed = await run("exec", "--", "printf", "%s|", "--json");
    expect(dashed.code).toBe(0);
    expect(dashed.stdout).toBe("--json|");
    // shellgate's own options before the word still apply
    const json = await run("exec", "--json", "printf", "x");
    expect(JSON.parse(json.stdout)).toMatchObject({ exitCode: 0, stdout: "x" });
  });

  it("one quoted word is still a script for the user's shell", async () => {
    const r = await run("exec", "printf a && printf b");
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("ab");
  });

  it("bad usage still exits 125 with a pointer to --help", async () => {
    for (const args of [[], ["--"], ["--timeout", "soon", "true"], ["--bogus", "true"]]) {
      const r = await run("exec", ...args);
      expect(r.code, JSON.stringify(args)).toBe(125);
      expect(r.stderr).toContain("Run `shellgate exec --help` for usage.");
    }
  });
});

describe("--network means the same in every command", () => {
  // The sandbox marks a run without network in the command's environment (CODEX_SANDBOX_NETWORK_DISABLED=1).
  const networkOff = async (...flags: string[]) => {
    const r = await run("exec", ...flags, "--", "sh", "-c", 'echo "net=${CODEX_SANDBOX_NETWORK_DISABLED:-on}"');
    expect(r.code, `${flags.join(" ")}: ${r.stderr}`).toBe(0);
    return r.stdout.trim();
  };

  it("exec: bare --network is on; --network on|off, --network=on and --no-network work", async () => {
    expect(await networkOff()).toBe("net=1");
    expect(await networkOff("--network")).toBe("net=on");
    expect(await networkOff("--network", "on")).toBe("net=on");
    expect(await networkOff("--network=on")).toBe("net=on");
    expect(await networkOff("--network", "off")).toBe("net=1");
    expect(await networkOff("--network", "--no-network")).toBe("net=1");
  });

  it("check, doctor and mcp take every form; a bad value is named", async () => {
    for (const form of [["--network"], ["--network", "on"], ["--network=on"]]) {
      const doctor = await run("doctor", "--json", ...form);
      expect(JSON.parse(doctor.stdout).sandboxPolicy.networkAccess, form.join(" ")).toBe(true);
      const check = await run("check", ...form, "--json", "ls");
      expect(check.code, form.join(" ")).toBe(0);
      const mcp = await run("mcp", "--cwd", s.project, ...form);
      expect(mcp.code, `mcp ${form.join(" ")}: ${mcp.stderr}`).toBe(0);
    }
    const off = await run("doctor", "--json", "--no-network");
    expect(JSON.parse(off.stdout).sandboxPolicy.networkAccess).toBe(false);
    for (const command of ["doctor", "mcp"]) {
      const bad = await run(command, "--network=maybe");
      expect(bad.code, command).toBe(2);
      expect(bad.stderr).toContain('--network: expected on or off (or no value, meaning on), got "maybe"');
    }
  });

  it("sandbox: bare --network, --network on|off and --no-network; `--network true` runs `true`", async () => {
    // Interfaces of the command's network namespace.
    const probe = "tail -n +3 /proc/net/dev | wc -l";
    const count = async (...flags: string[]) => {
      const r = await run("sandbox", ...flags, "--", "sh", "-c", probe);
      expect(r.code, r.stderr).toBe(0);
      return Number(r.stdout.trim());
    };
    // Without network the sandbox has its own namespace with only the loopback interface.
    const isolated = await count();
    expect(await count("--network", "off")).toBe(isolated);
    expect(await count("--no-network")).toBe(isolated);
    const host = await count("--network");
    expect(host).toBeGreaterThan(isolated);
    expect(await count("--network", "on")).toBe(host);
    expect(await count("--network=on")).toBe(host);
    const t = await run("sandbox", "--network", "true");
    expect(t.code).toBe(0);
  });
});
