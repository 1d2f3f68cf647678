/**
 * A checkpoint ready to score in Node: its runner, with its weights loaded, and a sandbox pool
 * made from its config. The eval CLI, the split benchmark and the shipped-checkpoint test all
 * start this way; `close` disposes the runner and closes the pool (also when loading fails).
 */
import { decodeCheckpoint, type CheckpointMeta } from '../core/checkpoint';
import type { KolmogorovRecord } from '../core/data/records';
import type { FunctionProblem } from '../core/functions/problems';
import type { TrainingLoop } from '../core/loop';
import { createFunctionsRunner, type FunctionsRunner } from '../core/functions/runner';
import { createKolmogorovRunner, type KolmogorovRunner } from '../core/kolmogorov/runner';
import { createRunner, taskPreludes, type Runner } from '../core/runner';
import type { SandboxPool } from '../core/sandbox/pool';
import { sandboxLimits } from './report';
import { createNodeSandboxPool } from './sandboxHost';

export interface CheckpointRunner<R = KolmogorovRunner> {
  runner: R;
  meta: CheckpointMeta;
  close(): Promise<void>;
}

/** A Kolmogorov checkpoint: `records` are the runner's held-out data; `poolSize` defaults to the checkpoint's sandbox workers. */
export async function openCheckpointRunner(bytes: Uint8Array, records: KolmogorovRecord[], { poolSize }: { poolSize?: number } = {}): Promise<CheckpointRunner> {
  return open(bytes, poolSize, (meta, pool) => {
    if (meta.config.task.name !== 'kolmogorov') throw new Error(`the checkpoint is for task ${meta.config.task.name}, not kolmogorov`);
    return createKolmogorovRunner(meta.config, { train: [], heldout: records }, { pool });
  });
}

/** A checkpoint of any task, with its task's generic evaluation; `heldout` are its held-out items. */
export async function openAnyCheckpointRunner(bytes: Uint8Array, heldout: readonly unknown[], { poolSize }: { poolSize?: number } = {}): Promise<CheckpointRunner<Runner>> {
  return open(bytes, poolSize, (meta, pool) => createRunner(meta.config, { train: [], heldout }, { pool }));
}

/** The same for a functions-task checkpoint (refused with a clear message when it is another task's). */
export async function openFunctionsCheckpointRunner(bytes: Uint8Array, { poolSize }: { poolSize?: number } = {}): Promise<CheckpointRunner<FunctionsRunner>> {
  return open(bytes, poolSize, (meta, pool) => {
    if (meta.config.task.name !== 'functions') throw new Error(`the checkpoint is for task ${meta.config.task.name}, not functions`);
    return createFunctionsRunner(meta.config, [] as FunctionProblem[], { pool });
  });
}

async function open<R extends TrainingLoop>(bytes: Uint8Array, poolSize: number | undefined, create: (meta: CheckpointMeta, pool: SandboxPool) => Promise<R>): Promise<CheckpointRunner<R>> {
  const { meta } = await decodeCheckpoint(bytes);
  const pool = createNodeSandboxPool({ size: poolSize ?? meta.config.sandbox.workers, limits: sandboxLimits(meta.config), preludes: taskPreludes() });
  let runner: R | null = null;
  const close = async () => {
    runner?.dispose();
    await pool.close();
  };
  try {
    runner = await create(meta, pool);
    await runner.loadCheckpoint(bytes);
  } catch (error) {
    await close();
    throw error;
  }
  return { runner, meta, close };
}
