/**
 * `--stdin` batch mode: one JSON array of argv strings per input line, one compact JSON result per
 * output line, rules compiled once. A bad line yields `{"error": "..."}` on its output line and the
 * run continues (exit status 1 at the end). Blank lines are skipped.
 */
import { createInterface } from "node:readline";
import type { Readable, Writable } from "node:stream";
import type { Policy } from "@shellgate/execpolicy";

/** Evaluate each line of `input`; returns the number of invalid lines. */
export async function runBatch(
  policy: Policy,
  input: Readable,
  output: Writable,
  options: { resolveHostExecutables: boolean; pretty: boolean },
): Promise<number> {
  const { z } = await import("zod");
  const { evaluationToCodexJson } = await import("@shellgate/execpolicy");
  const ArgvSchema = z.array(z.string()).min(1, "argv must have at least one token");
  const rl = createInterface({ input, crlfDelay: Infinity });
  let bad = 0;
  let n = 0;
  for await (const line of rl) {
    n++;
    if (line.trim() === "") continue;
    let out: unknown;
    try {
      const parsed = ArgvSchema.safeParse(JSON.parse(line));
      if (!parsed.success) throw new Error(parsed.error.issues.map((i) => `${i.path.length ? `argv[${i.path.join(".")}]: ` : ""}${i.message}`).join("; "));
      out = evaluationToCodexJson(policy.evaluate(parsed.data, { resolveHostExecutables: options.resolveHostExecutables }));
    } catch (e) {
      bad++;
      out = { error: `line ${n}: ${e instanceof Error ? e.message : String(e)}` };
    }
    if (!output.write(`${JSON.stringify(out)}\n`)) await new Promise((r) => output.once("drain", r));
  }
  return bad;
}
