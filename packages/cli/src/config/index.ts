export * from "./paths.js";
export * from "./schema.js";
export * from "./file.js";
export * from "./rules-files.js";
export * from "./load.js";
export * from "./strictness.js";
export * from "./trust.js";
export * from "./broad-workspace.js";
