/**
 * `policy-check` (and `shellgate policy check`): Codex-compatible `execpolicy check`, plus
 * `--explain`, `--stdin` batch mode, `--host HOST` (how the network rules treat a host) and `test FILES`. Start-up is kept lean: only
 * `@shellgate/execpolicy` is loaded, and only after the arguments have been validated.
 */
import * as ep from "@shellgate/execpolicy";
import { POLICY_CHECK_USAGE, UsageError, parsePolicyCheckArgs } from "./args.js";
import type { PolicyCheckArgs } from "./args.js";

function write(stream: NodeJS.WriteStream, text: string): Promise<void> {
  return new Promise((resolve) => {
    if (stream.write(text)) resolve();
    else stream.once("drain", () => resolve());
  });
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
      await write(process.stderr, `policy-check: error: ${e.message}\n\n${POLICY_CHECK_USAGE}`);
      return 2;
    }
    throw e;
  }
  if (parsed.mode === "help") {
    await write(process.stdout, POLICY_CHECK_USAGE);
    return 0;
  }
  try {
    if (parsed.mode === "test") {
      const { renderExampleReport } = await import("./test-examples.js");
      const reports = ep.collectExampleResults(await ep.readPolicySources(parsed.files));
      const { text, ok } = renderExampleReport(reports);
      await write(process.stdout, text);
      return ok ? 0 : 1;
    }
    if (parsed.mode === "host") {
      // Checked before the rules are read: a host network_rule could not name is a usage mistake, whatever the files say.
      try {
        ep.normalizeNetworkHost(parsed.host);
      } catch (e) {
        if (!(e instanceof ep.InvalidNetworkHostError)) throw e;
        await write(process.stderr, `policy-check: error[${e.code}]: --host ${JSON.stringify(parsed.host)}: ${e.message}\n`);
        return 2;
      }
    }
    const policy = await ep.loadPolicy(parsed.rules, { cacheDir: cacheDirOption(ep.defaultPolicyCacheDir) });
    if (parsed.mode === "host") {
      const { explainHost, hostEvaluationJson } = await import("./explain.js");
      const hostEv = policy.evaluateHost(parsed.host);
      if (parsed.explain) {
        await write(process.stdout, explainHost(parsed.host, hostEv, policy.networkRules));
        return 0;
      }
      const json = hostEvaluationJson(hostEv);
      await write(process.stdout, `${parsed.pretty ? JSON.stringify(json, null, 2) : JSON.stringify(json)}\n`);
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
      await write(process.stdout, explainEvaluation(parsed.command, evaluation, parsed.resolveHostExecutables, policy.networkRules, ep.ruleSandboxGrant(evaluation)));
      return 0;
    }
    const json = ep.evaluationToCodexJson(evaluation);
    await write(process.stdout, `${parsed.pretty ? JSON.stringify(json, null, 2) : JSON.stringify(json)}\n`);
    return 0;
  } catch (e) {
    const rendered = describeLoadError(e);
    if (rendered === undefined) throw e;
    await write(process.stderr, `policy-check: ${rendered}\n`);
    return 1;
  }
}
