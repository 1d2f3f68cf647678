/**
 * A checkpoint ready to score in Node: its runner, with its weights loaded, and a sandbox pool
 * made from its config. The eval CLI, the split benchmark and the shipped-checkpoint test all
 * start this way; `close` disposes the runner and closes the pool (also when loading fails).
 */
import { decodeCheckpoint, type CheckpointMeta } from '../core/checkpoint';
import type { KolmogorovRecord } from '../core/data/records';
import type { FunctionProblem } from '../core/functions/problems';
import { createFunctionsRunner, createRunner, preludes, type FunctionsRunner, type Runner } from '../core/runner';
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

export interface FunctionsCheckpointRunner {
  runner: FunctionsRunner;
  meta: CheckpointMeta;
  close(): Promise<void>;
}

/** The same for a functions-task checkpoint (refused with a clear message when it is another task's). */
export async function openFunctionsCheckpointRunner(bytes: Uint8Array, { poolSize }: { poolSize?: number } = {}): Promise<FunctionsCheckpointRunner> {
  const { meta } = await decodeCheckpoint(bytes);
  if (meta.config.task.name !== 'functions') throw new Error(`the checkpoint is for task ${meta.config.task.name}, not functions`);
  const pool = createNodeSandboxPool({ size: poolSize ?? meta.config.sandbox.workers, limits: sandboxLimits(meta.config), preludes });
  let runner: FunctionsRunner | null = null;
  const close = async () => {
    runner?.dispose();
    await pool.close();
  };
  try {
    runner = await createFunctionsRunner(meta.config, [] as FunctionProblem[], { pool });
    await runner.loadCheckpoint(bytes);
  } catch (error) {
    await close();
    throw error;
  }
  return { runner, meta, close };
}
