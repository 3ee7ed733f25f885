import { describe, expect, it } from "vitest";
import { repositoryLines } from "../../../src/commands/exec/run-exec.js";

describe("repositoryLines", () => {
  it("names each repository and what would run there; says when the search was cut short or could not run", () => {
    const repositories = [
      { path: "/w/sub", gitPath: "/w/sub/.git", change: "created" as const },
      { path: "/w/vendored", gitPath: "/w/vendored/.git", change: "changed" as const },
    ];
    expect(repositoryLines({ repositories, complete: false, directories: 200000, listed: 200000 })).toEqual([
      "the command created a git repository at /w/sub: its hooks and config (written by the command) would run on your next git command there; inspect or remove /w/sub/.git first",
      "the command changed the hooks or config of the git repository at /w/vendored: they would run on your next git command there; inspect /w/vendored/.git first",
      "the search for git repositories the command created stopped after 200000 directories; there may be more in its writable directories",
    ]);
    expect(repositoryLines({ repositories: [], complete: false, directories: 0, listed: 0 })[0]).toContain("could not run");
    expect(repositoryLines({ repositories: [], complete: true, directories: 3, listed: 3 })).toEqual([]);
  });
});
