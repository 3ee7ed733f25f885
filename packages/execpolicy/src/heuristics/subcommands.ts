import { programName } from "./program-name.js";

/**
 * The command-line structure of tools that take a subcommand (`git commit`, `cargo test`, `docker
 * compose up`): which global options may come before the subcommand, which of those take a value,
 * and which of them change the code the tool runs. Used to find the subcommand behind global options
 * (`git -C dir push`, `cargo +nightly test`, `docker --debug ps`) and to refuse a prefix whose global
 * options name the program the tool runs (`git --exec-path=DIR`, `git -c core.pager=sh`).
 */
interface Grammar {
  /** Global options that take no value. */
  flags?: readonly string[];
  /** Global options that take the next word as their value (`--opt=value` is read as one word too). */
  valued?: readonly string[];
  /**
   * Global options that set code or configuration the tool then runs (git's `-c`, `--exec-path`,
   * cargo's `--config`): whichever value follows, a prefix holding one is whatever that value makes it.
   */
  code?: readonly string[];
  /** Words like `NAME=value` before the subcommand are settings (make's variables). */
  assignments?: boolean;
  /** A first word starting with `+` picks a toolchain (`cargo +nightly`). */
  plusToolchain?: boolean;
  /** An option whose value is optional and then attached or a number (make's `-j`, `-j4`, `-j 4`). */
  optionalNumber?: readonly string[];
  /** Subcommands that take a second word of their own (`docker compose up`, `npm run build`, `git stash pop`). */
  nested?: readonly string[];
}

const GIT: Grammar = {
  flags: [
    "-p", "--paginate", "-P", "--no-pager", "--bare", "--no-replace-objects", "--literal-pathspecs", "--glob-pathspecs",
    "--noglob-pathspecs", "--icase-pathspecs", "--no-optional-locks", "--no-lazy-fetch", "--no-advice", "--html-path",
    "--man-path", "--info-path", "-v", "--version", "-h", "--help",
  ],
  valued: ["-C", "--git-dir", "--work-tree", "--namespace", "--list-cmds", "--attr-source", "--super-prefix"],
  code: ["-c", "--config-env", "--exec-path"],
  nested: ["stash", "remote", "submodule", "worktree", "notes", "bisect", "lfs", "sparse-checkout", "maintenance", "reflog", "bundle"],
};

const DOCKER: Grammar = {
  flags: ["-D", "--debug", "--tls", "--tlsverify", "-v", "--version", "-h", "--help"],
  valued: ["-H", "--host", "-c", "--context", "-l", "--log-level", "--tlscacert", "--tlscert", "--tlskey"],
  // The config directory holds the CLI plugins and credential helpers docker runs.
  code: ["--config"],
  nested: [
    "compose", "image", "container", "network", "volume", "system", "buildx", "builder", "context", "plugin", "manifest",
    "trust", "secret", "service", "stack", "node", "swarm", "config",
  ],
};

const KUBECTL: Grammar = {
  flags: ["-h", "--help", "--insecure-skip-tls-verify", "--warnings-as-errors", "--match-server-version"],
  valued: [
    "-n", "--namespace", "--context", "--cluster", "-s", "--server", "--user", "--token", "--as", "--as-group", "--as-uid",
    "--request-timeout", "--cache-dir", "--certificate-authority", "--client-certificate", "--client-key", "--tls-server-name",
    "-v", "--v", "--profile", "--profile-output",
  ],
  // A kubeconfig names credential plugins (`exec:`) that kubectl runs.
  code: ["--kubeconfig"],
  nested: ["config", "rollout", "auth", "top", "certificate", "plugin"],
};

const NPM: Grammar = {
  flags: ["-g", "--global", "-s", "--silent", "-q", "--quiet", "-d", "-dd", "--verbose", "-y", "--yes", "--workspaces", "-ws", "--include-workspace-root", "--no-audit", "--no-fund"],
  valued: ["--prefix", "-C", "-w", "--workspace", "--loglevel", "--registry", "--cache"],
  // Settings that name the shell, the node options or another config file npm runs scripts with.
  code: ["--script-shell", "--node-options", "--userconfig", "--globalconfig"],
  nested: ["run", "run-script", "rum", "urn"],
};

const GRAMMARS: ReadonlyMap<string, Grammar> = new Map<string, Grammar>([
  ["git", GIT],
  ["docker", DOCKER],
  ["podman", DOCKER],
  ["kubectl", KUBECTL],
  ["oc", KUBECTL],
  ["npm", NPM],
  ["pnpm", { flags: ["-r", "--recursive", "-w", "--workspace-root", "-s", "--silent"], valued: ["-C", "--dir", "--filter", "-F"], nested: ["run"] }],
  ["yarn", { flags: ["-s", "--silent", "--verbose"], valued: ["--cwd"], nested: ["run", "workspace"] }],
  ["bun", { flags: ["--silent"], valued: ["--cwd"], nested: ["run"] }],
  [
    "cargo",
    {
      flags: ["-q", "--quiet", "-v", "-vv", "--verbose", "--frozen", "--locked", "--offline", "-h", "--help", "-V", "--version", "--list"],
      valued: ["--color", "-Z", "-C"],
      // `--config` sets runners and wrappers (`build.rustc-wrapper`, `target.*.runner`) cargo then runs.
      code: ["--config"],
      plusToolchain: true,
    },
  ],
  ["rustup", { flags: ["-q", "--quiet", "-v", "--verbose"], nested: ["toolchain", "target", "component", "override", "self", "set"] }],
  ["go", { valued: ["-C"], nested: ["mod", "work", "env"] }],
  [
    "make",
    {
      flags: ["-B", "-k", "-s", "-n", "-i", "-q", "-r", "-R", "-S", "-t", "-w", "-e", "--no-print-directory", "--always-make", "--keep-going", "--silent", "--dry-run"],
      valued: ["-C", "--directory", "-f", "--file", "--makefile", "-I", "--include-dir", "-o", "-W", "-l"],
      optionalNumber: ["-j", "--jobs"],
      assignments: true,
    },
  ],
  [
    "gh",
    {
      flags: ["--help", "--version"],
      nested: [
        "pr", "issue", "repo", "run", "release", "workflow", "gist", "secret", "label", "auth", "codespace", "cache", "extension",
        "project", "ruleset", "variable", "search", "ssh-key", "gpg-key", "config", "attestation", "org",
      ],
    },
  ],
  ["helm", { flags: ["--debug"], valued: ["-n", "--namespace", "--kube-context"], code: ["--kubeconfig"], nested: ["repo", "plugin", "registry", "dependency", "show", "get", "search"] }],
  ["terraform", { flags: ["-help", "-version"], nested: ["state", "workspace", "providers"] }],
  ["pip", { flags: ["-q", "--quiet", "-v", "--verbose", "--disable-pip-version-check", "--no-color", "--isolated", "--no-input"], valued: ["--log", "--cache-dir"], code: ["--python"] }],
  ["uv", { flags: ["-q", "--quiet", "-v", "--verbose", "--offline", "--no-cache"], valued: ["--directory", "--project", "--cache-dir"], nested: ["pip", "python", "tool", "cache", "self"] }],
  // apt's `-o` sets any configuration, hooks such as `APT::Update::Pre-Invoke` included.
  ["apt", { flags: ["-y", "--yes", "--assume-yes", "-q", "-qq", "--no-install-recommends"], valued: ["-t", "--target-release"], code: ["-o", "--option", "-c", "--config-file"] }],
  ["apt-get", { flags: ["-y", "--yes", "--assume-yes", "-q", "-qq", "--no-install-recommends"], valued: ["-t", "--target-release"], code: ["-o", "--option", "-c", "--config-file"] }],
  ["systemctl", { flags: ["--user", "--system", "-q", "--quiet", "--no-pager", "--now"], valued: ["-H", "--host", "-M", "--machine"] }],
  ["brew", { flags: ["-v", "--verbose", "-d", "--debug", "-q", "--quiet"], nested: ["services", "tap"] }],
]);

/** Where the subcommand of a tool with a known structure stands, and what came before it. */
export interface CommandStructure {
  /** Index of the subcommand word; undefined when the command stops before one (only global options). */
  subcommand?: number;
  /** Index of the subcommand's own subcommand (`compose` → `up`, `run` → the script name); undefined when none. */
  nested?: number;
  /** Indices of words that are the values of global options: a prefix cut just before one leaves its option dangling. */
  optionValues: number[];
  /** The first global option that sets code or configuration the tool runs (`--exec-path=DIR`, `-c`), as written. */
  codeOption?: string;
  /** The first global option this table does not know: the subcommand cannot be told from its value beyond it. */
  unknownOption?: string;
}

/** A word that can be a subcommand or a script name: no option, no path, no free text. */
const COMMAND_WORD = /^[A-Za-z0-9][A-Za-z0-9._:@-]*$/;

/** Whether the tool named by `argv0` has a structure known here (`git`, `cargo`, `docker`, `kubectl`, `npm`, …). */
export function hasKnownSubcommands(argv0: string): boolean {
  return GRAMMARS.has(programName(argv0));
}

/**
 * How `argv` is built, for a tool whose structure is known (see `hasKnownSubcommands`): the global
 * options skipped (and their values), then the subcommand and, for the subcommands that take one,
 * the word after it. `undefined` for any other program. Pure: reads nothing but `argv`.
 */
export function commandStructure(argv: readonly string[]): CommandStructure | undefined {
  const grammar = argv[0] === undefined ? undefined : GRAMMARS.get(programName(argv[0]));
  if (!grammar) return undefined;
  const out: CommandStructure = { optionValues: [] };
  const isIn = (list: readonly string[] | undefined, word: string) => list?.includes(word) === true;
  let i = 1;
  if (grammar.plusToolchain && argv[1]?.startsWith("+") && argv[1].length > 1) i = 2;
  for (; i < argv.length; i++) {
    const word = argv[i]!;
    if (word === "--") return out;
    const name = word.startsWith("--") && word.includes("=") ? word.slice(0, word.indexOf("=")) : word;
    const attached = name !== word;
    if (isIn(grammar.code, name)) {
      out.codeOption ??= word;
      // `--exec-path` alone prints a path; with a value, or a listed valued option, the next word is its value.
      if (!attached && name !== "--exec-path") out.optionValues.push(++i);
      continue;
    }
    if (isIn(grammar.flags, name) && !attached) continue;
    if (isIn(grammar.valued, name)) {
      if (!attached) out.optionValues.push(++i);
      continue;
    }
    if (isIn(grammar.optionalNumber, name) || grammar.optionalNumber?.some((o) => !o.startsWith("--") && new RegExp(`^${o}\\d+$`).test(word))) {
      if (word === name && /^\d+$/.test(argv[i + 1] ?? "")) out.optionValues.push(++i);
      continue;
    }
    if (grammar.assignments && /^[A-Za-z_][A-Za-z0-9_]*=/.test(word)) continue;
    if (word.length > 1 && word.startsWith("-")) {
      out.unknownOption = word;
      return out;
    }
    if (!COMMAND_WORD.test(word)) return out;
    out.subcommand = i;
    const next = argv[i + 1];
    if (isIn(grammar.nested, word.toLowerCase()) && next !== undefined && COMMAND_WORD.test(next)) out.nested = i + 1;
    return out;
  }
  return out;
}
