/**
 * Commands that run code the workspace itself defines: package scripts, build scripts, tests, git
 * hooks. An allow rule that lets one of them skip the sandbox runs whatever a sandboxed command
 * last wrote into those files, outside the sandbox.
 */
import { programName } from "./code-runners.js";

const PACKAGE_SCRIPTS = "runs the package scripts and install scripts the workspace's package.json (and its dependencies) define";

/** Subcommands of npm-style package managers that run package scripts, or a package's own programs. */
const NPM_SCRIPT_SUBCOMMANDS = new Set([
  "run", "run-script", "rum", "urn", "test", "t", "tst", "start", "stop", "restart", "install", "i", "in", "ins", "add", "ci",
  "install-test", "it", "install-ci-test", "cit", "rebuild", "rb", "pack", "publish", "exec", "x", "dlx", "explore", "link", "ln",
  "update", "up", "upgrade", "dev", "build",
]);
/** Subcommands of yarn/pnpm/bun that do not run workspace code; any other word may name a package script. */
const PACKAGE_MANAGER_READ_ONLY = new Set(["info", "view", "list", "ls", "why", "outdated", "config", "help", "version", "whoami", "search", "audit"]);

const GIT_HOOKED = new Set([
  "commit", "merge", "rebase", "checkout", "switch", "am", "push", "pull", "cherry-pick", "revert", "clone", "worktree", "gc",
  "reset", "stash", "fetch", "submodule",
]);

function firstWord(argv: readonly string[], from = 1): { word: string; at: number } | undefined {
  for (let i = from; i < argv.length; i++) {
    const w = argv[i]!;
    if (w === "--") return argv[i + 1] === undefined ? undefined : { word: argv[i + 1]!, at: i + 1 };
    if (!w.startsWith("-")) return { word: w, at: i };
  }
  return undefined;
}

/**
 * What workspace-defined code `argv` runs, in words, or `undefined` when it is not known to run
 * any: package-script runners (`npm test`, `yarn build`, `npx`, `pnpm exec`), `make`, `cargo
 * build|test|run` (build.rs, proc macros, tests), `go generate|test|run`, `pytest`/`tox`/`nox`,
 * `pip install .`, Gradle, Maven, git commands that fire hooks (`commit`, `merge`, `rebase`,
 * `checkout`, `am`, `push`, …), and an interpreter given a script file. Judged on the program's
 * file name (`/usr/bin/npm`, `npm.cmd` are `npm`).
 */
export function workspaceCodeRunner(argv: readonly string[]): string | undefined {
  const argv0 = argv[0];
  if (argv0 === undefined) return undefined;
  const name = programName(argv0);
  const sub = firstWord(argv);
  const word = sub?.word.toLowerCase();
  switch (name) {
    case "npm":
      return word !== undefined && NPM_SCRIPT_SUBCOMMANDS.has(word) ? PACKAGE_SCRIPTS : undefined;
    case "yarn":
    case "pnpm":
    case "bun":
      return word === undefined || !PACKAGE_MANAGER_READ_ONLY.has(word) ? PACKAGE_SCRIPTS : undefined;
    case "npx":
    case "bunx":
    case "pnpx":
      return "runs a package's program, the workspace's own node_modules/.bin first";
    case "make":
    case "gmake":
    case "bmake":
    case "just":
    case "task":
    case "rake":
    case "ninja":
      return "runs the recipes of the workspace's build file (Makefile, justfile, Taskfile, Rakefile, build.ninja)";
    case "cargo":
      return word !== undefined && ["build", "b", "test", "t", "run", "r", "check", "c", "bench", "clippy", "doc", "d", "install", "fix"].includes(word)
        ? "compiles and runs the workspace's build scripts (build.rs) and procedural macros, and its tests or binaries"
        : undefined;
    case "go":
      return word !== undefined && ["generate", "test", "run", "vet"].includes(word)
        ? "runs the workspace's //go:generate commands, tests or programs"
        : undefined;
    case "pytest":
    case "py.test":
    case "tox":
    case "nox":
      return "imports the workspace's tests and conftest.py";
    case "pip":
    case "pip3":
      return word === "install" && argv.slice((sub?.at ?? 0) + 1).some((a) => a === "." || a.startsWith("./") || a === "-e" || a === "--editable")
        ? "runs the build backend and setup.py of the workspace's package"
        : undefined;
    case "gradle":
    case "gradlew":
    case "mvn":
    case "mvnw":
    case "ant":
    case "sbt":
    case "bazel":
    case "dotnet":
    case "composer":
      return "runs the build scripts and plugins the workspace's build files define";
    case "git":
      return word !== undefined && GIT_HOOKED.has(word)
        ? "runs the repository's hooks (and the filters and programs its configuration names)"
        : undefined;
    case "python":
    case "node":
    case "bash":
    case "sh":
    case "zsh":
    case "ruby":
    case "perl":
    case "php":
    case "deno":
      if (name === "python" && argv.includes("-m") && ["pytest", "unittest", "tox", "pip"].some((m) => argv.includes(m))) {
        return "imports the workspace's tests and modules";
      }
      return sub !== undefined && !argv.slice(1, sub.at).some((a) => /^-[a-zA-Z]*[cem]$/.test(a)) ? `runs the script file ${sub.word}` : undefined;
    default:
      return undefined;
  }
}
