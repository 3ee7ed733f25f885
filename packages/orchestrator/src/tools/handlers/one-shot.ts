import type { ExecResult } from "@shellgate/pty";
import { CancelledError } from "../../errors.js";
import { OutputDeltaEmitter } from "../../output/deltas.js";
import type { SpillStream } from "../../output/spill.js";
import { budgetBytes, OutputTally } from "../../output/truncate.js";
import type { OutputTotals } from "../../output/truncate.js";
import type { PipelineOutcome } from "../../pipeline/types.js";
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

/** A finished one-shot call: the pipeline's outcome and, when spilling is on, its output being saved. */
export type OneShotOutcome = PipelineOutcome<ExecResult> & {
  /**
   * Every byte of the final attempt's output (stdout and stderr interleaved as read), saved as it
   * arrived. The caller must `reveal()` it (when the model sees a truncated view) and `end()` it.
   */
  spill?: SpillStream;
  /** Bytes and lines of the final attempt's whole output (stdout and stderr), however much was kept. */
  totals?: OutputTotals;
};

/**
 * Run a command to completion through the pipeline (admission, approval, sandbox, retry) with
 * pipes and stdin at /dev/null, streaming capped output deltas (and every chunk to `ctx.onOutput`),
 * saving the output as it arrives (`runtime.spill`), and emitting begin/end once per call.
 */
export async function runOneShot(runtime: ToolRuntime, request: OneShotRequest, ctx: ToolContext): Promise<OneShotOutcome> {
  const { events } = runtime;
  let began = false;
  const deltas = new OutputDeltaEmitter(events, ctx.callId);
  let last: ExecResult | undefined;
  let spill: SpillStream | undefined;
  let tally = new OutputTally();
  let handedOver = false;
  let denial: PipelineOutcome<ExecResult>["sandboxDenial"];
  const pool = runtime.spares;
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
      async (execEnv, attempt) => {
        if (!began) {
          began = true;
          events.emit({ type: "exec.begin", callId: ctx.callId, tool: ctx.tool, argv: request.argv, cwd: request.cwd });
        }
        // One file per call: a retried call keeps only its final attempt's output, like the model's view.
        // Finished before spawning, so that no output arrives before the new stream listens.
        await spill?.end();
        // Bytes up to the model's budget stay in memory: most outputs fit and never touch the disk.
        const current = runtime.spill?.open(ctx.callId, { memoryBytes: budgetBytes(runtime.oneShotOutputPolicy) });
        spill = current;
        const counted = new OutputTally();
        tally = counted;
        const timeoutMs = request.timeoutMs ?? DEFAULT_EXEC_TIMEOUT_MS;
        // The sandbox already ties the tree's life to ours; the watchdog would only cost a process start.
        const hostDeathWatchdog = execEnv.diesWithParent !== true;
        const spare = await pool?.take(execEnv, { cwd: execEnv.cwd, env: execEnv.env, stdin: "ignore", hostDeathWatchdog }, {
          timeoutMs,
          ...(ctx.signal ? { signal: ctx.signal } : {}),
        });
        const handle = spare?.handle ?? runtime.spawnPipe({
          argv: execEnv.argv,
          cwd: execEnv.cwd,
          env: { ...execEnv.env },
          timeoutMs,
          stdin: "ignore",
          ...(ctx.signal ? { signal: ctx.signal } : {}),
          ...(hostDeathWatchdog ? {} : { hostDeathWatchdog: false }),
        });
        const sink = ctx.onOutput;
        const unsubscribe = handle.onOutput((chunk) => {
          if (chunk.stream === "pty") return;
          current?.push(chunk.data);
          counted.push(chunk.data);
          if (sink) {
            try {
              sink(chunk.stream, chunk.data);
            } catch {
              // The sink's failure must not turn into a failed or half-drained command.
            }
          }
          deltas.emit(chunk.stream, chunk.data);
        });
        const result = await handle.result().finally(() => {
          unsubscribe();
          void spare?.release();
        });
        last = result;
        if (pool && execEnv.deferred && attempt.prepareAgain && !result.cancelled) {
          pool.refill(attempt.prepareAgain, { stdin: "ignore", hostDeathWatchdog });
        }
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
      // With a spare waiting, the pipeline may take it as the attempt's sandbox without preparing one.
      pool ? { claimSandbox: (spec, policy, options) => pool.claim(spec, policy, options) } : {},
    );
    handedOver = true;
    denial = outcome.sandboxDenial;
    return { ...outcome, totals: tally.totals(), ...(spill ? { spill } : {}) };
  } finally {
    if (!handedOver) {
      void spill?.end();
      // A failed or refused call leaves nothing waiting behind it.
      void runtime.spares?.discard();
    }
    if (began) {
      events.emit({
        type: "exec.end",
        callId: ctx.callId,
        exitCode: last ? last.exitCode : null,
        durationMs: last ? last.durationMs : 0,
        timedOut: last ? last.timedOut : false,
        ...(denial ? { sandboxDenial: denial } : {}),
      });
    }
  }
}
