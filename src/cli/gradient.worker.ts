/**
 * Node worker_threads entry of a gradient shard (data-parallel warm start): its own tfjs-wasm
 * engine and a policy copy; each request brings the current weights and part of a batch and
 * gets the summed loss terms and gradients back, the gradient buffers transferred.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { summedGradients } from '../core/algorithms/supervised';
import type { SequencePair } from '../core/model/training';
import { TransformerPolicy, type PolicyConfig, type WeightArray } from '../core/model/transformer';
import { shardGrammar, type ShardGrammar } from './gradientHost';
import { initTensorflow } from './tfBackend';

export interface GradientRequest {
  id: number;
  weights: WeightArray[];
  pairs: SequencePair[];
}

if (!parentPort) throw new Error('gradient.worker.ts must run in a worker thread');
const port = parentPort;
const { policyConfig, backend, grammar: grammarName } = workerData as { policyConfig: PolicyConfig; backend: 'wasm' | 'cpu'; grammar: ShardGrammar };
await initTensorflow(backend);
const policy = new TransformerPolicy(policyConfig, 0);
const grammar = shardGrammar(grammarName, policyConfig.vocabSize);

port.on('message', (request: GradientRequest) => {
  try {
    policy.setWeights(request.weights);
    const result = summedGradients(policy, grammar, request.pairs);
    const grads = result.grads.map((grad) => grad.dataSync() as Float32Array);
    result.grads.forEach((grad) => grad.dispose());
    port.postMessage({ id: request.id, lossSum: result.lossSum, correctSum: result.correctSum, tokens: result.tokens, grads }, grads.map((g) => g.buffer as ArrayBuffer));
  } catch (error) {
    port.postMessage({ id: request.id, error: (error as Error).message });
  }
});
port.postMessage({ ready: true });
