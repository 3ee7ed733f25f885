import type { RunRepositoriesReport } from "@shellgate/orchestrator";

// Its own module, so the MCP server's log can word repositories as `exec` does without loading exec.

/** What a person reads about the repositories a run created or changed (printed on stderr, `--json` too). */
export function repositoryLines(report: RunRepositoriesReport): string[] {
  const lines = report.repositories.map((r) =>
    r.change === "created"
      ? `the command created a git repository at ${r.path}: its hooks and config (written by the command) would run on your next git command there; inspect or remove ${r.gitPath} first`
      : `the command changed the hooks or config of the git repository at ${r.path}: they would run on your next git command there; inspect ${r.gitPath} first`,
  );
  if (!report.complete) {
    lines.push(
      report.directories === 0
        ? "the search for git repositories the command created could not run; look for new .git entries in its writable directories before you run git there"
        : `the search for git repositories the command created stopped after ${report.directories} directories; there may be more in its writable directories`,
    );
  }
  return lines;
}
