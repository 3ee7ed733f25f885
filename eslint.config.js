// Lint exists mainly to hold the package boundaries of ARCHITECTURE.md:
// one public entry per package, and dependencies that point one way.
import { readdirSync, readFileSync } from "node:fs";
import tseslint from "typescript-eslint";

/**
 * Subpaths a package declares in its package.json "exports" (`@shellgate/sandbox/conformance`):
 * public entries like the main one, so importing them is not a deep import.
 */
const declaredSubpaths = readdirSync(new URL("./packages/", import.meta.url)).flatMap((dir) => {
  let manifest;
  try {
    manifest = JSON.parse(readFileSync(new URL(`./packages/${dir}/package.json`, import.meta.url), "utf8"));
  } catch {
    return [];
  }
  return Object.keys(manifest.exports ?? {})
    .filter((key) => key !== "." && key !== "./package.json")
    .map((key) => `${manifest.name}/${key.slice(2)}`);
});

const deepImport = {
  group: [
    "@shellgate/*/*", "**/packages/*/src/**", "**/packages/*/dist/**", "../../*/src/**", "../../*/dist/**", "../../../*/src/**",
    ...declaredSubpaths.map((entry) => `!${entry}`),
    // `*` matches `..` too: a test two folders down reaching its own package's src is not a deep import.
    "!../../../src/**", "!../../../dist/**",
  ],
  message: "Import another package only through its public entries ('@shellgate/<name>' or a subpath its package.json exports), never its internal modules.",
};

// user-paths is below every package (per-user locations, no dependencies): anyone may import it.
const leaf = ["user-paths", "execpolicy", "shell-detect", "sandbox", "pty", "network-proxy"];
const backends = ["sandbox-linux", "sandbox-seatbelt", "sandbox-windows"];

const leafForbidden = ["execpolicy", "shell-detect", "sandbox", "sandbox-linux", "sandbox-seatbelt", "sandbox-windows", "pty", "network-proxy", "orchestrator", "cli"];
const leafWhy = "Leaf packages know nothing of other shellgate packages but @shellgate/user-paths (ARCHITECTURE.md, rules of the house).";
const backendForbidden = ["execpolicy", "shell-detect", "pty", "network-proxy", "orchestrator", "cli", ...backends];
const backendWhy = "Sandbox backends depend on @shellgate/sandbox only.";

/** @param {string[]} forbidden @param {string} why @param {object[]} [paths] */
const forbid = (forbidden, why, paths = []) => ({
  "no-restricted-imports": ["error", {
    paths,
    patterns: [deepImport, { group: forbidden.map((n) => `@shellgate/${n}`), message: why }],
  }],
});

// The modules that plan a sandboxed run read the file system only through @shellgate/sandbox's
// observedFs: a backend reuses a plan while every read it was made from answers the same, so a read
// that bypassed the recording could let a stale plan through (see packages/sandbox/src/observed-fs.ts).
const planning = {
  sandbox: ["paths", "writable-roots", "git-carve-outs", "git-config-read", "git-config-refs", "git-config-parse", "carve-outs", "tool-homes"],
  "sandbox-linux": ["run-view", "mount-plan", "special-files", "trusted-path", "proxy-route", "reuse-key"],
};
const unobservedFs = ["fs", "node:fs", "fs/promises", "node:fs/promises"].map((name) => ({
  name,
  message: "A module that plans a sandboxed run reads the file system only through observedFs (@shellgate/sandbox): its reads are what a reused plan is checked against.",
}));

export default tseslint.config(
  { ignores: ["**/dist/**", "**/build/**", "**/node_modules/**", "**/.turbo/**", "**/fixtures/**"] },
  ...tseslint.configs.recommended,
  {
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "no-restricted-imports": ["error", { patterns: [deepImport] }],
    },
  },
  {
    files: leaf.map((n) => `**/packages/${n}/**/*.{ts,js,mjs}`),
    rules: forbid(leafForbidden, leafWhy),
  },
  {
    files: backends.map((n) => `**/packages/${n}/**/*.{ts,js,mjs}`),
    rules: forbid(backendForbidden, backendWhy),
  },
  {
    files: planning.sandbox.map((m) => `**/packages/sandbox/src/${m}.ts`),
    rules: forbid(leafForbidden, leafWhy, unobservedFs),
  },
  {
    files: planning["sandbox-linux"].map((m) => `**/packages/sandbox-linux/src/${m}.ts`),
    rules: forbid(backendForbidden, backendWhy, unobservedFs),
  },
  {
    files: ["**/packages/orchestrator/**/*.{ts,js,mjs}"],
    rules: {
      ...forbid(
        ["cli", ...backends],
        "The orchestrator never imports the CLI, and takes sandbox backends from its caller instead of importing them (ARCHITECTURE.md: backends are plug-ins).",
      ),
      // A dynamic import or require by name would wire a backend just the same.
      "no-restricted-syntax": ["error",
        {
          selector: "ImportExpression > Literal[value=/^@shellgate\\/(cli|sandbox-)/]",
          message: "The orchestrator loads no backend or CLI module by name: its caller passes backends (sandboxBackends).",
        },
        {
          selector: "CallExpression[callee.name='require'] > Literal[value=/^@shellgate\\/(cli|sandbox-)/]",
          message: "The orchestrator loads no backend or CLI module by name: its caller passes backends (sandboxBackends).",
        },
      ],
    },
  },
  {
    // The CLI wires backends in one module; every command asks it (ARCHITECTURE.md: backends are plug-ins).
    files: ["**/packages/cli/src/**/*.{ts,js,mjs}"],
    ignores: ["**/packages/cli/src/sandbox-backends.ts"],
    rules: {
      "@typescript-eslint/no-restricted-imports": ["error", {
        patterns: [{
          group: backends.map((n) => `@shellgate/${n}`),
          allowTypeImports: true,
          message: "Only src/sandbox-backends.ts loads sandbox backends; ask it (platformBackends, createBackend, createSandboxManager) instead.",
        }],
      }],
    },
  },
);
