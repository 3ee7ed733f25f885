import { escapeForDisplay } from "@shellgate/orchestrator";
import { amendmentChoicesOf, ANSI, choicesFor, PLAIN, proposedChoiceIndex, renderAmendConfirm, renderHeader, renderMenu, renderPrefixChoices, type Style } from "./render.js";
import type { PromptDecision, PromptRequest } from "./types.js";

/** Where keys come from (`process.stdin` fits). */
interface PromptInput extends NodeJS.ReadableStream {
  isTTY?: boolean;
  isRaw?: boolean;
  setRawMode?(mode: boolean): unknown;
}

/** Where the prompt is drawn (`process.stderr` fits). */
interface PromptOutput extends NodeJS.WritableStream {
  isTTY?: boolean;
  hasColors?(): boolean;
}

/**
 * The command output that shares the terminal with the prompt. While a prompt is on screen nothing
 * else may draw: output arriving then could move the cursor over the prompt or redraw it.
 */
export interface PromptScreen {
  /**
   * Hold every later write of the command's output until `release`. Returns what must be written
   * before the prompt so that it starts at the beginning of a line of its own (a newline unless the
   * output ended with one).
   */
  hold(): string;
  /** Write what was held, in order, and pass output through again. */
  release(): void;
}

/**
 * Written before every prompt: default rendition (an SGR left on by output, conceal above all, would
 * hide the prompt), a visible cursor, and the start of the line. Leaving the alternate screen and
 * resetting the scroll region are not sent: command output reaches the terminal only through
 * `TerminalOutputFilter`, which drops the sequences that set them, and both resets move the cursor
 * (to the saved position, to the top) on common terminals.
 */
const PROMPT_PREAMBLE = "\u001b[0m\u001b[?25h\r";

/** Where the prompt reads keys and draws; both must be terminals. */
export interface TerminalPromptOptions {
  input: PromptInput;
  output: PromptOutput;
  /** Named in the "always allow" confirmation; where the rule will be written. */
  userRulesFile: string;
  /** Force colour on or off; by default the output's `hasColors()` decides (it honours NO_COLOR and TERM=dumb). */
  color?: boolean;
  /** The command output drawn on the same terminal, held while a prompt is on screen. */
  screen?: PromptScreen;
}

interface Key {
  name?: string;
  ctrl?: boolean;
  sequence?: string;
}

/** Whether a person can be asked here: keys come from a terminal and the prompt goes to one. */
export function canPrompt(input: { isTTY?: boolean }, output: { isTTY?: boolean }): boolean {
  return input.isTTY === true && output.isTTY === true;
}

/**
 * Create an approval function that asks on the terminal. Requests are asked one at a time, in order.
 * The abort signal (a cancelled call) withdraws a pending question as "abort".
 */
export function createTerminalPrompt(
  options: TerminalPromptOptions,
): (request: PromptRequest, context?: { signal?: AbortSignal }) => Promise<PromptDecision> {
  let queue: Promise<unknown> = Promise.resolve();
  return (request, context) => {
    const next = queue.then(() => askOnce(options, request, context?.signal));
    queue = next.catch(() => undefined);
    return next;
  };
}

function styleFor(options: TerminalPromptOptions): Style {
  const color = options.color ?? (typeof options.output.hasColors === "function" ? options.output.hasColors() : false);
  return color ? ANSI : PLAIN;
}

async function askOnce(options: TerminalPromptOptions, request: PromptRequest, signal?: AbortSignal): Promise<PromptDecision> {
  // Loaded when a question is asked, not with every `exec`: node:readline is a few modules of start-up.
  const { emitKeypressEvents } = await import("node:readline");
  const { input, output } = options;
  const style = styleFor(options);
  const choices = choicesFor(request, options.userRulesFile);
  const rulesFile = request.amendmentRulesFile ?? options.userRulesFile;
  let selected = 0;
  let confirming: false | "sandboxed" | "unsandboxed" = false;
  // "Always allow": which rule (sandboxed or not) while its prefix is chosen, and the prefix chosen.
  let choosingPrefix: false | "sandboxed" | "unsandboxed" = false;
  const prefixes = amendmentChoicesOf(request);
  let prefixIndex = proposedChoiceIndex(request);
  let drawn = 0;
  const write = (lines: string[]) => {
    output.write(`${lines.join("\n")}\n`);
    return lines.length;
  };
  const redraw = (lines: string[]) => {
    // Move to the start of the block drawn last and clear below it, so the menu updates in place.
    if (drawn > 0) output.write(`\u001b[${drawn}F\u001b[J`);
    drawn = write(lines);
  };

  return new Promise<PromptDecision>((resolve) => {
    const wasRaw = input.isRaw === true;
    emitKeypressEvents(input);
    input.setRawMode?.(true);
    input.resume();

    const finish = (decision: PromptDecision, note: string) => {
      input.off("keypress", onKey);
      signal?.removeEventListener("abort", onAbort);
      input.setRawMode?.(wasRaw);
      input.pause();
      write([`  → ${note}`, ""]);
      options.screen?.release();
      resolve(decision);
    };
    const onAbort = () => finish("abort", "cancelled");
    const pick = (index: number) => {
      const choice = choices[index];
      if (!choice) return;
      if (choice.value === "amend" || choice.value === "amend_unsandboxed") {
        const which = choice.value === "amend" ? "sandboxed" : "unsandboxed";
        if (prefixes.length > 1) {
          choosingPrefix = which;
          redraw(renderPrefixChoices(prefixes, prefixIndex, style));
          return;
        }
        confirm(which);
        return;
      }
      finish(choice.value, choice.label);
    };
    const chosenPrefix = (): readonly string[] => prefixes[prefixIndex] ?? request.proposedAmendment ?? [];
    const confirm = (which: "sandboxed" | "unsandboxed") => {
      confirming = which;
      choosingPrefix = false;
      const sandbox = which === "sandboxed" ? request.amendmentSandbox : undefined;
      redraw(renderAmendConfirm(chosenPrefix(), rulesFile, style, request.amendmentBypassesSandbox !== false, sandbox));
    };
    const onPrefixKey = (name: string, which: "sandboxed" | "unsandboxed") => {
      if (name === "left" || name === "up" || name === "k" || name === "h" || name === "-") prefixIndex = Math.max(0, prefixIndex - 1);
      else if (name === "right" || name === "down" || name === "j" || name === "l" || name === "+" || name === "tab") {
        prefixIndex = Math.min(prefixes.length - 1, prefixIndex + 1);
      } else if (name === "return" || name === "enter") return confirm(which);
      else if (name === "escape" || name === "n") {
        choosingPrefix = false;
        return redraw(renderMenu(choices, selected, style));
      } else if (/^[1-9]$/.test(name) && Number(name) <= prefixes.length) {
        prefixIndex = Number(name) - 1;
        return confirm(which);
      } else return;
      redraw(renderPrefixChoices(prefixes, prefixIndex, style));
    };
    const onKey = (str: string | undefined, key: Key | undefined) => {
      const name = key?.name ?? str ?? "";
      if (key?.ctrl && (name === "c" || name === "d")) return finish("abort", "abort");
      if (choosingPrefix) return onPrefixKey(name, choosingPrefix);
      if (confirming) {
        if (name === "y") {
          const amendment = [...chosenPrefix()];
          // Said explicitly either way, so the orchestrator never has to guess which rule was confirmed.
          const sandboxed = confirming === "sandboxed" && request.amendmentSandbox !== undefined;
          const decision = request.amendmentSandbox !== undefined ? { decision: "approved_with_amendment" as const, amendment, sandboxed } : { decision: "approved_with_amendment" as const, amendment };
          return finish(decision, `rule added to ${escapeForDisplay(rulesFile)}`);
        }
        if (name === "n" || name === "escape" || name === "return" || name === "enter") {
          confirming = false;
          redraw(renderMenu(choices, selected, style));
        }
        return;
      }
      if (name === "up" || name === "k") selected = (selected + choices.length - 1) % choices.length;
      else if (name === "down" || name === "j" || name === "tab") selected = (selected + 1) % choices.length;
      else if (name === "return" || name === "enter") return pick(selected);
      else if (name === "escape") return finish("abort", "abort");
      else {
        const index = choices.findIndex((c) => c.key === name || String(choices.indexOf(c) + 1) === name);
        if (index >= 0) return pick(index);
        return;
      }
      redraw(renderMenu(choices, selected, style));
    };

    if (signal?.aborted) return onAbort();
    signal?.addEventListener("abort", onAbort, { once: true });
    input.on("keypress", onKey);
    // Without a screen to ask, where the cursor stands is unknown: a newline keeps the prompt off the line.
    output.write(`${PROMPT_PREAMBLE}${options.screen ? options.screen.hold() : "\n"}`);
    write(renderHeader(request, style));
    drawn = write(renderMenu(choices, selected, style));
  });
}
