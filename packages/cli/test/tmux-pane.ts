import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { eventually } from "./helpers.js";

/** Why tmux cannot be used here; undefined when it can. */
export function tmuxMissing(): string | undefined {
  try {
    execFileSync("tmux", ["-V"], { stdio: "ignore" });
    return undefined;
  } catch {
    return "tmux is not installed (.ci/run installs it)";
  }
}

/** A single-quoted shell word. */
export function shellQuote(word: string): string {
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

/**
 * A terminal as a person sees it: a detached tmux session of its own (own socket, no config), running
 * one shell command with exactly `env`. `screen()` is what the pane shows now.
 */
export class TmuxPane {
  readonly #dir: string;
  readonly #socket: string;

  /** Start `command` (a `sh -c` script) in a 120×40 pane. */
  constructor(command: string, env: Record<string, string>) {
    this.#dir = mkdtempSync(path.join(os.tmpdir(), "sg-tmux-"));
    this.#socket = path.join(this.#dir, "socket");
    const assignments = Object.entries({ TERM: "xterm-256color", ...env }).map(([k, v]) => `${k}=${shellQuote(v)}`);
    // `env -i`: the pane's command gets this environment and nothing of the test runner's.
    const script = `env -i ${assignments.join(" ")} sh -c ${shellQuote(command)}; sleep 600`;
    this.#tmux(["-f", "/dev/null", "new-session", "-d", "-x", "120", "-y", "40", "-s", "t", script]);
  }

  /** The pane's text; with `attributes`, with the SGR sequences that draw it (`capture-pane -e`). */
  screen(attributes = false): string {
    return this.#tmux(["capture-pane", "-p", ...(attributes ? ["-e"] : []), "-t", "t"]);
  }

  /** Wait (bounded) until the pane shows `text`; false when it never did. */
  waitFor(text: string, tries = 300): Promise<boolean> {
    return eventually(() => this.screen().includes(text), tries, 50);
  }

  /** Type `keys` (literally) into the pane. */
  send(keys: string): void {
    this.#tmux(["send-keys", "-l", "-t", "t", keys]);
  }

  /** End the tmux server and everything in the pane. */
  close(): void {
    try {
      this.#tmux(["kill-server"]);
    } catch {
      // already gone
    }
    rmSync(this.#dir, { recursive: true, force: true });
  }

  #tmux(args: string[]): string {
    return execFileSync("tmux", ["-S", this.#socket, ...args], {
      encoding: "utf8",
      // tmux runs a pane's command with $SHELL, else the account's login shell: nobody's is nologin.
      env: { PATH: process.env["PATH"] ?? "/usr/bin:/bin", TERM: "xterm-256color", SHELL: "/bin/sh" },
    });
  }
}

/**
 * Whether the first `needle` in a `capture-pane -e` screen is drawn concealed (SGR 8), following the
 * SGR sequences before it.
 */
export function drawnConcealed(screen: string, needle: string): boolean {
  const at = screen.indexOf(needle);
  if (at < 0) throw new Error(`${JSON.stringify(needle)} is not on the screen`);
  let concealed = false;
  for (const m of screen.slice(0, at).matchAll(/\u001b\[([0-9;:]*)m/g)) {
    const params = m[1]!.split(";");
    for (let i = 0; i < params.length; i++) {
      const p = params[i]!;
      const n = Number(p.split(":")[0] || "0");
      // An extended colour's arguments are colour values (`38;5;8` is grey, not conceal).
      if ((n === 38 || n === 48 || n === 58) && !p.includes(":")) i += params[i + 1] === "5" ? 2 : params[i + 1] === "2" ? 4 : 0;
      else if (n === 0) concealed = false;
      else if (n === 8) concealed = true;
      else if (n === 28) concealed = false;
    }
  }
  return concealed;
}
