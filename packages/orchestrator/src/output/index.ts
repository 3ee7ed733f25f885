export * from "./truncate.js";
export * from "./format.js";
export * from "./spill.js";
export * from "./deltas.js";
export * from "./escape.js";
export * from "./terminal-filter.js";
