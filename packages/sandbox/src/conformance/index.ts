/**
 * `@shellgate/sandbox/conformance`: the escape cases every sandbox backend must pass, as data, and
 * a runner that executes them through any backend available on the machine, each with an
 * unsandboxed control. For backend authors; see the package README.
 */
export { CONFORMANCE_CASES, type ConformanceCase, type ConformanceFeature, type ConformancePolicy, type HostFileCheck } from "./cases.js";
export { openLayout, type ConformanceLayout, type LayoutOptions, type OpenLayout } from "./layout.js";
export { casePolicy, runConformanceCase, type CaseRunOptions, type ConformanceResult, type RunOutcome } from "./run-case.js";
export { runConformance, skipReason, type ConformanceOptions, type ConformanceReport } from "./run.js";
