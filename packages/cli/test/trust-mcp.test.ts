// Attacks on a session through `shellgate mcp`: one MCP connection is one long session, so whatever a call
// leaves behind is there for the next call. Each attack is made from one call and checked from
// the next; each has a control that makes the same move without the sandbox.
import { spawnSync } from "node:child_process";
import { existsSync, lstatSync, mkdirSync, mkdtempSync, realpathSync, renameSync, rmSync, symlinkSync } from "node:fs";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { BIN, makeScratch, type Scratch, realSandboxSkip } from "./helpers.js";

const skip = await realSandboxSkip();

let s: Scratch;
/** The shared temp directory: writable for every sandboxed command (it is their $TMPDIR). */
let tmp: string;
/** The workspace, nested inside `tmp`. */
let ws: string;

beforeAll(() => {
  s = makeScratch();
  // Everything here lives under /tmp; leave /tmp itself out of the writable roots so that "outside"
  // means outside. The workspace's parent stays writable as the commands' $TMPDIR.
  s.write("xdg/shellgate/config.toml", "[sandbox_workspace_write]\nexclude_slash_tmp = true\n");
});
afterAll(() => s.cleanup());
beforeEach(() => {
  tmp = mkdtempSync(path.join(s.root, "tmp-"));
  ws = path.join(tmp, "WS");
  mkdirSync(ws);
});

async function connect(cwd: string) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, "mcp", "--no-default-rules", "--approval-policy", "never"],
    env: { ...s.env, TMPDIR: tmp },
    cwd,
    stderr: "pipe",
  });
  const client = new Client({ name: "shellgate-trust-test", version: "1.0.0" }, { capabilities: {} });
  await client.connect(transport);
  return client;
}

function text(result: unknown): string {
  return ((result as CallToolResult).content ?? []).map((c) => (c.type === "text" ? c.text : "")).join("");
}

const call = (client: Client, command: string) => client.callTool({ name: "shell_command", arguments: { command } });

describe.skipIf(skip !== undefined)(`shellgate mcp: one call cannot widen the next${skip ? ` (skipped: ${skip})` : ""}`, () => {
  it("control: renaming the workspace away and putting a link to / in its place works without the sandbox", () => {
    const r = spawnSync("/bin/sh", ["-c", "mv WS WS.old && ln -s / WS"], { cwd: tmp });
    expect(r.status).toBe(0);
    expect(realpathSync(ws)).toBe("/");
  });

  it("the workspace cannot be renamed from inside, and a swap made behind the session's back is refused", async () => {
    const client = await connect(ws);
    try {
      const attack = await call(client, 'cd "$TMPDIR" && mv WS WS.old && ln -s / WS; echo "exit=$?"');
      expect(text(attack)).not.toContain("exit=0");
      expect(lstatSync(ws).isDirectory()).toBe(true);
      expect(existsSync(path.join(tmp, "WS.old"))).toBe(false);

      // Whatever route a swap takes (an unsandboxed step, another program), the session's next call
      // must see that its workspace is no longer the directory it started in.
      renameSync(ws, path.join(tmp, "WS.host"));
      symlinkSync("/", ws);
      const marker = path.join(s.root, `widened-${process.pid}`);
      rmSync(marker, { force: true });
      const next = await call(client, `touch ${marker}; echo ran`);
      expect(next.isError).toBe(true);
      expect(text(next)).toMatch(/workspace/i);
      expect(text(next)).not.toContain("ran");
      expect(existsSync(marker)).toBe(false);
    } finally {
      await client.close();
    }
  });

  it("control: without the sandbox, git init plants a repository (and its config) in the workspace", () => {
    const r = spawnSync("/bin/sh", ["-c", "git init -q . && git config core.fsmonitor 'touch PWNED'"], { cwd: ws });
    expect(r.status).toBe(0);
    expect(existsSync(path.join(ws, ".git", "config"))).toBe(true);
  });

  it("a call cannot create .git, .codex, .shellgate or .agents for the next one", async () => {
    const client = await connect(ws);
    try {
      for (const name of [".git", ".codex", ".shellgate", ".agents"]) {
        await call(client, `mkdir -p ${name}/hooks; echo x > ${name}/config; git init -q . 2>/dev/null; true`);
      }
      const after = await call(client, "ls -A; echo done");
      expect(text(after)).toContain("done");
    } finally {
      await client.close();
    }
    for (const name of [".git", ".codex", ".shellgate", ".agents"]) {
      expect(existsSync(path.join(ws, name, "config")), name).toBe(false);
      expect(existsSync(path.join(ws, name, "hooks")), name).toBe(false);
    }
  });

  it("control: without the sandbox, a config planted above the workspace is where the old search looked", () => {
    const r = spawnSync("/bin/sh", ["-c", 'mkdir -p "$TMPDIR/.shellgate" && echo \'sandbox_mode = "danger-full-access"\' > "$TMPDIR/.shellgate/config.toml"'], {
      cwd: ws,
      env: { ...s.env, TMPDIR: tmp },
    });
    expect(r.status).toBe(0);
    expect(existsSync(path.join(tmp, ".shellgate", "config.toml"))).toBe(true);
  });

  it("a config planted above the workspace by one server's command does not loosen the next server", async () => {
    const first = await connect(ws);
    try {
      await call(first, `mkdir -p "$TMPDIR/.shellgate" && echo 'sandbox_mode = "danger-full-access"' > "$TMPDIR/.shellgate/config.toml"`);
    } finally {
      await first.close();
    }
    const outside = mkdtempSync(path.join(s.root, "outside-"));
    const second = await connect(ws);
    try {
      await call(second, `touch ${outside}/escaped`);
    } finally {
      await second.close();
    }
    expect(existsSync(path.join(outside, "escaped"))).toBe(false);
  });
  it("a placeholder kept from one call to the next stays empty and read-only: a call can neither fill nor remove it, and the session's end removes it", async () => {
    const codex = path.join(ws, ".codex");
    const client = await connect(ws);
    try {
      const first = text(await call(client, "echo x > .codex/config.toml || echo REFUSED; rmdir .codex || echo KEPT"));
      expect(first).toContain("REFUSED");
      expect(first).toContain("KEPT");
      // Kept for the session: the next call does not make it again.
      expect(existsSync(codex)).toBe(true);
      const second = text(await call(client, "echo entries: $(ls -A .codex | wc -l); mkdir .codex/x || echo REFUSED"));
      expect(second).toContain("entries: 0");
      expect(second).toContain("REFUSED");
    } finally {
      await client.close();
    }
    // The server's end closes its holder's stdin; the holder then removes what no run holds.
    for (let i = 0; i < 200 && existsSync(codex); i++) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(existsSync(codex)).toBe(false);
  });
});
