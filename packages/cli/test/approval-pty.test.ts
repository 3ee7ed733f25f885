import { existsSync, readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { spawnPty, TerminalRenderer } from "@shellgate/pty";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { drivePty, makeScratch, type Scratch, realSandboxSkip } from "./helpers.js";

const skip = await realSandboxSkip();
let s: Scratch;
let rules: string;
beforeAll(() => {
  s = makeScratch();
  rules = s.write("rules/prompt.rules", 'prefix_rule(pattern=["touch"], decision="prompt", justification="creating files needs a person")\n');
});
afterAll(() => s.cleanup());

/** Run `shellgate exec` on a real pseudo-terminal; press `keys` one by one, each after `waitFor` text appeared. */
const drive = (
  file: string,
  steps: Array<{ waitFor: string; key: string }>,
  options: string[] = ["--rules", rules],
  command: string[] = ["touch", file],
) => drivePty(["exec", ...options, "--", ...command], steps, { cwd: s.project, env: s.env });

const MENU = "Ctrl-C aborts";
const PREFIXES = "Esc to go back";

describe("terminal approval prompt through a real pseudo-terminal (shellgate exec)", () => {
  it("shows command, cwd, reason and rule, and 'run once' runs it", async () => {
    const file = path.join(s.project, "once.txt");
    const { code, screen } = await drive(file, [{ waitFor: MENU, key: "y" }]);
    expect(screen).toContain(`touch ${file}`);
    expect(screen).toContain(s.project);
    expect(screen).toContain("creating files needs a person");
    expect(screen).toContain(`${rules}:1`);
    expect(screen).not.toMatch(/\u001b\[3\dm/); // NO_COLOR: no colour codes
    expect(code).toBe(0);
    expect(existsSync(file)).toBe(true);
  });

  it("arrow keys move the selection and Enter picks it; exec offers no 'run for this session'", async () => {
    const file = path.join(s.project, "session.txt");
    const { code, screen } = await drive(file, [
      { waitFor: MENU, key: "\u001b[B" },
      { waitFor: "> [n]", key: "\u001b[A" },
      { waitFor: "> [y]", key: "\r" },
    ]);
    expect(screen).not.toContain("[s]");
    expect(code).toBe(0);
    expect(existsSync(file)).toBe(true);
  });

  it("'always allow' shows the rule, writes it to the user's rules file after a second yes, and runs", async () => {
    const file = path.join(s.project, "always.txt");
    // No rule matches, so the untrusted policy asks and proposes `touch` as the prefix to allow.
    const { code, screen } = await drive(
      file,
      [
        { waitFor: MENU, key: "a" },
        { waitFor: PREFIXES, key: "\r" },
        { waitFor: "[y/N]", key: "y" },
      ],
      ["--approval-policy", "untrusted"],
    );
    expect(screen).toContain('prefix_rule(pattern=["touch"');
    expect(code).toBe(0);
    expect(existsSync(file)).toBe(true);
    // Sandboxed by default: matching commands run without asking, still in the sandbox.
    expect(readFileSync(s.userRulesFile, "utf8")).toMatch(/prefix_rule\(pattern=\["touch".*decision="allow", sandbox="workspace-write"\)\n$/);
  });

  it("'always allow' lists the prefixes, one a line, the program proposed; the right arrow widens it to the whole command", async () => {
    rmSync(s.userRulesFile, { force: true });
    const file = path.join(s.project, "always-wider.txt");
    const { code, screen } = await drive(
      file,
      [
        { waitFor: MENU, key: "a" },
        { waitFor: PREFIXES, key: "\u001b[C" },
        { waitFor: `> 2. touch ${file}`, key: "\r" },
        { waitFor: "[y/N]", key: "y" },
      ],
      ["--approval-policy", "untrusted"],
    );
    expect(screen).toContain("Always allow commands starting with which prefix?");
    expect(screen).toContain(`2. touch ${file} …`);
    expect(code).toBe(0);
    expect(existsSync(file)).toBe(true);
    expect(readFileSync(s.userRulesFile, "utf8")).toBe(`prefix_rule(pattern=["touch", ${JSON.stringify(file)}], decision="allow", sandbox="workspace-write")\n`);
  });

  it("'always allow outside the sandbox' is its own choice and writes the plain rule", async () => {
    rmSync(s.userRulesFile, { force: true });
    const file = path.join(s.project, "always-outside.txt");
    const { code, screen } = await drive(
      file,
      [
        { waitFor: MENU, key: "u" },
        { waitFor: PREFIXES, key: "\r" },
        { waitFor: "[y/N]", key: "y" },
      ],
      ["--approval-policy", "untrusted"],
    );
    expect(screen).toContain("run WITHOUT the sandbox, without asking");
    expect(code).toBe(0);
    expect(readFileSync(s.userRulesFile, "utf8")).toMatch(/prefix_rule\(pattern=\["touch".*decision="allow"\)\n$/);
  });

  it("'deny' refuses with exit 126 and runs nothing", async () => {
    const file = path.join(s.project, "denied.txt");
    const { code } = await drive(file, [{ waitFor: MENU, key: "n" }]);
    expect(code).toBe(126);
    expect(existsSync(file)).toBe(false);
  });

  it("'abort' stops with exit 130 and runs nothing", async () => {
    const file = path.join(s.project, "aborted.txt");
    const { code } = await drive(file, [{ waitFor: MENU, key: "q" }]);
    expect(code).toBe(130);
    expect(existsSync(file)).toBe(false);
  });

  it.skipIf(skip !== undefined)("after a likely sandbox denial, asks to run again without the sandbox (on-failure; needs bubblewrap)", async () => {
    const outside = `/var/tmp/sg-cli-retry-${process.pid}`;
    try {
      const { code, screen } = await drive(outside, [{ waitFor: MENU, key: "y" }], ["--approval-policy", "on-failure"], ["bash", "-c", `echo retried > ${outside}`]);
      expect(screen).toContain("Read-only file system");
      expect(screen).toContain("Run it again WITHOUT the sandbox?");
      expect(code).toBe(0);
      expect(readFileSync(outside, "utf8")).toBe("retried\n");
    } finally {
      rmSync(outside, { force: true });
    }
  });
});

/** What a person sees on a 120×40 terminal after `bytes`. */
async function rendered(bytes: string): Promise<string> {
  const term = new TerminalRenderer({ cols: 120, rows: 40 });
  term.write(bytes);
  const text = await term.text();
  term.dispose();
  return text;
}

describe("the approval prompt cannot be spoofed with control characters", () => {
  // Shown unescaped, the carriage return and erase-line leave only `ls -la` on the command line.
  const script = "touch spoofed.txt #\r\u001b[2K\u001b[1Als -la";

  it("control: the same command text written raw to the terminal shows `ls -la` and hides `touch`", async () => {
    const handle = spawnPty({
      argv: [process.execPath, "-e", `process.stdout.write("  command  " + ${JSON.stringify(`bash -c '${script}'`)} + "\\n")`],
      cwd: s.project,
      env: s.env,
      timeoutMs: 30_000,
      cols: 120,
      rows: 40,
    });
    let screen = "";
    handle.onOutput((c) => (screen += Buffer.from(c.data).toString("utf8")));
    await handle.result();
    const seen = await rendered(screen);
    expect(seen).toContain("ls -la");
    expect(seen).not.toContain("touch");
  });

  it("through the real prompt the person sees the real command with the controls escaped, and 'n' runs nothing", async () => {
    const file = path.join(s.project, "spoofed.txt");
    const { code, screen } = await drive(file, [{ waitFor: MENU, key: "n" }], ["--approval-policy", "untrusted"], ["bash", "-c", script]);
    const seen = await rendered(screen);
    expect(seen).toContain("$'touch spoofed.txt #\\r\\x1b[2K\\x1b[1Als -la'");
    expect(screen).not.toContain("\u001b[2K\u001b[1Als");
    expect(code).toBe(126);
    expect(existsSync(file)).toBe(false);
  });
});
