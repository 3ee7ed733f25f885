// The MCP server's log messages (notifications/message) carry text a sandboxed command chose: the
// names of the repositories it created. A client shows them to a person, often in a terminal, so
// they are escaped; the control makes the same directory unsandboxed and shows the name really
// carries the sequences.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { LoggingMessageNotificationSchema, type CallToolResult, type LoggingMessageNotification } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, describe, expect, it } from "vitest";
import { BIN, eventually, isolatedGitEnv, realSandboxSkip, scratchDirs } from "./helpers.js";

const sandboxSkip = await realSandboxSkip();
const gitSkip = spawnSync("git", ["--version"]).status === 0 ? undefined : "git is not installed";
const skip = sandboxSkip ?? gitSkip;

const dirs = scratchDirs("sg-trustmcplog");

/** `<base>/ws` and an environment whose home, config and cache live in `<base>`; git reads no user or system config. */
function workspace(label: string): { ws: string; env: Record<string, string> } {
  const base = dirs.make(label);
  const ws = path.join(base, "ws");
  fs.mkdirSync(ws);
  return { ws, env: isolatedGitEnv(base) };
}

// The command chooses the name: an OSC title sequence, a bell, and a newline that would forge a log line.
const EVIL = String.raw`d=$(printf 'x\033]0;owned\007\nshellgate: all clear'); mkdir -p "$d" && git init -q "$d"`;

describe.skipIf(skip !== undefined)(`shellgate mcp log messages${skip ? ` (skipped: ${skip})` : ""}`, () => {
  afterAll(dirs.cleanup);

  it("a repository created under a name carrying terminal sequences is a warning naming it escaped", async () => {
    // control: unsandboxed, the same command leaves a directory whose name holds ESC, BEL and a newline
    const control = workspace("control");
    expect(spawnSync("/bin/sh", ["-c", EVIL], { cwd: control.ws, env: control.env }).status).toBe(0);
    expect(fs.readdirSync(control.ws)).toEqual(["x\u001b]0;owned\u0007\nshellgate: all clear"]);

    const { ws, env } = workspace("sandboxed");
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [BIN, "mcp", "--cwd", ws, "--no-default-rules", "--approval-policy", "never"],
      env,
      cwd: ws,
      stderr: "pipe",
    });
    const client = new Client({ name: "shellgate-trust-mcp-log-test", version: "1.0.0" });
    const logs: LoggingMessageNotification["params"][] = [];
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void logs.push(n.params));
    await client.connect(transport);
    try {
      const result = (await client.callTool({ name: "shell_command", arguments: { command: EVIL, login: false } })) as CallToolResult;
      expect(result.isError ?? false).toBe(false);
      expect(await eventually(() => logs.some((l) => String(l.data).includes("created a git repository")))).toBe(true);
    } finally {
      await client.close();
    }
    const warning = logs.find((l) => String(l.data).includes("created a git repository"));
    expect(warning).toMatchObject({ level: "warning", logger: "shellgate" });
    const data = String(warning?.data);
    expect(data).toContain(`the command created a git repository at ${ws}/x\\x1b]0;owned\\x07\\nshellgate: all clear:`);
    expect(data).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/);
    // The sandboxed command really made that directory, sequences and all.
    expect(fs.readdirSync(ws).some((name) => name.includes("\u001b]0;owned"))).toBe(true);
  });
});
