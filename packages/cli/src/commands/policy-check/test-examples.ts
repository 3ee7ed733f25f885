/** `policy-check test FILES`: run every match/not_match example and report per rule. */
import type { RuleExampleReport } from "@shellgate/execpolicy";

function show(tokens: readonly string[]): string {
  return tokens.map((t) => (/^[A-Za-z0-9_@%+=:,./-]+$/.test(t) ? t : JSON.stringify(t))).join(" ");
}

/** Render the report; returns the text and whether every example passed. */
export function renderExampleReport(reports: readonly RuleExampleReport[]): { text: string; ok: boolean } {
  const lines: string[] = [];
  let examples = 0;
  let failed = 0;
  let failedRules = 0;
  for (const r of reports) {
    const bad = r.results.filter((x) => !x.passed);
    examples += r.results.length;
    failed += bad.length;
    const m = r.results.filter((x) => x.kind === "match").length;
    const nm = r.results.length - m;
    const where = `${r.source.file}:${r.source.line}:${r.source.column}`;
    if (bad.length === 0) {
      lines.push(`PASS ${where} ${show(r.pattern)} (${m} match, ${nm} not_match)`);
      continue;
    }
    failedRules++;
    lines.push(`FAIL ${where} ${show(r.pattern)}`);
    for (const b of bad) {
      lines.push(b.kind === "match" ? `  match example matched no rule: ${show(b.example)}` : `  not_match example matched: ${show(b.example)}`);
    }
  }
  lines.push(`${reports.length} rule(s), ${examples} example(s): ${failed === 0 ? "all passed" : `${failed} failed in ${failedRules} rule(s)`}`);
  return { text: `${lines.join("\n")}\n`, ok: failed === 0 };
}
