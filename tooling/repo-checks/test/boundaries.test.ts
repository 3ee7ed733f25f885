import { ESLint } from "eslint";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const eslint = new ESLint({ cwd: root });

async function restrictedImports(pkg: string, source: string): Promise<string[]> {
  const filePath = path.join(root, "packages", pkg, "src", "__boundary_probe__.ts");
  const [result] = await eslint.lintText(source, { filePath });
  return (result?.messages ?? [])
    .filter((m) => m.ruleId === "no-restricted-imports" || m.ruleId === "no-restricted-syntax")
    .map((m) => m.message);
}

describe("package boundaries", () => {
  it("rejects a deep import into another package", async () => {
    const found = await restrictedImports("orchestrator", `import { x } from "@shellgate/sandbox/src/policy.js";\nexport { x };\n`);
    expect(found.join("\n")).toMatch(/public entries/);
  });

  it("rejects a relative path into another package's sources", async () => {
    const found = await restrictedImports("orchestrator", `import { x } from "../../sandbox/src/policy.js";\nexport { x };\n`);
    expect(found).toHaveLength(1);
  });

  it("rejects a leaf package importing the orchestrator or another leaf", async () => {
    expect(await restrictedImports("execpolicy", `import { x } from "@shellgate/orchestrator";\nexport { x };\n`)).toHaveLength(1);
    expect(await restrictedImports("pty", `import { x } from "@shellgate/sandbox";\nexport { x };\n`)).toHaveLength(1);
  });

  it("lets every package import @shellgate/user-paths, which imports no shellgate package", async () => {
    for (const pkg of ["execpolicy", "sandbox", "sandbox-linux", "orchestrator"]) {
      expect(await restrictedImports(pkg, `import { homeDir } from "@shellgate/user-paths";\nexport { homeDir };\n`), pkg).toHaveLength(0);
    }
    expect(await restrictedImports("user-paths", `import { x } from "@shellgate/sandbox";\nexport { x };\n`)).toHaveLength(1);
  });

  it("rejects a backend importing anything but @shellgate/sandbox", async () => {
    expect(await restrictedImports("sandbox-linux", `import { x } from "@shellgate/pty";\nexport { x };\n`)).toHaveLength(1);
    expect(await restrictedImports("sandbox-linux", `import { x } from "@shellgate/sandbox";\nexport { x };\n`)).toHaveLength(0);
  });

  it("rejects the orchestrator importing the CLI, and allows its real dependencies", async () => {
    expect(await restrictedImports("orchestrator", `import { x } from "@shellgate/cli";\nexport { x };\n`)).toHaveLength(1);
    expect(await restrictedImports("orchestrator", `import { x } from "@shellgate/execpolicy";\nexport { x };\n`)).toHaveLength(0);
  });

  it("rejects the orchestrator naming a sandbox backend, statically, dynamically or through require", async () => {
    for (const backend of ["sandbox-linux", "sandbox-seatbelt", "sandbox-windows"]) {
      expect(await restrictedImports("orchestrator", `import { x } from "@shellgate/${backend}";\nexport { x };\n`), backend).toHaveLength(1);
      expect(await restrictedImports("orchestrator", `export const m = await import("@shellgate/${backend}");\n`), backend).toHaveLength(1);
      expect(await restrictedImports("orchestrator", `declare const require: (id: string) => unknown;\nexport const m = require("@shellgate/${backend}");\n`), backend).toHaveLength(1);
    }
    expect(await restrictedImports("orchestrator", `import { x } from "@shellgate/sandbox";\nexport { x };\n`)).toHaveLength(0);
  });

  it("lets only the CLI's wiring module load a backend; type imports are fine elsewhere", async () => {
    const lint = async (file: string, source: string) => {
      const [result] = await eslint.lintText(source, { filePath: path.join(root, "packages", "cli", "src", file) });
      return (result?.messages ?? []).filter((m) => m.ruleId === "@typescript-eslint/no-restricted-imports");
    };
    expect(await lint("commands/__probe__.ts", `import { probeLinuxSandbox } from "@shellgate/sandbox-linux";\nexport { probeLinuxSandbox };\n`)).toHaveLength(1);
    expect(await lint("commands/__probe__.ts", `import type { LinuxCapabilityReport } from "@shellgate/sandbox-linux";\nexport type { LinuxCapabilityReport };\n`)).toHaveLength(0);
    expect(await lint("sandbox-backends.ts", `import { probeLinuxSandbox } from "@shellgate/sandbox-linux";\nexport { probeLinuxSandbox };\n`)).toHaveLength(0);
  });

  it("allows the subpaths a package exports, and only those", async () => {
    expect(await restrictedImports("sandbox-linux", `import { x } from "@shellgate/sandbox/conformance";\nexport { x };\n`)).toHaveLength(0);
    expect(await restrictedImports("sandbox-linux", `import { x } from "@shellgate/sandbox/manager";\nexport { x };\n`)).toHaveLength(1);
  });

  it("allows a package's own relative imports", async () => {
    expect(await restrictedImports("sandbox", `import { x } from "./policy.js";\nexport { x };\n`)).toHaveLength(0);
  });
});
