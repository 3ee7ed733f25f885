export { ExecPipeline } from "./exec-pipeline.js";
export {
  firstAttemptOverride,
  retryAllowed,
  judgeProbe,
  releaseSandbox,
  RETRY_REASON,
  type SandboxOverride,
  type ProbeVerdict,
} from "./decisions.js";
export type { ExecRequest, ExecProbe, LaunchResult, Launcher, PipelineContext, PipelineOutcome } from "./types.js";
