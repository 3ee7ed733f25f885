// The CLI's configuration locations are the per-user paths every package takes from
// @shellgate/user-paths: the directories read here are the directories every sandbox holds.
export { codexRulesDir, userConfigDir, userRulesDir, type UserPathsEnv as PathEnv } from "@shellgate/user-paths";

/** The project configuration directory's name, read in the workspace (the working directory) only, never its ancestors. */
export const PROJECT_DIR_NAME = ".shellgate";

/** The configuration file's name, in both the project and the user directory. */
export const CONFIG_FILE_NAME = "config.toml";
