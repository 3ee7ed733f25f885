/**
 * `policy-check` (and `shellgate policy check`): Codex-compatible `execpolicy check`, plus
 * `--explain`, `--stdin` batch mode, `--host HOST` (how the network rules treat a host) and `test FILES`. Start-up is kept lean: only
 * `@shellgate/execpolicy` is loaded, statically so that the policy-check bundle (scripts/bundle.mjs)
 * can leave out the parts of it that are not used.
 */
import { writeSync } from "node:fs";
import * as ep from "@shellgate/execpolicy";
import { POLICY_CHECK_USAGE, UsageError, parsePolicyCheckArgs } from "./args.js";
import type { PolicyCheckArgs } from "./args.js";

/**
 * Write all of `text` to stdout (fd 1) or stderr (fd 2), synchronously while the descriptor takes it:
 * `process.stdout` is built on first use, and building its stream was 3.5 ms of a check answered
 * from the compiled-policy cache (measured in-process). Whatever a write refuses (a full non-blocking
 * pipe, a closed one) goes through the stream, which waits for a drain or reports the error as before.
 */
function write(fd: 1 | 2, text: string): Promise<void> {
  const bytes = Buffer.from(text, "utf8");
  let done = 0;
  try {
    while (done < bytes.length) done += writeSync(fd, bytes, done);
    return Promise.resolve();
  } catch {
    const stream = fd === 1 ? process.stdout : process.stderr;
    return new Promise((resolve) => {
      if (stream.write(bytes.subarray(done))) resolve();
      else stream.once("drain", () => resolve());
    });
  }
}

/** Render a load failure for stderr: the diagnostic with source line and caret when there is one. */
function describeLoadError(e: unknown): string | undefined {
  if (typeof e !== "object" || e === null) return undefined;
  const err = e as { code?: unknown; render?: () => string; message?: string; name?: string };
  if (typeof err.code !== "string" || !/^Policy|InvalidArgument/.test(err.name ?? "")) return undefined;
  return typeof err.render === "function" ? err.render() : `error[${err.code}]: ${err.message ?? ""}`;
}

/** Where compiled policies are cached (execpolicy's per-user default); `SHELLGATE_POLICY_CACHE=off` disables the cache. */
function cacheDirOption(defaultDir: (env: NodeJS.ProcessEnv) => string): string | undefined {
  if (process.env["SHELLGATE_POLICY_CACHE"] === "off") return undefined;
  return defaultDir(process.env);
}

/** Run `policy-check` with `args`; returns the exit code. */
export async function run(args: string[]): Promise<number> {
  let parsed: PolicyCheckArgs;
  try {
    parsed = parsePolicyCheckArgs(args);
  } catch (e) {
    if (e instanceof UsageError) {
      await write(2, `policy-check: error: ${e.message}\n\n${POLICY_CHECK_USAGE}`);
      return 2;
    }
    throw e;
  }
  if (parsed.mode === "help") {
    await write(1, POLICY_CHECK_USAGE);
    return 0;
  }
  try {
    if (parsed.mode === "test") {
      const { renderExampleReport } = await import("./test-examples.js");
      const reports = ep.collectExampleResults(await ep.readPolicySources(parsed.files));
      const { text, ok } = renderExampleReport(reports);
      await write(1, text);
      return ok ? 0 : 1;
    }
    if (parsed.mode === "host") {
      // Checked before the rules are read: a host network_rule could not name is a usage mistake, whatever the files say.
      try {
        ep.normalizeNetworkHost(parsed.host);
      } catch (e) {
        if (!(e instanceof ep.InvalidNetworkHostError)) throw e;
        await write(2, `policy-check: error[${e.code}]: --host ${JSON.stringify(parsed.host)}: ${e.message}\n`);
        return 2;
      }
    }
    const policy = await ep.loadPolicy(parsed.rules, { cacheDir: cacheDirOption(ep.defaultPolicyCacheDir) });
    if (parsed.mode === "host") {
      const { explainHost, hostAddressLine, hostEvaluationJson } = await import("./explain.js");
      const hostEv = policy.evaluateHost(parsed.host);
      if (parsed.explain) {
        await write(1, explainHost(parsed.host, hostEv, policy.networkRules, hostAddressLine(hostEv)));
        return 0;
      }
      const json = hostEvaluationJson(hostEv);
      await write(1, `${parsed.pretty ? JSON.stringify(json, null, 2) : JSON.stringify(json)}\n`);
      return 0;
    }
    if (parsed.mode === "stdin") {
      const { runBatch } = await import("./batch.js");
      const bad = await runBatch(policy, process.stdin, process.stdout, parsed);
      return bad ? 1 : 0;
    }
    const evaluation = policy.evaluate(parsed.command, { resolveHostExecutables: parsed.resolveHostExecutables });
    if (parsed.explain) {
      const { explainEvaluation } = await import("./explain.js");
      await write(1, explainEvaluation(parsed.command, evaluation, parsed.resolveHostExecutables, policy.networkRules, ep.ruleSandboxGrant(evaluation)));
      return 0;
    }
    const json = ep.evaluationToCodexJson(evaluation);
    await write(1, `${parsed.pretty ? JSON.stringify(json, null, 2) : JSON.stringify(json)}\n`);
    return 0;
  } catch (e) {
    const rendered = describeLoadError(e);
    if (rendered === undefined) throw e;
    await write(2, `policy-check: ${rendered}\n`);
    return 1;
  }
}
