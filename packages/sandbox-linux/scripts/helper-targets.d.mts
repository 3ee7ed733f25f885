// Types for helper-targets.mjs, so the TypeScript tests can import it (the script itself stays plain
// JavaScript: the build runs it with node before anything is compiled for it).
export interface HelperTargetSpec {
  arch: string;
  machine: number;
  crossCompiler: string;
  ccEnv: string;
  debianPackages: string[];
}
export declare const HELPER_TARGETS: Record<"linux-x64" | "linux-arm64", HelperTargetSpec>;
export declare function hostTarget(arch?: string): "linux-x64" | "linux-arm64" | undefined;
export declare function helperProblem(file: string, target: string, options?: { requireStatic?: boolean }): string | undefined;
