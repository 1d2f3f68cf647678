/**
 * The one guard of the paths a command writes to (issue 29). Every output flag goes through
 * checkOutputs before the command does any work, with the command's input paths beside it:
 *
 * - an empty path is refused (`--output-dir ""` would write into the current folder);
 * - a folder output that is a file, a file output that is a folder or not a regular file, and a
 *   path under a file are refused by name (instead of a raw ENOTDIR or EEXIST later);
 * - the nearest folder that exists must take a new entry: a probe is made there and removed,
 *   since access() says yes to root on a read-only or virtual file system;
 * - an output that is one of the inputs (`--out d.jsonl --data d.jsonl`), or another output
 *   (`--out X --pairs X`), is refused: one file is one file whatever the spelling, a symlink or a
 *   hard link (same device and inode when both exist, else the same real path).
 *
 * Writes then go through writeOutputFile (a file whole or not at all) or writeFolderAtomic (a
 * folder whole or not at all), whose errors name the flag too.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, realpathSync, renameSync, rmSync, rmdirSync, statSync, writeFileSync, type Stats } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { writeAtomic } from './data';

export interface PathFlag {
  /** The flag without its dashes: `out`, `output-dir`. */
  flag: string;
  path: string;
}

export interface OutputFlag extends PathFlag {
  kind: 'file' | 'folder';
}

const statOf = (path: string): Stats | null => {
  try {
    return statSync(path);
  } catch {
    return null;
  }
};

/** The nearest path at or above `path` that exists. */
function nearestExisting(path: string): string {
  let head = resolve(path);
  while (!existsSync(head) && dirname(head) !== head) head = dirname(head);
  return head;
}

/** Where a path leads: the real path of its nearest existing part, with the rest as written (`a/../b`, a symlinked folder). */
function canonical(path: string): string {
  const full = resolve(path);
  const head = nearestExisting(full);
  return join(realpathSync(head), full.slice(head.length));
}

/** Whether two paths are one file: the same device and inode when both exist (a hard link too), else the same real path. */
function samePlace(a: string, b: string): boolean {
  const [x, y] = [statOf(a), statOf(b)];
  if (x && y) return x.dev === y.dev && x.ino === y.ino;
  return canonical(a) === canonical(b);
}

const reason = (error: unknown): string => {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'EROFS') return 'a read-only file system';
  if (code === 'EACCES' || code === 'EPERM') return 'permission denied';
  return (error as Error).message;
};

/** Refuses, naming the flag, an output that cannot be written as asked or that is an input or another output. */
export function checkOutputs(outputs: readonly OutputFlag[], inputs: readonly PathFlag[] = []): void {
  for (const output of outputs) {
    const where = `--${output.flag} ${output.path}`;
    if (output.path.trim() === '') throw new Error(`--${output.flag}: an empty path (it would write into the current folder); give a ${output.kind}`);
    const stat = statOf(output.path);
    if (stat && output.kind === 'folder' && !stat.isDirectory()) throw new Error(`${where}: it is a file, not a folder`);
    if (stat && output.kind === 'file' && stat.isDirectory()) throw new Error(`${where}: it is a folder, not a file`);
    if (stat && output.kind === 'file' && !stat.isFile()) throw new Error(`${where}: not a regular file`);
    const parent = nearestExisting(stat && output.kind === 'folder' ? output.path : dirname(resolve(output.path)));
    if (!statSync(parent).isDirectory()) throw new Error(`${where}: ${parent} is a file, not a folder`);
    try {
      rmdirSync(mkdtempSync(join(parent, '.prl-write-probe-')));
    } catch (error) {
      throw new Error(`${where}: cannot write in ${parent} (${reason(error)})`);
    }
    for (const input of inputs) {
      if (input.path && samePlace(output.path, input.path)) throw new Error(`${where} is also --${input.flag}: writing it would replace what the command reads; give another path`);
    }
  }
  for (let i = 0; i < outputs.length; i++) {
    for (let j = i + 1; j < outputs.length; j++) {
      if (samePlace(outputs[i].path, outputs[j].path)) throw new Error(`--${outputs[i].flag} and --${outputs[j].flag} are the same file (${outputs[i].path}): give each its own`);
    }
  }
}

/** Writes an output file whole or not at all (its folder made first); a failure names the flag. */
export function writeOutputFile(flag: string, path: string, content: string | Uint8Array): void {
  try {
    mkdirSync(dirname(resolve(path)), { recursive: true });
    writeAtomic(path, typeof content === 'string' ? new TextEncoder().encode(content) : content);
  } catch (error) {
    throw new Error(`--${flag} ${path}: ${(error as Error).message}`);
  }
}

/**
 * Refuses a folder output that already holds files other than `ownNames` (what the command
 * itself writes there): writing into it would put new files beside someone else's, or replace
 * them (an export into a run's folder would replace its lab config.json with the PyTorch one).
 */
export function refuseForeignFolder(flag: string, dir: string, ownNames: readonly string[]): void {
  if (!statOf(dir)?.isDirectory()) return;
  const foreign = readdirSync(dir).filter((name) => !ownNames.includes(name));
  if (foreign.length) throw new Error(`--${flag} ${dir} holds files that are not an earlier export's (${foreign.slice(0, 5).join(', ')}${foreign.length > 5 ? ', ...' : ''}): give a new or empty folder`);
}

/**
 * Writes `files` as the whole content of folder `dir`: into a fresh folder beside it, which then
 * takes its place (an earlier one is moved aside first and removed once the new one is in). A
 * failure partway leaves the earlier folder as it was and no partial one.
 */
export function writeFolderAtomic(flag: string, dir: string, files: Record<string, string | Uint8Array>): void {
  const target = resolve(dir);
  const parent = dirname(target);
  const partial = join(parent, `.${basename(target)}.partial-${process.pid}`);
  const old = join(parent, `.${basename(target)}.old-${process.pid}`);
  try {
    mkdirSync(parent, { recursive: true });
    rmSync(partial, { recursive: true, force: true });
    mkdirSync(partial);
    for (const [name, content] of Object.entries(files)) writeFileSync(join(partial, name), content);
    if (existsSync(target)) renameSync(target, old);
    try {
      renameSync(partial, target);
    } catch (error) {
      if (existsSync(old)) renameSync(old, target);
      throw error;
    }
    rmSync(old, { recursive: true, force: true });
  } catch (error) {
    rmSync(partial, { recursive: true, force: true });
    throw new Error(`--${flag} ${dir}: cannot write (${reason(error)})`);
  }
}
