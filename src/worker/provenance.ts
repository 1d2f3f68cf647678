/**
 * The page's record of a run (issue 35), as the CLI writes run.json: the code (the package
 * version and the build's id: the git commit it was built from, when there was one), the tfjs
 * backend, and every file the run read with its sha256, size and loaded/rejected counts (the
 * training and held-out data, the warm start's checkpoint). It travels in the stored run and so
 * in a downloaded run file.
 */
import { sha256Hex as bytesSha256Hex } from '../core/checkpoint';

declare const __BUILD_ID__: string | undefined;
declare const __PACKAGE_VERSION__: string | undefined;

export interface FileProvenance {
  /** What the file is to the run: train, heldout, warm start, checkpoint. */
  role: string;
  name: string;
  sha256: string;
  bytes: number;
  loaded?: number;
  rejected?: number;
}

export interface RunProvenance {
  code: { version: string; build: string };
  backend: string;
  files: FileProvenance[];
}

/** The code this page runs: set at build time (vite.config.ts); 'dev' outside a build. */
export function codeOfThisBuild(): RunProvenance['code'] {
  return {
    version: typeof __PACKAGE_VERSION__ === 'string' ? __PACKAGE_VERSION__ : 'unknown',
    build: typeof __BUILD_ID__ === 'string' ? __BUILD_ID__ : 'dev',
  };
}

/** The sha256 of some bytes, as hex (Web Crypto: in workers and in Node alike). */
export async function sha256Hex(data: Blob | Uint8Array): Promise<string> {
  return bytesSha256Hex(data instanceof Uint8Array ? data : new Uint8Array(await data.arrayBuffer()));
}
