/**
 * A checkpoint ready to score in Node: its runner, with its weights loaded, and a sandbox pool
 * made from its config. The eval CLI, the split benchmark and the shipped-checkpoint test all
 * start this way; `close` disposes the runner and closes the pool (also when loading fails).
 */
import { decodeCheckpoint, type CheckpointMeta } from '../core/checkpoint';
import type { KolmogorovRecord } from '../core/data/records';
import { createRunner, preludes, type Runner } from '../core/runner';
import { sandboxLimits } from './report';
import { createNodeSandboxPool } from './sandboxHost';

export interface CheckpointRunner {
  runner: Runner;
  meta: CheckpointMeta;
  close(): Promise<void>;
}

/** `records` are the runner's held-out data; `poolSize` defaults to the checkpoint's sandbox workers. */
export async function openCheckpointRunner(bytes: Uint8Array, records: KolmogorovRecord[], { poolSize }: { poolSize?: number } = {}): Promise<CheckpointRunner> {
  const { meta } = await decodeCheckpoint(bytes);
  const pool = createNodeSandboxPool({ size: poolSize ?? meta.config.sandbox.workers, limits: sandboxLimits(meta.config), preludes });
  let runner: Runner | null = null;
  const close = async () => {
    runner?.dispose();
    await pool.close();
  };
  try {
    runner = await createRunner(meta.config, { train: [], heldout: records }, { pool });
    await runner.loadCheckpoint(bytes);
  } catch (error) {
    await close();
    throw error;
  }
  return { runner, meta, close };
}
