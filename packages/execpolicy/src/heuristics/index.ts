export { isKnownSafeArgv } from "./safe.js";
export { isDangerousArgv } from "./dangerous.js";
export { InvalidArgvError, type HeuristicsOptions } from "./executable.js";
