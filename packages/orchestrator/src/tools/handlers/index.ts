export * from "./runtime.js";
export * from "./one-shot.js";
export * from "./shell.js";
export * from "./unified-exec.js";
export * from "./defaults.js";
