export { captureWorkspaceIdentity, verifyWorkspaceIdentity } from "./identity.js";
export type { WorkspaceIdentity } from "./identity.js";
