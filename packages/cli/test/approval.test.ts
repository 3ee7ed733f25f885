import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { amendmentRuleLine, canPrompt, choicesFor, createTerminalPrompt, displayArgv, renderHeader, renderMenu, type PromptRequest } from "../src/index.js";

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
    expect(menu[3]).toBe("  > [n] deny (tell the agent no)");
    expect(menu[0]).toBe("    [y] run once");
  });

  it("quotes argv for display and renders the exact rule line", () => {
    expect(displayArgv(["echo", "a b", "it's", ""])).toBe(`echo 'a b' 'it'\\''s' ''`);
    expect(amendmentRuleLine(["echo", "Hello, world!"])).toBe('prefix_rule(pattern=["echo", "Hello, world!"], decision="allow")');
  });

  it("needs a terminal on both ends", () => {
    expect(canPrompt({ isTTY: true }, { isTTY: true })).toBe(true);
    expect(canPrompt({ isTTY: false }, { isTTY: true })).toBe(false);
    expect(canPrompt({}, { isTTY: true })).toBe(false);
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
