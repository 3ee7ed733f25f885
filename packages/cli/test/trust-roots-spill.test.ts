// Host-side paths a sandboxed command could re-point, end to end through `shellgate mcp` (one
// connection is one long session) and `shellgate exec`: a writable root named through a link, a root
// swapped between two calls, and the directory the host saves full outputs in. Each attack has a
// control making the same move without the guard, to show it would have worked.
import { spawnSync } from "node:child_process";
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, renameSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { BIN, makeScratch, runBin, type Scratch, realSandboxSkip } from "./helpers.js";

const skip = await realSandboxSkip();

let s: Scratch;
/** The commands' $TMPDIR: writable in every sandboxed command. */
let tmp: string;
/** A directory outside every writable root (/tmp is one; /var/tmp is not), where nothing may land. */
let elsewhere: string;
/** The user's rules directory: where a redirected host write would do the most harm. */
let rulesDir: string;
let spillBase: string;

beforeEach(() => {
  s = makeScratch();
  tmp = mkdtempSync(path.join(s.root, "tmp-"));
  elsewhere = mkdtempSync("/var/tmp/sg-roots-elsewhere-");
  rulesDir = path.join(s.env["XDG_CONFIG_HOME"]!, "shellgate", "rules");
  mkdirSync(rulesDir, { recursive: true });
  spillBase = path.join(s.env["HOME"]!, ".cache", "shellgate", `output-${process.getuid?.()}`);
});
afterEach(() => {
  s.cleanup();
  rmSync(elsewhere, { recursive: true, force: true });
});

async function connect(cwd: string, extra: string[] = []) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, "mcp", "--no-default-rules", "--approval-policy", "never", ...extra],
    env: { ...s.env, TMPDIR: tmp },
    cwd,
    stderr: "pipe",
  });
  const client = new Client({ name: "shellgate-roots-spill-test", version: "1.0.0" }, { capabilities: {} });
  await client.connect(transport);
  return client;
}

function text(result: unknown): string {
  return ((result as CallToolResult).content ?? []).map((c) => (c.type === "text" ? c.text : "")).join("");
}

const call = (client: Client, command: string) => client.callTool({ name: "shell_command", arguments: { command } });

/** The full-output file a truncated response names. */
function spillPath(result: unknown): string {
  const m = /(\/\S+\.txt)/.exec(text(result).split("\nOutput:\n")[0] ?? "");
  if (!m?.[1]) throw new Error(`no saved-output path in: ${text(result).slice(0, 400)}`);
  return m[1];
}

const PROJECT_LINK_ROOT = '[sandbox_workspace_write]\nwritable_roots = ["link"]\n';

describe.skipIf(skip !== undefined)(`writable roots are resolved once and held by identity${skip ? ` (skipped: ${skip})` : ""}`, () => {
  it("control: a sandboxed command can re-point a link in the workspace, and a sandbox handed that link's name writes where it now points", async () => {
    symlinkSync(".", path.join(s.project, "link"));
    const client = await connect(s.project);
    try {
      const r = await call(client, `ln -sfn ${elsewhere} link && readlink link`);
      expect(text(r)).toContain(elsewhere);
    } finally {
      await client.close();
    }
    expect(realpathSync(path.join(s.project, "link"))).toBe(realpathSync(elsewhere));
    // The one-shot `sandbox` command takes the root by name, as a session would have at its next call.
    const r = await runBin(["sandbox", "--writable-root", path.join(s.project, "link"), "--", "touch", path.join(s.project, "link", "written")], {
      env: s.env,
      cwd: s.project,
    });
    expect(r.code, r.stderr).toBe(0);
    expect(existsSync(path.join(elsewhere, "written"))).toBe(true);
  });

  it("a project file naming a writable root through a symlink is refused at load, with file:line:col (exec and mcp)", async () => {
    symlinkSync(".", path.join(s.project, "link"));
    const file = s.write("project/.shellgate/config.toml", PROJECT_LINK_ROOT);
    const exec = await runBin(["exec", "--", "true"], { env: s.env, cwd: s.project });
    expect(exec.code).toBe(125);
    expect(exec.stderr).toContain(`${file}:2:19`);
    expect(exec.stderr).toMatch(/writable_roots\[0\].*"link" is a symlink/);
    const mcp = await runBin(["mcp", "--no-default-rules"], { env: s.env, cwd: s.project });
    expect(mcp.code).toBe(125);
    expect(mcp.stderr).toContain(`${file}:2:19`);
    // Trusting the project does not change it: a link is re-pointable whoever wrote its name.
    s.write("xdg/shellgate/config.toml", `[projects.${JSON.stringify(realpathSync(s.project))}]\ntrust_level = "trusted"\n`);
    expect((await runBin(["exec", "--", "true"], { env: s.env, cwd: s.project })).code).toBe(125);
  });

  it("a root from the user config or a flag named through a link the sandbox could re-point is refused at load too", async () => {
    const real = path.join(s.root, "real-root");
    mkdirSync(real);
    symlinkSync(real, path.join(s.project, "link"));
    const user = s.write("xdg/shellgate/config.toml", `[sandbox_workspace_write]\nwritable_roots = [${JSON.stringify(path.join(s.project, "link"))}]\n`);
    const fromUser = await runBin(["exec", "--", "true"], { env: s.env, cwd: s.project });
    expect(fromUser.code).toBe(125);
    expect(fromUser.stderr).toContain(`${user}:2:19`);
    expect(fromUser.stderr).toContain("which sandboxed commands can write");
    s.write("xdg/shellgate/config.toml", "");
    const fromFlag = await runBin(["mcp", "--writable-root", "link"], { env: s.env, cwd: s.project });
    expect(fromFlag.code).not.toBe(0);
    expect(fromFlag.stderr).toContain("--writable-root link");
  });

  it("a root swapped between two calls of one session: the sandbox cannot swap it, and a swap from outside makes the next call fail", async () => {
    const root = path.join(s.root, "extra");
    mkdirSync(root);
    const client = await connect(s.project, ["--writable-root", root]);
    try {
      const first = await call(client, `touch ${root}/one && mv ${root} ${root}.moved && ln -s ${elsewhere} ${root}; echo "exit=$?"`);
      expect(existsSync(path.join(root, "one"))).toBe(true);
      expect(lstatSync(root).isDirectory()).toBe(true);
      expect(text(first)).not.toContain("exit=0");

      // Whatever route a swap takes (an unsandboxed step, another program), the next call must notice.
      renameSync(root, `${root}.host`);
      symlinkSync(elsewhere, root);
      const second = await call(client, `touch ${root}/two; echo ran`);
      expect(second.isError).toBe(true);
      expect(text(second)).toMatch(/writable root .* changed identity/);
      expect(text(second)).toContain(realpathSync(elsewhere));
      expect(text(second)).not.toContain("ran");
    } finally {
      await client.close();
    }
    expect(readdirSync(elsewhere)).toEqual([]);
  });
});

describe.skipIf(skip !== undefined)(`the host saves full outputs where no sandboxed command can redirect them${skip ? ` (skipped: ${skip})` : ""}`, () => {
  it("control: renaming the old spill location (a directory in the shared temp dir) and linking its name elsewhere redirects a plain write", () => {
    const old = mkdtempSync(path.join(tmp, "shellgate-output-"));
    const r = spawnSync("/bin/sh", ["-c", `mv ${old} ${old}.moved && ln -s ${rulesDir} ${old}`]);
    expect(r.status).toBe(0);
    writeFileSync(path.join(old, "call-2.txt"), "text the command chose\n");
    expect(readdirSync(rulesDir)).toEqual(["call-2.txt"]);
  });

  it("a sandboxed command renames and links what it can, and the host's next saved output still lands in the private directory, readable from the sandbox", async () => {
    const client = await connect(s.project);
    let firstFile: string;
    try {
      const first = await call(client, "seq 1 200000");
      firstFile = spillPath(first);
      expect(path.dirname(path.dirname(firstFile))).toBe(spillBase);

      // The command knows where outputs go; it tries to move that directory (and everything in its
      // $TMPDIR) and to put a link to the rules directory in its place.
      const sessionDir = path.dirname(firstFile);
      const attack = await call(
        client,
        `for d in ${sessionDir} ${spillBase} "$TMPDIR"/*; do [ -e "$d" ] || continue; mv "$d" "$d.moved" 2>/dev/null && ln -s ${rulesDir} "$d" && echo "swapped $d"; done; echo attack-done`,
      );
      expect(text(attack)).toContain("attack-done");
      expect(text(attack)).not.toContain(`swapped ${sessionDir}`);
      expect(text(attack)).not.toContain(`swapped ${spillBase}`);

      const second = await call(client, "seq 1 200000 | sed 's/^/rules-text /'");
      const secondFile = spillPath(second);
      expect(path.dirname(secondFile)).toBe(sessionDir);
      expect(lstatSync(sessionDir).isDirectory()).toBe(true);
      expect(readFileSync(secondFile, "utf8").split("\n")[0]).toBe("rules-text 1");

      // The model is given the path: a sandboxed command reads it.
      const read = await call(client, `tail -n 1 ${secondFile}`);
      expect(text(read)).toContain("rules-text 200000");
    } finally {
      await client.close();
    }
    expect(readdirSync(rulesDir)).toEqual([]);
    // The session's directory goes when the session ends.
    expect(existsSync(path.dirname(firstFile))).toBe(false);
  });

  it("shellgate exec --json keeps a cut stream in the private directory too, and a command cannot move it", async () => {
    const r = await runBin(
      ["exec", "--json", "--", "bash", "-c", `for d in ${spillBase}/exec-*; do mv "$d" "$d.moved" 2>/dev/null && ln -s ${rulesDir} "$d" && echo "swapped $d" >&2; done; seq 1 400000`],
      { env: s.env, cwd: s.project },
    );
    const result = JSON.parse(r.stdout) as { stderr: string; fullOutputFiles?: { stdout?: string } };
    const file = result.fullOutputFiles?.stdout;
    expect(file && path.dirname(path.dirname(file))).toBe(spillBase);
    expect(result.stderr).not.toContain("swapped");
    expect(readFileSync(file!, "utf8").endsWith("399999\n400000\n")).toBe(true);
    expect(readdirSync(rulesDir)).toEqual([]);
  });
});
