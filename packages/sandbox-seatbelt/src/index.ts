export {
  createSeatbeltSandboxBackend,
  seatbeltAvailability,
  type SeatbeltSandboxBackendOptions,
} from "./backend.js";
export {
  SeatbeltSandboxError,
  type SeatbeltSandboxFailure,
} from "./errors.js";
export {
  SEATBELT_DENIAL_SIGNALS,
} from "./launch-argv.js";
