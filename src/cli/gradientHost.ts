/**
 * Gradient shards over Node worker_threads: how the CLI's warm start uses more than one core
 * (tfjs-wasm in Node is single-threaded). Each shard is a worker with its own tfjs engine; a
 * worker that dies fails the step with its reason rather than hanging it.
 */
import { Worker } from 'node:worker_threads';
import type { GradientShard, ShardGradients } from '../core/algorithms/supervised';
import { OpenGrammar, type Grammar } from '../core/grammar';
import { FunctionGrammar } from '../core/functions/grammar';
import { KolmogorovGrammar } from '../core/kolmogorov/grammar';
import type { PolicyConfig } from '../core/model/transformer';

const bootstrap = new URL('./tsWorker.mjs', import.meta.url);
const entry = new URL('./gradient.worker.ts', import.meta.url).href;

export interface NodeGradientShards {
  shards: GradientShard[];
  close(): Promise<void>;
}

/**
 * The grammar a shard checks the pairs' tokens against: the Kolmogorov task's, the functions
 * task's with its token budget (the masks depend on it), or none (benchmarks).
 */
export type ShardGrammar = 'kolmogorov' | 'open' | { functions: number };

export function shardGrammar(name: ShardGrammar, vocabSize: number): Grammar<unknown> {
  if (typeof name === 'object') return new FunctionGrammar(name.functions) as Grammar<unknown>;
  return name === 'open' ? new OpenGrammar(vocabSize) : new KolmogorovGrammar();
}

export async function createNodeGradientShards(count: number, policyConfig: PolicyConfig, backend: 'wasm' | 'cpu', grammar: ShardGrammar = 'kolmogorov'): Promise<NodeGradientShards> {
  const workers: Worker[] = [];
  const shards = await Promise.all(
    Array.from({ length: count }, async (): Promise<GradientShard> => {
      const worker = new Worker(bootstrap, { workerData: { entry, policyConfig, backend, grammar } });
      workers.push(worker);
      const pending = new Map<number, { resolve: (r: ShardGradients) => void; reject: (e: Error) => void }>();
      let nextId = 0;
      let failure: Error | null = null;
      const fail = (error: Error) => {
        failure ??= error;
        for (const { reject } of pending.values()) reject(failure);
        pending.clear();
      };
      await new Promise<void>((resolve, reject) => {
        worker.on('message', (message: { ready?: boolean; id?: number; error?: string } & Partial<ShardGradients>) => {
          if (message.ready) return resolve();
          const request = pending.get(message.id!);
          if (!request) return;
          pending.delete(message.id!);
          if (message.error) request.reject(new Error(`gradient worker: ${message.error}`));
          else request.resolve(message as ShardGradients);
        });
        worker.on('error', (error) => {
          fail(new Error(`gradient worker failed: ${error.message}`));
          reject(error);
        });
        worker.on('exit', (code) => fail(new Error(`gradient worker exited with code ${code}`)));
      });
      return {
        compute: (weights, pairs) =>
          new Promise<ShardGradients>((resolve, reject) => {
            if (failure) return reject(failure);
            const id = nextId++;
            pending.set(id, { resolve, reject });
            worker.postMessage({ id, weights, pairs });
          }),
      };
    }),
  );
  return {
    shards,
    close: async () => {
      await Promise.all(workers.map((worker) => worker.terminate()));
    },
  };
}
