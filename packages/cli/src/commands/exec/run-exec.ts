import { escapeForDisplay, sandboxRetryMessage, TerminalOutputFilter, type NetworkRefusal, type RunRepositoriesReport } from "@shellgate/orchestrator";
import type { OrchestratorEvent, DecisionTrace, SandboxKept } from "@shellgate/orchestrator";
import { denialForAudience, type SandboxDenial } from "@shellgate/sandbox";
import { canPrompt, createTerminalPrompt } from "../../approval/terminal.js";
import type { EffectiveConfig } from "../../config/index.js";
import { createCliOrchestrator } from "../../orchestrator-factory.js";
import { isTerminal } from "../../terminal-fd.js";
import { EXEC_EXIT, exitCodeForError, exitCodeForSignal } from "./exit-codes.js";
import { HeldTerminalOutput } from "./held-output.js";
import { repositoryLines } from "../../repository-lines.js";
import { JsonOutputCapture, writeAllSync } from "./output-capture.js";

export { repositoryLines };

const SGR_RESET = Uint8Array.of(0x1b, 0x5b, 0x30, 0x6d);

/** What `shellgate exec` runs: an argv as is, or a script through the user's shell. */
export type ExecTarget = { kind: "argv"; argv: string[] } | { kind: "script"; script: string };

/** The `--json` result of `shellgate exec`. */
interface ExecJsonResult {
  exitCode: number;
  timedOut: boolean;
  durationMs: number | null;
  /** The command's stdout; past 1 MiB its head and tail around a line naming the file with all of it. */
  stdout: string;
  /** The same for stderr. */
  stderr: string;
  /** Whether `stdout` or `stderr` was cut; `fullOutputFiles` then names the files (mode 0600) with every byte. */
  truncated: boolean;
  fullOutputFiles?: { stdout?: string; stderr?: string };
  /** Set when the command did not run (refused, aborted, failed to start). */
  error?: { code: string; message: string };
  /** Set when it failed in the sandbox and the retry without it did not run (no terminal, or you denied it). */
  sandboxRetry?: string;
  /** Set when the command failed because the sandbox refused something: what, why, and the flag that lets it through. */
  sandboxDenial?: SandboxDenial;
  /** Hosts shellgate's network proxy refused during the run, with why and how to grant them. */
  networkRefusals?: NetworkRefusal[];
  /**
   * Set when allow rules matched but the command ran in the sandbox: outside it, it would have run
   * what a sandboxed command could have written (the reason, and each resolved path).
   */
  sandboxKept?: SandboxKept;
  /** Git repositories the sandboxed run created, or whose hooks or config it changed: their hooks and config run on your next git command there. */
  runRepositories?: RunRepositoriesReport;
  /** What was decided and why; never contains the command, cwd, env or output. */
  trace?: DecisionTrace;
}

/**
 * Run one command through the orchestrator with the terminal as the approver; stream all of its
 * output (no cap; escape sequences that act on the terminal are removed when the stream is a
 * terminal) or, for `--json`, collect it bounded with a spill file; return the exit code to exit with.
 */
export async function runExec(
  config: EffectiveConfig,
  target: ExecTarget,
  options: { json: boolean; escalate?: boolean },
): Promise<number> {
  // Asked of the descriptor first: reading `process.stdin` makes its stream (for a file, a
  // ReadStream and node:fs/promises with it), which a run that cannot prompt never needs.
  const interactive = isTerminal(0) && canPrompt(process.stdin, process.stderr);
  const controller = new AbortController();
  // `shellgate exec -- yes | head -1`: when the reader goes away, stop the command the way a shell
  // pipeline would (SIGPIPE), quietly. Streamed output is written to the descriptors (`emit`), which
  // report that themselves; `process.stdout` is made (a stream over fd 1) only for `--json`'s result.
  let readerGone = false;
  const fds = { stdout: 1, stderr: 2 };
  // OSC 52 (clipboard), OSC 8, titles, device queries… act on a person's terminal: removed there,
  // while a pipe or file gets the bytes exactly. Where a prompt can follow, so is everything that
  // moves the cursor, erases or conceals: output must not be able to reach back over a prompt.
  const filterOptions = { promptSafe: interactive };
  const filters = {
    stdout: !options.json && isTerminal(1) ? new TerminalOutputFilter(filterOptions) : undefined,
    stderr: !options.json && isTerminal(2) ? new TerminalOutputFilter(filterOptions) : undefined,
  };
  const emit = (stream: "stdout" | "stderr", data: Uint8Array) => {
    if (data.byteLength === 0 || readerGone) return;
    try {
      writeAllSync(fds[stream], data);
    } catch {
      // The reader of stdout went away (EPIPE) or the stream broke: stop the command, as a shell
      // pipeline would. A broken stderr only loses the command's diagnostics.
      if (stream === "stdout") {
        readerGone = true;
        controller.abort();
      }
    }
  };
  // What goes to a terminal waits while a prompt is on screen (a pipe or file is no one's screen),
  // and is filtered as it is written.
  const held = new HeldTerminalOutput((stream, raw) => {
    const out = filters[stream]?.push(raw) ?? raw;
    emit(stream, out);
    return out;
  });
  let terminalOutput = false;
  const approvalHandler = interactive
    ? createTerminalPrompt({ input: process.stdin, output: process.stderr, userRulesFile: config.userRulesFile, screen: held })
    : undefined;
  const orchestrator = await createCliOrchestrator(config, approvalHandler);
  const onSignal = () => controller.abort();
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  const onStdoutError = (error: NodeJS.ErrnoException) => {
    if (error.code !== "EPIPE") return;
    readerGone = true;
    controller.abort();
  };
  if (options.json) process.stdout.on("error", onStdoutError);

  // Every byte goes through the direct output sink (output delta events are capped per call).
  const capture = options.json ? new JsonOutputCapture() : undefined;
  const onOutput = (stream: "stdout" | "stderr", chunk: Uint8Array) => {
    if (capture) return capture.push(stream, chunk);
    if (!filters[stream]) return emit(stream, chunk);
    if (readerGone || chunk.byteLength === 0) return;
    terminalOutput = true;
    held.push(stream, chunk);
  };
  let end: Extract<OrchestratorEvent, { type: "exec.end" }> | undefined;
  let trace: DecisionTrace | undefined;
  const off = orchestrator.on((event) => {
    if (event.type === "exec.end") {
      end = event;
    } else if (event.type === "trace") {
      trace = event.trace;
    }
  });

  const common = {
    workdir: config.cwd,
    ...timeoutArg(config.timeoutMs),
    ...(options.escalate
      ? { sandbox_permissions: "require_escalated", justification: "Run this outside the sandbox? (asked with shellgate exec --escalate)" }
      : {}),
  };
  const call =
    target.kind === "argv"
      ? { name: "shell", arguments: { command: target.argv, ...common } }
      : { name: "shell_command", arguments: { command: target.script, ...common } };

  let exitCode: number;
  let failure: { code: string; message: string } | undefined;
  let retryNote: string | undefined;
  let denial: SandboxDenial | undefined;
  let refusals: NetworkRefusal[] = [];
  let networkNote: string | undefined;
  let sandboxKept: SandboxKept | undefined;
  let repositories: RunRepositoriesReport | undefined;
  try {
    const response = await orchestrator.handleToolCall(call, { signal: controller.signal, onOutput });
    // The orchestrator words it for a model; a person at the terminal gets the flags instead.
    if (response.sandboxDenial) denial = denialForAudience(response.sandboxDenial, "cli", target.kind === "argv" ? target.argv : ["sh", "-c", target.script]);
    // Failed in the sandbox, and the retry without it did not run: the command's own exit code stands.
    if (response.sandboxRetry) retryNote = sandboxRetryMessage(response.sandboxRetry, response.exitCode ?? 1, "cli", config.userRulesFile);
    refusals = response.networkRefusals ?? [];
    networkNote = response.networkNote;
    sandboxKept = response.sandboxKept;
    repositories = response.runRepositories;
    if (response.error) {
      failure = response.error;
      exitCode = controller.signal.aborted ? EXEC_EXIT.ABORTED : exitCodeForError(response.error);
    } else {
      exitCode = end ? exitFromEnd(end) : (response.exitCode ?? EXEC_EXIT.SHELLGATE_ERROR);
    }
  } finally {
    off();
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
    await orchestrator.close();
    held.release();
    held.dispose();
    for (const stream of ["stdout", "stderr"] as const) {
      const rest = filters[stream]?.end();
      if (rest) emit(stream, rest);
    }
    // shellgate's own lines follow on stderr: in the default rendition, whatever the output left set.
    if (filters.stderr && terminalOutput) emit("stderr", SGR_RESET);
  }
  const captured = capture?.finish();
  if (readerGone) return EXEC_EXIT.PIPE_CLOSED;

  // One line naming what the sandbox refused and the flag that lets it through (`--json` has it as `sandboxDenial`).
  if (!captured && denial) process.stderr.write(`shellgate exec: ${escapeForDisplay(`sandbox: ${denial.summary}; ${denial.suggestion}`)}\n`);
  // Refused hosts (and why a run had no network), after the output, where a person looks.
  if (!captured) {
    if (sandboxKept) process.stderr.write(`shellgate exec: sandbox kept: ${escapeForDisplay(sandboxKept.reason)}\n`);
    if (networkNote) process.stderr.write(`shellgate exec: network: ${escapeForDisplay(networkNote)}\n`);
    for (const r of refusals) {
      process.stderr.write(`shellgate exec: ${escapeForDisplay(`network: refused ${r.host}:${r.port}: ${r.reason}${r.hint ? `; to allow it: ${r.hint}` : ""}`)}\n`);
    }
  }
  // Repositories the run left behind, last: the person's next git command there is what they would run.
  if (repositories) for (const line of repositoryLines(repositories)) process.stderr.write(`shellgate exec: ${escapeForDisplay(line)}\n`);
  if (captured) {
    const files = {
      ...(captured.stdout.fullOutputFile ? { stdout: captured.stdout.fullOutputFile } : {}),
      ...(captured.stderr.fullOutputFile ? { stderr: captured.stderr.fullOutputFile } : {}),
    };
    const truncated = Object.keys(files).length > 0;
    const result: ExecJsonResult = {
      exitCode,
      timedOut: end?.timedOut ?? false,
      durationMs: end ? Math.round(end.durationMs) : null,
      stdout: captured.stdout.text,
      stderr: captured.stderr.text,
      truncated,
      ...(truncated ? { fullOutputFiles: files } : {}),
      ...(failure !== undefined ? { error: { code: failure.code, message: refusalText(failure, interactive) } } : {}),
      ...(retryNote !== undefined ? { sandboxRetry: retryNote } : {}),
      ...(denial ? { sandboxDenial: denial } : {}),
      ...(refusals.length > 0 ? { networkRefusals: refusals } : {}),
      ...(sandboxKept ? { sandboxKept } : {}),
      ...(repositories ? { runRepositories: repositories } : {}),
      ...(trace ? { trace } : {}),
    };
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  } else if (failure !== undefined) {
    process.stderr.write(`shellgate exec: ${escapeForDisplay(refusalText(failure, interactive))}\n`);
  } else if (retryNote !== undefined) {
    process.stderr.write(`shellgate exec: ${escapeForDisplay(retryNote)}\n`);
  } else if (end?.timedOut) {
    process.stderr.write(`shellgate exec: timed out after ${config.timeoutMs} ms; the command was killed\n`);
  }
  return exitCode;
}

function timeoutArg(timeoutMs: number): { timeout_ms: number } {
  // Always explicit: 0 means "no timeout" to the CLI and to @shellgate/pty, while an absent value
  // would get the agent tools' 10 s default.
  return { timeout_ms: timeoutMs };
}

function exitFromEnd(end: Extract<OrchestratorEvent, { type: "exec.end" }>): number {
  if (end.timedOut) return EXEC_EXIT.TIMEOUT;
  return end.exitCode ?? exitCodeForSignal(null);
}

function refusalText(error: { code: string; message: string }, interactive: boolean): string {
  if (error.code === "ORCH_APPROVAL_UNAVAILABLE" && !interactive) {
    const what = error.message.replace(/; no one can approve it here.*$/s, "");
    return `refused: ${what}, and there is no terminal to ask on (stdin is not a TTY). Run it from a terminal, or allow it with a rule.`;
  }
  if (error.code === "ORCH_REJECTED" && error.message === "rejected by user") return "denied; the command did not run";
  if (error.code === "ORCH_REJECTED") return `refused: ${error.message}`;
  if (error.code === "ORCH_FORBIDDEN") return `forbidden: ${error.message}`;
  if (error.code === "ORCH_ABORTED") return "aborted; the command did not run";
  return error.message;
}
