import { PassThrough } from "node:stream";
import { TerminalRenderer } from "@shellgate/pty";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  amendmentRuleLine,
  canPrompt,
  choicesFor,
  createTerminalPrompt,
  displayArgv,
  elicitationMessage,
  renderHeader,
  renderMenu,
  type PromptRequest,
} from "../src/index.js";
import { renderAmendConfirm, renderPrefixChoices } from "../src/approval/render.js";

const request: PromptRequest = {
  argv: ["git", "push", "origin", "main"],
  cwd: "/work/project",
  reason: "Pushing publishes commits to a shared remote.",
  proposedAmendment: ["git", "push"],
  matchedRules: [
    { matchedPrefix: ["git", "push"], decision: "prompt", source: { file: "/home/me/.config/shellgate/rules/default.rules", line: 12, column: 1 } },
  ],
};

function fakeTerminal() {
  const input = Object.assign(new PassThrough(), { isTTY: true, isRaw: false, setRawMode(mode: boolean) { input.isRaw = mode; return input; } });
  const output = Object.assign(new PassThrough(), { isTTY: true });
  let text = "";
  output.on("data", (d: Buffer) => (text += d.toString()));
  return { input, output, text: () => text };
}

async function answer(keys: string[], req: PromptRequest = request) {
  const term = fakeTerminal();
  const ask = createTerminalPrompt({ input: term.input, output: term.output, userRulesFile: "/rules/default.rules", color: false });
  const pending = ask(req);
  for (const k of keys) {
    await new Promise((r) => setImmediate(r));
    term.input.write(k);
  }
  const decision = await pending;
  return { decision, text: term.text(), raw: term.input.isRaw };
}

describe("approval prompt text", () => {
  it("shows command, cwd, reason and the rule's file:line", () => {
    const text = renderHeader(request).join("\n");
    expect(text).toContain("git push origin main");
    expect(text).toContain("/work/project");
    expect(text).toContain("Pushing publishes commits");
    expect(text).toContain("/home/me/.config/shellgate/rules/default.rules:12");
    expect(text).not.toMatch(/\u001b\[/);
  });

  it("offers always-allow only with a proposed prefix, and marks the selection without colour", () => {
    expect(choicesFor(request).map((c) => c.key)).toEqual(["y", "s", "a", "n", "q"]);
    expect(choicesFor({ argv: ["x"], cwd: "/" }).map((c) => c.key)).toEqual(["y", "s", "n", "q"]);
    const menu = renderMenu(choicesFor(request), 3);
    expect(menu).toContain("  > [n] deny (tell the agent no)");
    expect(menu[0]).toBe("    [y] run once");
  });

  it("quotes argv for display and renders the exact rule line", () => {
    expect(displayArgv(["echo", "a b", "it's", ""])).toBe(`echo 'a b' 'it'\\''s' ''`);
    expect(amendmentRuleLine(["echo", "Hello, world!"])).toBe('prefix_rule(pattern=["echo", "Hello, world!"], decision="allow")');
  });

  it("an interactive session says that approving covers every later input, and where it runs", () => {
    const session: PromptRequest = { argv: ["bash", "-i"], cwd: "/w", interactiveSession: true, sandboxPermissions: "require_escalated" };
    expect(renderHeader(session).join("\n")).toContain(
      "session  this starts an interactive session: approving it also approves everything the agent types into it later, without asking again, and that runs outside the sandbox",
    );
    expect(choicesFor(session)[0]!.label).toBe("run once, with every later input to the session");
    expect(renderHeader({ ...session, sandboxPermissions: "use_default" }).join("\n")).toContain("without asking again, still in the sandbox");
    // CONTROL: a command without a session says nothing of later input.
    expect(renderHeader({ argv: ["bash", "-i"], cwd: "/w", sandboxPermissions: "require_escalated" }).join("\n")).not.toContain("session");
  });

  it("needs a terminal on both ends", () => {
    expect(canPrompt({ isTTY: true }, { isTTY: true })).toBe(true);
    expect(canPrompt({ isTTY: false }, { isTTY: true })).toBe(false);
    expect(canPrompt({}, { isTTY: true })).toBe(false);
  });
});

/** What a person sees after `text` is written to a terminal. */
async function onScreen(text: string): Promise<string> {
  const term = new TerminalRenderer({ cols: 120, rows: 30 });
  term.write(text.replace(/\n/g, "\r\n"));
  const seen = await term.text();
  term.dispose();
  return seen;
}

/** A spoof: the prompt shows `ls -la`, `y` runs `rm -rf`. */
const SPOOF: PromptRequest = {
  argv: ["sh", "-c", "rm -rf ~/important #\r\u001b[2Kls -la"],
  cwd: "/work/\u001b[2Kproject",
  reason: "needs\rOK: known safe",
  justification: "listing files \u202etxt.exe",
  proposedAmendment: ["sh", "-c", "rm -rf ~/important #\r\u001b[2Kls -la"],
};
/** Raw C0, DEL, C1, bidi controls and the other invisible format characters. */
const RAW_HIDDEN = /[\u0000-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/;

describe("approval prompt cannot be spoofed by control characters", () => {
  it("control: the command line written unescaped shows `ls -la` and hides `rm -rf`", async () => {
    const seen = await onScreen(`  command  ${SPOOF.argv.join(" ")}\n`);
    expect(seen).toContain("ls -la");
    expect(seen).not.toContain("rm -rf");
  });

  it("the prompt shows the real command with its control characters escaped", async () => {
    const lines = renderHeader(SPOOF);
    for (const line of lines) expect(line).not.toMatch(RAW_HIDDEN);
    const header = lines.join("\n");
    const seen = await onScreen(header);
    expect(seen).toContain(`$'rm -rf ~/important #\\r\\x1b[2Kls -la'`);
    expect(seen).toContain("/work/\\x1b[2Kproject");
    expect(seen).toContain("needs\\rOK: known safe");
    expect(seen).toContain("listing files \\u202etxt.exe");
    const menuLines = renderMenu(choicesFor(SPOOF), 0);
    for (const line of menuLines) expect(line).not.toMatch(RAW_HIDDEN);
    const menu = menuLines.join("\n");
    expect(menu).toContain("\\x1b[2K");
    const confirmLines = renderAmendConfirm(SPOOF.proposedAmendment ?? [], "/rules/\rdefault.rules");
    for (const line of confirmLines) expect(line).not.toMatch(RAW_HIDDEN);
    const confirm = confirmLines.join("\n");
    expect(confirm).toContain("/rules/\\rdefault.rules");
  });

  it("the MCP elicitation message and choices carry no raw control character (property)", () => {
    fc.assert(
      fc.property(
        fc.array(fc.string({ unit: "binary" }), { minLength: 1, maxLength: 4 }),
        fc.string({ unit: "binary" }),
        fc.string({ unit: "binary" }),
        fc.string({ unit: "binary" }),
        (argv, cwd, reason, justification) => {
          const message = elicitationMessage({
            argv,
            cwd,
            reason,
            justification,
            matchedRules: [{ decision: "prompt", source: { file: cwd, line: 1 } }],
          });
          expect(message.split("\n").join("")).not.toMatch(RAW_HIDDEN);
          expect(displayArgv(argv)).not.toMatch(RAW_HIDDEN);
        },
      ),
      { numRuns: 1000 },
    );
  });

  it("the list of prefixes to choose from shows control characters escaped, each on one line", () => {
    fc.assert(
      fc.property(
        fc.array(fc.string({ unit: "binary", minLength: 1 }), { minLength: 1, maxLength: 6 }),
        fc.nat(),
        (argv, at) => {
          const prefixes = argv.map((_, i) => argv.slice(0, i + 1));
          const selected = at % prefixes.length;
          const lines = renderPrefixChoices(prefixes, selected);
          for (const line of lines) expect(line).not.toMatch(RAW_HIDDEN);
          // Every line ends where the array says: no word may add a line or move the cursor.
          expect(lines.join("\n").split(/\r\n|[\n\r\v\f\u0085\u2028\u2029]/)).toHaveLength(lines.length);
          const numbered = lines.filter((l) => /^ {2}(> | {2})\d+\. /.test(l));
          expect(numbered).toEqual(prefixes.map((p, i) => `  ${i === selected ? "> " : "  "}${i + 1}. ${displayArgv(p)} …`));
        },
      ),
      { numRuns: 1000 },
    );
  });

  it("a word with hidden characters is shown in $'...' quoting, backslashes and quotes escaped", () => {
    expect(displayArgv(["printf", "a\\b'c\rd"])).toBe(`printf $'a\\\\b\\'c\\rd'`);
  });
});

describe("approval prompt keys", () => {
  it("letters pick directly", async () => {
    expect((await answer(["y"])).decision).toBe("approved");
    expect((await answer(["s"])).decision).toBe("approved_for_session");
    expect((await answer(["n"])).decision).toBe("denied");
    expect((await answer(["q"])).decision).toBe("abort");
  });

  it("arrows move the selection and Enter chooses; raw mode is restored", async () => {
    const result = await answer(["\u001b[B", "\u001b[B", "\u001b[B", "\r"]);
    expect(result.decision).toBe("denied");
    expect(result.raw).toBe(false);
    const wrap = await answer(["\u001b[A", "\r"]);
    expect(wrap.decision).toBe("abort");
  });

  it("Ctrl-C aborts", async () => {
    expect((await answer(["\u0003"])).decision).toBe("abort");
  });

  it("always-allow shows the rule before writing and needs a second yes", async () => {
    const result = await answer(["a", "y"]);
    expect(result.decision).toEqual({ decision: "approved_with_amendment", amendment: ["git", "push"] });
    expect(result.text).toContain('prefix_rule(pattern=["git", "push"], decision="allow")');
    expect(result.text).toContain("/rules/default.rules");
  });

  it("always-allow with several prefixes: the proposed one is selected, arrows and numbers widen or narrow it, n goes back", async () => {
    const commit: PromptRequest = {
      argv: ["git", "commit", "-m", "fix\u001b[2J"],
      cwd: "/w",
      proposedAmendment: ["git", "commit"],
      amendmentChoices: [["git", "commit"], ["git", "commit", "-m"], ["git", "commit", "-m", "fix\u001b[2J"]],
    };
    const amend = (amendment: string[]) => ({ decision: "approved_with_amendment", amendment });
    const proposed = await answer(["a", "\r", "y"], commit);
    expect(proposed.decision).toEqual(amend(["git", "commit"]));
    expect(proposed.text).toContain("> 1. git commit …");
    expect(proposed.text).toContain("3. git commit -m $'fix\\x1b[2J' …");
    expect((await answer(["a", "\u001b[C", "\u001b[C", "\r", "y"], commit)).decision).toEqual(amend(["git", "commit", "-m", "fix\u001b[2J"]));
    expect((await answer(["a", "\u001b[C", "\u001b[D", "\u001b[D", "\r", "y"], commit)).decision).toEqual(amend(["git", "commit"]));
    expect((await answer(["a", "2", "y"], commit)).decision).toEqual(amend(["git", "commit", "-m"]));
    expect((await answer(["a", "n", "n"], commit)).decision).toBe("denied");
  });

  it("declining the rule goes back to the menu", async () => {
    expect((await answer(["a", "n", "n"])).decision).toBe("denied");
  });

  it("ignores always-allow when nothing was proposed", async () => {
    expect((await answer(["a", "y"], { argv: ["ls"], cwd: "/" })).decision).toBe("approved");
  });

  it("a cancelled call withdraws the question", async () => {
    const term = fakeTerminal();
    const ask = createTerminalPrompt({ input: term.input, output: term.output, userRulesFile: "/r", color: false });
    const controller = new AbortController();
    const pending = ask(request, { signal: controller.signal });
    controller.abort();
    expect(await pending).toBe("abort");
  });
});

describe("a prompt about a host a running command wants to reach", () => {
  const request = {
    argv: ["curl", "https://mirror.test/x"],
    cwd: "/w",
    why: { kind: "network", text: "`curl https://mirror.test/x` wants to reach mirror.test:443 (needs approval by network_rule at /r:2:1)" },
    offeredDecisions: ["approved", "approved_for_session", "denied", "abort"],
    network: { host: "mirror.test\u001b[2J", port: 443, protocol: "https" },
  };

  it("offers the host for the command or the session, escaped, and never an amendment", () => {
    const choices = choicesFor(request);
    expect(choices.map((c) => c.key)).toEqual(["y", "s", "n", "q"]);
    expect(choices[0]!.label).toBe("allow mirror.test\\x1b[2J for this command");
    expect(choices.some((c) => c.label.includes("\u001b"))).toBe(false);
  });

  it("says in the title which host and port it is about", () => {
    const header = renderHeader(request).join("\n");
    expect(header).toContain("shellgate: a sandboxed command wants to reach mirror.test\\x1b[2J:443");
    expect(header).toContain("host     mirror.test\\x1b[2J:443 (https)");
    expect(header).not.toContain("\u001b");
  });
});
