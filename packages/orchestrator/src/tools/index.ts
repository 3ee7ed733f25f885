export * from "./schemas.js";
export * from "./payload.js";
export * from "./definitions.js";
export * from "./registry.js";
export * from "./response.js";
export * from "./handlers/index.js";
