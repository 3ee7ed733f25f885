import type { ExecResult } from "@shellgate/pty";
import { CancelledError } from "../../errors.js";
import { OutputDeltaEmitter } from "../../output/deltas.js";
import type { PipelineOutcome } from "../../pipeline/index.js";
import { DEFAULT_EXEC_TIMEOUT_MS } from "../schemas.js";
import type { ToolContext } from "../registry.js";
import type { SafetyArgs, ToolRuntime } from "./runtime.js";
import { safetyFields } from "./runtime.js";

/** A one-shot command after argument parsing. */
export interface OneShotRequest extends SafetyArgs {
  argv: string[];
  cwd: string;
  timeoutMs?: number | undefined;
}

/**
 * Run a command to completion through the pipeline (admission, approval, sandbox, retry) with
 * pipes and stdin at /dev/null, streaming capped output deltas (and every chunk to `ctx.onOutput`)
 * and emitting begin/end once per call.
 */
export async function runOneShot(
  runtime: ToolRuntime,
  request: OneShotRequest,
  ctx: ToolContext,
): Promise<PipelineOutcome<ExecResult>> {
  const { events } = runtime;
  let began = false;
  const deltas = new OutputDeltaEmitter(events, ctx.callId);
  let last: ExecResult | undefined;
  try {
    const outcome = await runtime.pipeline.run<ExecResult>(
      {
        callId: ctx.callId,
        tool: ctx.tool,
        argv: request.argv,
        cwd: request.cwd,
        env: runtime.commandEnv("one-shot"),
        ...safetyFields(request),
        ...(ctx.signal ? { signal: ctx.signal } : {}),
      },
      async (execEnv) => {
        if (!began) {
          began = true;
          events.emit({ type: "exec.begin", callId: ctx.callId, tool: ctx.tool, argv: request.argv, cwd: request.cwd });
        }
        const handle = runtime.spawnPipe({
          argv: execEnv.argv,
          cwd: execEnv.cwd,
          env: { ...execEnv.env },
          timeoutMs: request.timeoutMs ?? DEFAULT_EXEC_TIMEOUT_MS,
          stdin: "ignore",
          ...(ctx.signal ? { signal: ctx.signal } : {}),
        });
        const sink = ctx.onOutput;
        const unsubscribe = handle.onOutput((chunk) => {
          if (chunk.stream === "pty") return;
          if (sink) {
            try {
              sink(chunk.stream, chunk.data);
            } catch {
              // The sink's failure must not turn into a failed or half-drained command.
            }
          }
          deltas.emit(chunk.stream, chunk.data);
        });
        const result = await handle.result().finally(unsubscribe);
        last = result;
        if (result.cancelled) throw new CancelledError();
        return {
          value: result,
          probe: {
            exitCode: result.exitCode,
            stdout: result.stdout,
            stderr: result.stderr,
            aggregated: result.aggregated,
            timedOut: result.timedOut,
          },
        };
      },
    );
    return outcome;
  } finally {
    if (began) {
      events.emit({
        type: "exec.end",
        callId: ctx.callId,
        exitCode: last ? last.exitCode : null,
        durationMs: last ? last.durationMs : 0,
        timedOut: last ? last.timedOut : false,
      });
    }
  }
}
