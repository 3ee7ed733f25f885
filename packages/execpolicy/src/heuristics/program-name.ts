/** The name a program is judged by here: its file name, without a Windows extension or a version (`python3.12` is `python`). */
export function programName(argv0: string): string {
  const base = argv0.slice(Math.max(argv0.lastIndexOf("/"), argv0.lastIndexOf("\\")) + 1).toLowerCase();
  return base.replace(/\.(exe|cmd|bat|com|ps1)$/, "").replace(/[\d.]+$/, "").replace(/-$/, "");
}
