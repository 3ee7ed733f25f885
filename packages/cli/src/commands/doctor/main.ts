import { configOverrides, CONFIG_OPTIONS, parseCommandArgs } from "../../args.js";
import { loadConfig } from "../../config/load.js";
import { formatDoctorReport } from "./format.js";
import { gatherDoctorReport } from "./report.js";
import { describeError } from "../../error-text.js";
import { CliError, UsageError } from "../../errors.js";
import { CONFIG_ERROR_EXIT } from "../../exit-table.js";
import { readPackageVersion } from "../../version.js";

/** The body of `shellgate doctor` (see its `--help`). */
export async function doctorMain(args: string[]): Promise<number> {
  let parsed;
  let config;
  try {
    parsed = parseCommandArgs(args, { ...CONFIG_OPTIONS, json: { type: "boolean" }, help: { type: "boolean" } }, false);
    // A workspace of / or the home directory is reported (exit 1), not refused: doctor says why.
    config = await loadConfig(configOverrides(parsed.values), process.env, { broadWorkspace: "report" });
  } catch (error) {
    if (error instanceof CliError) {
      process.stderr.write(`shellgate doctor: ${describeError(error)}\n`);
      if (error instanceof UsageError) process.stderr.write("Run `shellgate doctor --help` for usage.\n");
      return error instanceof UsageError ? 2 : CONFIG_ERROR_EXIT;
    }
    throw error;
  }
  const report = await gatherDoctorReport(config, readPackageVersion());
  process.stdout.write(parsed.values["json"] ? `${JSON.stringify(report, null, 2)}\n` : formatDoctorReport(report));
  return report.ok ? 0 : 1;
}
