// `@shellgate/sandbox-seatbelt/testing`: the profile, its parameters and the planned run this package's
// tests evaluate, for tests only; an integrator needs the main entry alone.
export { DARWIN_PRIVATE_LINKS, toDarwinCanonicalPath } from "./canonical-path.js";
export { SANDBOX_EXEC_PATH, sandboxExecArgv } from "./launch-argv.js";
export { checkProxyPort, seatbeltNetwork, type ProxyPorts, type SeatbeltNetwork } from "./network.js";
export { paramArgs, type ProfileParam } from "./params.js";
export { planSeatbeltRun, SEATBELT_ISOLATION, seatbeltRun, type SeatbeltRun } from "./plan.js";
export { buildSeatbeltProfile, type ProfileInput, type SeatbeltProfile } from "./profile.js";
