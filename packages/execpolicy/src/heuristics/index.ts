export { isKnownSafeArgv } from "./safe.js";
export { isDangerousArgv } from "./dangerous.js";
export { InvalidArgvError, type HeuristicsOptions } from "./executable.js";
export { arbitraryCodePrefix, programName, wrappedCommands } from "./code-runners.js";
export { workspaceCodeRunner } from "./workspace-code.js";
export { powerShellCommandKey } from "./powershell-aliases.js";
export { commandStructure, hasKnownSubcommands, type CommandStructure } from "./subcommands.js";
