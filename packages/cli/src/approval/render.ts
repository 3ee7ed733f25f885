import { escapeForDisplay, hasHiddenCharacters } from "@shellgate/orchestrator";
import type { PromptRequest } from "./types.js";

/** One choice of the approval menu. */
export interface Choice {
  key: string;
  label: string;
  value: "approved" | "approved_for_session" | "amend" | "amend_unsandboxed" | "denied" | "abort";
}

/** Styling hooks; identity functions when colour is off, so the text reads the same with NO_COLOR. */
export interface Style {
  bold(s: string): string;
  dim(s: string): string;
  accent(s: string): string;
}

/** No colour at all. */
export const PLAIN: Style = { bold: (s) => s, dim: (s) => s, accent: (s) => s };

/** ANSI bold/dim/cyan. */
export const ANSI: Style = {
  bold: (s) => `\u001b[1m${s}\u001b[22m`,
  dim: (s) => `\u001b[2m${s}\u001b[22m`,
  accent: (s) => `\u001b[36m${s}\u001b[39m`,
};

const SAFE_TOKEN = /^[A-Za-z0-9_@%+=:,./-]+$/;

/**
 * The argv as a person would type it; for display only — what runs is always the argv itself. A word
 * holding control or invisible characters (`\r`, ESC, bidi overrides…) is shown in bash's `$'…'`
 * quoting with those characters escaped, so the prompt can neither be redrawn nor disguised by it.
 */
export function displayArgv(argv: readonly string[]): string {
  return argv.map(displayWord).join(" ");
}

function displayWord(t: string): string {
  if (t !== "" && SAFE_TOKEN.test(t)) return t;
  if (hasHiddenCharacters(t)) return `$'${escapeForDisplay(t.replace(/\\/g, "\\\\").replace(/'/g, "\\'"))}'`;
  return `'${t.replace(/'/g, `'\\''`)}'`;
}

/**
 * The exact line "always allow" appends to the user's rules file (raw: escape it before showing it);
 * with `sandbox`, the rule keeps its commands in that sandbox (a shellgate extension).
 */
export function amendmentRuleLine(prefix: readonly string[], sandbox?: string): string {
  return `prefix_rule(pattern=[${prefix.map((t) => JSON.stringify(t)).join(", ")}], decision="allow"${sandbox ? `, sandbox=${JSON.stringify(sandbox)}` : ""})`;
}

/** Whether the request offers `decision` (older requests without `offeredDecisions` offer everything). */
export function isOffered(request: PromptRequest, decision: string): boolean {
  return request.offeredDecisions === undefined || request.offeredDecisions.includes(decision);
}

/**
 * What "always allow" does, in plain words: which prefix, which file, and that matching commands then
 * run outside the sandbox (raw: escape it before showing it).
 */
export function amendmentEffect(request: PromptRequest, fallbackRulesFile?: string, unsandboxed = false): string {
  const prefix = `\`${displayArgv(request.proposedAmendment ?? [])} …\``;
  const file = request.amendmentRulesFile ?? fallbackRulesFile ?? "your rules file";
  if (request.amendmentSandbox && !unsandboxed) {
    return `always allow ${prefix}, sandboxed: adds an allow rule to ${file}; matching commands will run without asking from now on, still in the ${request.amendmentSandbox} sandbox`;
  }
  const effect =
    request.amendmentBypassesSandbox === false
      ? "matching commands will run without asking from now on (still in the sandbox)"
      : "matching commands will run without the sandbox from now on";
  return `always allow ${prefix}${unsandboxed ? " outside the sandbox" : ""}: adds an allow rule to ${file}; ${effect}`;
}

/**
 * The prefixes "always allow" may write, `proposedAmendment` first in the list's order (shortest
 * first); just the proposed one when the request lists none (older orchestrators).
 */
export function amendmentChoicesOf(request: PromptRequest): ReadonlyArray<readonly string[]> {
  const proposed = request.proposedAmendment ?? [];
  const listed = request.amendmentChoices?.filter((c) => c.length > 0) ?? [];
  return listed.length > 0 ? listed : proposed.length > 0 ? [proposed] : [];
}

/** Index of the proposed prefix among `amendmentChoicesOf(request)` (0 when it is not listed). */
export function proposedChoiceIndex(request: PromptRequest): number {
  const proposed = request.proposedAmendment ?? [];
  const index = amendmentChoicesOf(request).findIndex((c) => c.length === proposed.length && c.every((w, i) => w === proposed[i]));
  return Math.max(0, index);
}

/**
 * The list of prefixes to choose from: one numbered line each, `selected` marked by `>`, every word
 * shown with control and invisible characters escaped (`displayArgv`), so a word can neither break
 * the list into more lines nor redraw it.
 */
export function renderPrefixChoices(prefixes: ReadonlyArray<readonly string[]>, selected: number, style: Style = PLAIN): string[] {
  const lines = ["", `  ${style.bold("Always allow commands starting with which prefix?")}`, ""];
  prefixes.forEach((prefix, i) => {
    const text = `${i + 1}. ${style.accent(displayArgv(prefix))} …`;
    lines.push(i === selected ? `  ${style.bold(`> ${text}`)}` : `    ${text}`);
  });
  lines.push("");
  lines.push(style.dim("  ←/→ or ↑/↓ to narrow or widen, a number to pick, Enter to choose, Esc to go back"));
  return lines;
}

/** Why the person is asked, as one line (raw). */
export function reasonText(request: PromptRequest): string | undefined {
  return request.why?.text ?? request.reason;
}

/**
 * What approving an interactive session covers, in plain words (raw), or undefined for a request that
 * starts none: every later input, unasked, and where it runs.
 */
export function interactiveSessionNote(request: PromptRequest): string | undefined {
  if (!request.interactiveSession || request.network) return undefined;
  const outside = request.retryAfterDenial === true || request.sandboxPermissions === "require_escalated";
  return `this starts an interactive session: approving it also approves everything the agent types into it later, without asking again${outside ? ", and that runs outside the sandbox" : ", still in the sandbox"}`;
}

/** The choices offered for a request: only what the orchestrator offered. */
export function choicesFor(request: PromptRequest, rulesFile?: string): Choice[] {
  if (request.network) return hostChoices(request);
  const retry = request.retryAfterDenial === true;
  const once = retry ? "run it again without the sandbox, once" : "run once";
  const choices: Choice[] = [
    { key: "y", label: interactiveSessionNote(request) ? `${once}, with every later input to the session` : once, value: "approved" },
  ];
  if (isOffered(request, "approved_for_session")) {
    choices.push({ key: "s", label: "run for this session (don't ask again for this exact command)", value: "approved_for_session" });
  }
  if (request.proposedAmendment && request.proposedAmendment.length > 0 && isOffered(request, "approved_with_amendment")) {
    // Two lines: the file path makes one line too long for many terminals, and a wrapped line would
    // throw off the in-place redraw, which counts lines.
    const more = amendmentChoicesOf(request).length > 1 ? "\n        (next: keep this prefix, or choose a wider or narrower one)" : "";
    const label = `${escapeForDisplay(amendmentEffect(request, rulesFile)).replace("; matching commands", ";\n        matching commands")}${more}`;
    choices.push({ key: "a", label, value: "amend" });
    // The sandboxed rule is the default "always allow"; lifting the sandbox is its own, later choice.
    if (request.amendmentSandbox && request.amendmentBypassesSandbox !== false) {
      const outside = escapeForDisplay(amendmentEffect(request, rulesFile, true)).replace("; matching commands", ";\n        matching commands");
      choices.push({ key: "u", label: outside, value: "amend_unsandboxed" });
    }
  }
  choices.push({ key: "n", label: retry ? "deny (keep the failed sandboxed result)" : "deny (tell the agent no)", value: "denied" });
  choices.push({ key: "q", label: "abort (stop the whole run)", value: "abort" });
  return choices;
}

/** The choices for a host a running command wants to reach: allow it for the command or the session, or refuse it. */
function hostChoices(request: PromptRequest): Choice[] {
  const host = escapeForDisplay(request.network?.host ?? "");
  const choices: Choice[] = [{ key: "y", label: `allow ${host} for this command`, value: "approved" }];
  if (isOffered(request, "approved_for_session")) choices.push({ key: "s", label: `allow ${host} for this session`, value: "approved_for_session" });
  choices.push({ key: "n", label: `refuse ${host} (the command's connection fails)`, value: "denied" });
  choices.push({ key: "q", label: "abort (refuse it and stop the whole run)", value: "abort" });
  return choices;
}

/** The header of the prompt: what would run, where, and why a person is asked. */
export function renderHeader(request: PromptRequest, style: Style = PLAIN): string[] {
  const target = request.network ? escapeForDisplay(`${request.network.host}:${request.network.port}`) : "";
  const title = request.network
    ? `shellgate: a sandboxed command wants to reach ${target}`
    : request.retryAfterDenial
      ? "It failed in the sandbox. Run it again WITHOUT the sandbox?"
      : "shellgate: this command needs your approval";
  const lines = [style.bold(title), ""];
  const row = (name: string, value: string) => `  ${style.dim(name.padEnd(8))} ${value}`;
  lines.push(row("command", style.accent(displayArgv(request.argv))));
  if (request.network) lines.push(row("host", style.accent(`${target} (${escapeForDisplay(request.network.protocol)})`)));
  // Everything below can come from the model or from files a sandboxed command wrote: escaped.
  lines.push(row("cwd", escapeForDisplay(request.cwd)));
  const why = reasonText(request);
  if (why) lines.push(row("why", escapeForDisplay(why)));
  if (request.justification) lines.push(row("agent", escapeForDisplay(request.justification)));
  for (const rule of request.matchedRules ?? []) {
    if (!rule.source) continue;
    const where = `${rule.source.file}:${rule.source.line}`;
    const what = rule.matchedPrefix ? ` ${JSON.stringify(rule.matchedPrefix)} → ${rule.decision}` : ` → ${rule.decision}`;
    const ruleWhy = rule.justification ? ` (${rule.justification})` : "";
    lines.push(row("rule", escapeForDisplay(`${where}${what}${ruleWhy}`)));
  }
  const session = interactiveSessionNote(request);
  if (session) lines.push(row("session", style.bold(escapeForDisplay(session))));
  if (request.amendmentWithheld) lines.push(row("note", escapeForDisplay(`no "always allow": ${request.amendmentWithheld}`)));
  lines.push("");
  return lines;
}

/** The menu with `selected` marked by `>` (readable without colour). */
export function renderMenu(choices: readonly Choice[], selected: number, style: Style = PLAIN): string[] {
  const lines = choices.flatMap((c, i) => {
    const [first = "", ...rest] = `[${c.key}] ${c.label}`.split("\n");
    return [i === selected ? `  ${style.bold(`> ${first}`)}` : `    ${first}`, ...rest];
  });
  lines.push("");
  lines.push(style.dim("  ↑/↓ to move, Enter to choose, or press a key; Ctrl-C aborts"));
  return lines;
}

/**
 * The confirmation shown before an "always allow" rule is written: the exact line, and that matching
 * commands then run outside the sandbox without asking (unless `bypassesSandbox` is false).
 */
export function renderAmendConfirm(prefix: readonly string[], rulesFile: string, style: Style = PLAIN, bypassesSandbox = true, sandbox?: string): string[] {
  const effect = sandbox
    ? `From then on, commands starting with \`${displayArgv(prefix)}\` run without asking, still in the ${escapeForDisplay(sandbox)} sandbox.`
    : bypassesSandbox
      ? `From then on, commands starting with \`${displayArgv(prefix)}\` run ${style.bold("WITHOUT the sandbox")}, without asking.`
      : `From then on, commands starting with \`${displayArgv(prefix)}\` run without asking (still in the sandbox).`;
  return [
    "",
    `  This line will be appended to ${escapeForDisplay(rulesFile)}:`,
    "",
    `    ${style.accent(escapeForDisplay(amendmentRuleLine(prefix, sandbox)))}`,
    "",
    `  ${effect}`,
    `  Write it and run the command? ${style.bold("[y/N]")}`,
  ];
}
