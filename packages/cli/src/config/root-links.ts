import { lstatSync, readlinkSync, realpathSync } from "node:fs";
import path from "node:path";

/** A symlink met on the way to a path: the link itself and what it pointed to when looked at. */
export interface LinkOnPath {
  link: string;
  target: string;
}

/**
 * The first symlink among the components of `resolved` (absolute, resolved lexically as a config path
 * is) below `base`: the project root, whose own path is the user's choice. A path outside `base` is
 * walked from `/`. Undefined when no component is a link (a missing component ends the walk: nothing
 * further can be a link yet).
 */
export function firstLinkOnPath(resolved: string, base: string): LinkOnPath | undefined {
  const rel = path.relative(base, resolved);
  const inside = rel === "" || (!rel.startsWith("..") && !path.isAbsolute(rel));
  let current = inside ? base : path.parse(resolved).root;
  const rest = inside ? rel : path.relative(current, resolved);
  for (const part of rest.split(path.sep)) {
    if (part === "") continue;
    current = path.join(current, part);
    let info;
    try {
      info = lstatSync(current);
    } catch {
      return undefined;
    }
    if (info.isSymbolicLink()) {
      let target = "?";
      try {
        target = readlinkSync(current);
      } catch {
        // Replaced since the lstat: the link is reported all the same.
      }
      return { link: current, target };
    }
  }
  return undefined;
}

/**
 * Every symlink met on the way to `p` (absolute), each as the path of the link in its real parent
 * directory, with what it pointed to. The walk follows each link to carry on below it, and stops at
 * the first component that does not exist.
 */
export function linksOnPath(p: string): LinkOnPath[] {
  const found: LinkOnPath[] = [];
  let current = path.parse(p).root;
  for (const part of path.relative(current, path.resolve(p)).split(path.sep)) {
    if (part === "") continue;
    const next = path.join(current, part);
    let info;
    try {
      info = lstatSync(next);
    } catch {
      return found;
    }
    if (!info.isSymbolicLink()) {
      current = next;
      continue;
    }
    let target = "?";
    try {
      target = readlinkSync(next);
      current = realpathSync(next);
    } catch {
      found.push({ link: next, target });
      return found;
    }
    found.push({ link: next, target });
  }
  return found;
}
