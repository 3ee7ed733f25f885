// What a person sees: a command's output cannot draw over, hide or fake an approval prompt of
// `shellgate exec`. Each test runs the built bin in a real terminal (a tmux pane) and reads the screen
// as a person would; each control writes the same bytes straight to a pane and shows what they do.
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { BIN, eventually, makeScratch, realSandboxSkip, type Scratch } from "./helpers.js";
import { drawnConcealed, shellQuote, TmuxPane, tmuxMissing } from "./tmux-pane.js";

const skip = (await realSandboxSkip()) ?? tmuxMissing();
let s: Scratch;
let outside: string;
const panes: TmuxPane[] = [];
beforeAll(() => {
  s = makeScratch();
  // Read-only in the sandbox (outside every writable root), so a write there fails and asks for a retry.
  outside = mkdtempSync("/var/tmp/sg-cli-terminal-");
});
afterEach(() => {
  for (const pane of panes.splice(0)) pane.close();
});
afterAll(() => {
  s.cleanup();
  rmSync(outside, { recursive: true, force: true });
});

/** A pane running `shellgate exec ARGS` in the scratch project; `EXIT=<code>` is printed when it ends. */
function execPane(args: string[]): TmuxPane {
  const command = `cd ${shellQuote(s.project)} && ${[process.execPath, BIN, "exec", ...args].map(shellQuote).join(" ")}; echo EXIT=$?`;
  const pane = new TmuxPane(command, s.env);
  panes.push(pane);
  return pane;
}

/** A pane that only writes `bytes` (a printf format) to the terminal. */
function rawPane(printfFormat: string): TmuxPane {
  const pane = new TmuxPane(`printf ${shellQuote(printfFormat)}; echo; echo DONE`, s.env);
  panes.push(pane);
  return pane;
}

const MENU = "Ctrl-C aborts";
// Up twelve lines, erase to the end of the screen, and draw a prompt of its own (printf format).
const FAKE_PROMPT = "\\033[12A\\033[J\\033[1mshellgate: a sandboxed command wants to reach good.example.com:443\\033[0m\\n  > [y] allow good.example.com for this command\\n";

describe.skipIf(skip !== undefined)(`a prompt on a person's terminal (tmux, real sandbox, built bin)${skip ? ` (skipped: ${skip})` : ""}`, () => {
  it("output printed while a network prompt is on screen cannot draw a fake prompt over it: held, then written below the answer without its cursor movement", async () => {
    const rules = s.write("rules/net.rules", 'network_rule(host="ask.test", protocol="https", decision="prompt", justification="a mirror")\n');
    const marker = path.join(s.project, "fake-printed");
    // While curl waits on the prompt, a background job prints the attack and then leaves a marker.
    const script = s.write(
      "attack.sh",
      [
        "printf 'building...\\n'",
        `( sleep 1; printf '${FAKE_PROMPT}'; : > ${shellQuote(marker)} ) &`,
        "curl -s -o /dev/null https://ask.test/",
        "wait",
        "",
      ].join("\n"),
    );
    const pane = execPane(["--rules", rules, "--", "sh", script]);
    expect(await pane.waitFor(MENU)).toBe(true);
    expect(await eventually(() => existsSync(marker), 300)).toBe(true);
    // The bytes are in shellgate's pipe now; a moment more lets it read them (the checks after the
    // answer hold either way: they show what those bytes did).
    await new Promise((resolve) => setTimeout(resolve, 500));
    // The attack has been printed by now; the screen still shows the real prompt, and only it.
    const during = pane.screen();
    expect(during).toContain("shellgate: a sandboxed command wants to reach ask.test:443");
    expect(during).toContain("> [y] allow ask.test for this command");
    expect(during).toContain("building...");
    expect(during).not.toContain("good.example.com");

    pane.send("n");
    expect(await pane.waitFor("EXIT=")).toBe(true);
    const after = pane.screen();
    // The prompt and the answer are intact; the held output came after them, and moved nothing.
    expect(after).toContain("shellgate: a sandboxed command wants to reach ask.test:443");
    expect(after).toContain("> [y] allow ask.test for this command");
    const answer = after.indexOf("→ refuse ask.test");
    expect(answer).toBeGreaterThan(after.indexOf("wants to reach ask.test:443"));
    expect(after.indexOf("wants to reach good.example.com")).toBeGreaterThan(answer);
  });

  it("control: the same bytes written straight to a terminal erase a prompt drawn before them and replace it", async () => {
    const prompt = "shellgate: a sandboxed command wants to reach ask.test:443\\n\\n  > [y] allow ask.test for this command\\n    [n] refuse ask.test\\n";
    const pane = rawPane(`building...\\n${prompt}${FAKE_PROMPT}`);
    expect(await pane.waitFor("DONE")).toBe(true);
    const screen = pane.screen();
    expect(screen).toContain("wants to reach good.example.com:443");
    expect(screen).not.toContain("wants to reach ask.test:443");
    expect(screen).not.toContain("allow ask.test");
  });

  it("a command that ends in conceal (SGR 8) does not hide the retry prompt that follows it", async () => {
    const target = path.join(outside, "denied");
    const pane = execPane(["--approval-policy", "on-failure", "--", "sh", "-c", `printf 'almost done\\033[8m'; touch ${shellQuote(target)}`]);
    expect(await pane.waitFor(MENU)).toBe(true);
    const screen = pane.screen(true);
    expect(drawnConcealed(screen, "It failed in the sandbox. Run it again WITHOUT the sandbox?")).toBe(false);
    expect(drawnConcealed(screen, "[n] deny")).toBe(false);
    // Its own line: the prompt does not continue the command's unfinished one.
    expect(pane.screen()).toMatch(/^It failed in the sandbox\. Run it again WITHOUT the sandbox\?$/m);
    pane.send("n");
    expect(await pane.waitFor("EXIT=")).toBe(true);
    const after = pane.screen(true);
    expect(drawnConcealed(after, "the retry without the sandbox was not run")).toBe(false);
    expect(existsSync(target)).toBe(false);
  });

  it("control: the same bytes written straight to a terminal conceal the prompt text after them", async () => {
    const pane = rawPane("almost done\\033[8m\\nIt failed in the sandbox. Run it again WITHOUT the sandbox?\\n");
    expect(await pane.waitFor("DONE")).toBe(true);
    expect(drawnConcealed(pane.screen(true), "It failed in the sandbox. Run it again WITHOUT the sandbox?")).toBe(true);
  });
});
