import type { LinuxCapabilityReport } from "@shellgate/sandbox-linux";

function line(name: string, layer: { available: boolean; detail: string }): string {
  return `  ${name.padEnd(16)} ${layer.available ? "yes" : "no "}  ${layer.detail}`;
}

/** The capability report as people read it (`shellgate sandbox --probe`). */
export function formatProbe(report: LinuxCapabilityReport): string {
  const level = { full: "full", weaker: "weaker (Landlock fallback; needs --allow-weaker-isolation)", none: "none" }[report.level];
  const lines = [
    `Linux sandbox on ${report.platform} ${report.kernel}`,
    line("helper", report.helper),
    line("bubblewrap", report.bwrap),
    line("user namespaces", report.userNamespaces),
    line("seccomp", report.seccomp),
    line("landlock", report.landlock),
    `isolation: ${report.isolation} (${level})`,
  ];
  if (report.reasons.length > 0) lines.push("why layers are missing:", ...report.reasons.map((r) => `  - ${r}`));
  return `${lines.join("\n")}\n`;
}
