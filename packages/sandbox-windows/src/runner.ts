// The runner's entry point: `node.exe runner.js --request JSON`, spawned by the host for every
// sandboxed command on Windows. Exit code: the command's, or 125 with a message when the sandbox
// could not be set up (nothing was run then).
import { loadKoffiWin32Api } from "./win32-koffi.js";
import { parseRunnerRequest, runRestricted } from "./runner-core.js";

/** The runner's own failure: the sandbox could not be set up, nothing ran (as the CLI's 125). */
export const RUNNER_SETUP_FAILED = 125;

async function main(): Promise<number> {
  let request;
  try {
    request = parseRunnerRequest(process.argv.slice(2));
  } catch (error) {
    process.stderr.write(`shellgate sandbox runner: ${(error as Error).message}\n`);
    return RUNNER_SETUP_FAILED;
  }
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
  try {
    const api = await loadKoffiWin32Api();
    return await runRestricted(request, api, env);
  } catch (error) {
    process.stderr.write(`shellgate sandbox runner: sandbox setup failed, nothing was run: ${(error as Error).message}\n`);
    return RUNNER_SETUP_FAILED;
  }
}

process.exitCode = await main();
