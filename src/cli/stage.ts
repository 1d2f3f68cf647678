/**
 * One stage of a recipe: the same CLI a user runs by hand, started as a child process, so a
 * recipe exercises exactly what ships.
 */
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';

/**
 * Node's flags for a stage, as the npm scripts give them: relaxed SIMD, so the kernels' fused
 * multiply-add runs in every stage as in a command run by hand (`npx tsx` alone would leave it
 * off), and tsx to load TypeScript.
 */
const stageNodeFlags = ['--experimental-wasm-relaxed-simd', '--import', 'tsx'];

/**
 * Runs one stage, the same CLI a user runs by hand, as a child process; resolves to its seconds.
 * A stage run `beside` others has its output lines prefixed with its name, so that interleaved
 * logs stay readable; otherwise the child writes straight to this terminal.
 */
export function stage(name: string, script: string, args: string[], { beside = false } = {}): Promise<number> {
  const started = performance.now();
  const command = [...stageNodeFlags, script, ...args];
  console.error(`\n== ${name}: node ${command.join(' ')}`);
  const child = spawn(process.execPath, command, { stdio: beside ? ['ignore', 'pipe', 'pipe'] : 'inherit' });
  if (beside) {
    for (const [from, to] of [[child.stdout!, process.stdout], [child.stderr!, process.stderr]] as const) {
      createInterface({ input: from }).on('line', (line) => to.write(`[${name}] ${line}\n`));
    }
  }
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (status, signal) => {
      if (status !== 0) return reject(new Error(`${name} failed (exit ${status ?? signal})`));
      const seconds = (performance.now() - started) / 1000;
      console.error(`== ${name}: ${(seconds / 60).toFixed(1)} min`);
      resolve(seconds);
    });
  });
}

