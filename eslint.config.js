// Lint exists mainly to hold the package boundaries of ARCHITECTURE.md:
// one public entry per package, and dependencies that point one way.
import tseslint from "typescript-eslint";

const deepImport = {
  group: ["@shellgate/*/*", "**/packages/*/src/**", "**/packages/*/dist/**", "../../*/src/**", "../../*/dist/**", "../../../*/src/**"],
  message: "Import another package only through its public entry ('@shellgate/<name>'), never its internal modules.",
};

const leaf = ["execpolicy", "shell-detect", "sandbox", "pty"];
const backends = ["sandbox-linux", "sandbox-seatbelt", "sandbox-windows"];

/** @param {string[]} forbidden @param {string} why */
const forbid = (forbidden, why) => ({
  "no-restricted-imports": ["error", {
    patterns: [deepImport, { group: forbidden.map((n) => `@shellgate/${n}`), message: why }],
  }],
});

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
    rules: forbid(
      ["execpolicy", "shell-detect", "sandbox", "sandbox-linux", "sandbox-seatbelt", "sandbox-windows", "pty", "orchestrator", "cli"],
      "Leaf packages know nothing of other shellgate packages (ARCHITECTURE.md, rules of the house).",
    ),
  },
  {
    files: backends.map((n) => `**/packages/${n}/**/*.{ts,js,mjs}`),
    rules: forbid(
      ["execpolicy", "shell-detect", "pty", "orchestrator", "cli", ...backends],
      "Sandbox backends depend on @shellgate/sandbox only.",
    ),
  },
  {
    files: ["**/packages/orchestrator/**/*.{ts,js,mjs}"],
    rules: forbid(["cli"], "The orchestrator never imports the CLI."),
  },
);
