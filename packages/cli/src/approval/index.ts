export * from "./types.js";
export * from "./render.js";
export * from "./terminal.js";
