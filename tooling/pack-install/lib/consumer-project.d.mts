// Types for consumer-project.mjs (plain JavaScript, so the bench can use it without a build).
export declare const REPO_ROOT: string;
export declare function publishablePackages(): [name: string, dir: string][];
export declare function cleanEnv(home?: string): Record<string, string>;
export declare function lockVersion(name: string): string;
export interface PackReport {
  name: string;
  version: string;
  filename: string;
  files: { path: string; size: number; mode: number }[];
}
export declare function packTarballs(dest: string, env?: Record<string, string>): Promise<PackReport[]>;
export interface ConsumerProject {
  root: string;
  tarballs: string;
  project: string;
  home: string;
  packed: PackReport[];
  bin(name: string): string;
}
export declare function createConsumerProject(options?: { extraDependencies?: string[]; log?: (line: string) => void }): Promise<ConsumerProject>;
