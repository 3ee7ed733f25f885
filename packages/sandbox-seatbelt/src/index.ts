export { createSeatbeltSandboxBackend, seatbeltAvailability, type SeatbeltSandboxBackendOptions } from "./backend.js";
export { SeatbeltSandboxError, type SeatbeltSandboxFailure } from "./errors.js";
export { toDarwinCanonicalPath, DARWIN_PRIVATE_LINKS } from "./canonical-path.js";
export { buildSeatbeltProfile, type ProfileInput, type SeatbeltProfile } from "./profile.js";
export { paramArgs, type ProfileParam } from "./params.js";
export { planSeatbeltRun, seatbeltRun, SEATBELT_ISOLATION, type SeatbeltRun } from "./plan.js";
export { sandboxExecArgv, SANDBOX_EXEC_PATH, SEATBELT_DENIAL_SIGNALS } from "./launch-argv.js";
export { checkCommand } from "./command.js";
export { checkProxyPort, seatbeltNetwork, type ProxyPorts, type SeatbeltNetwork } from "./network.js";
