/**
 * The body of a gradient shard's worker (gradientShards.ts has the trainer's side): a policy copy
 * that computes the summed loss of the pairs it is sent, with the weights it is sent, and the
 * gradients. Used by the CLI's worker_threads (src/cli/gradient.worker.ts) and the page's Web
 * Workers (src/worker/gradient.worker.ts) alike.
 */
import * as tf from '@tensorflow/tfjs-core';
import { summedReinforceGradients } from './algorithms/reinforce';
import { summedGradients } from './algorithms/supervised';
import { grammarOf } from './generators';
import { OpenGrammar, type Grammar, type GrammarSpec } from './grammar';
import type { FromShard, ShardLoss, SummedGradients, ToShard } from './gradientShards';
import { unpackWeights } from './model/packedWeights';
import type { SequencePair } from './model/training';
import { TransformerPolicy } from './model/transformer';

/** The grammar a spec names: a task's, or `{ task: 'open' }`, every token allowed (benchmarks on random tokens). */
export function shardGrammar(spec: GrammarSpec, vocabSize: number): Grammar<unknown> {
  return spec.task === 'open' ? (new OpenGrammar(vocabSize) as Grammar<unknown>) : grammarOf(spec);
}

/** The summed loss of `pairs` and its gradients with the policy's weights as they are. */
export function shardLossGradients(policy: TransformerPolicy, grammar: Grammar<unknown>, pairs: readonly SequencePair[], loss: ShardLoss = { kind: 'crossEntropy' }, reference?: TransformerPolicy): SummedGradients {
  return loss.kind === 'reinforce' ? summedReinforceGradients(policy, grammar, pairs, loss, reference) : summedGradients(policy, grammar, pairs);
}

export interface ShardPort {
  postMessage(message: FromShard, transfer: ArrayBuffer[]): void;
  onMessage(listener: (message: ToShard) => void): void;
}

/** The body of a shard worker, once its tfjs backend is up: one message at a time, in order. */
export function serveGradients(port: ShardPort): void {
  let model: { policy: TransformerPolicy; grammar: Grammar<unknown>; reference?: TransformerPolicy } | null = null;
  port.onMessage((message) => {
    try {
      if (message.type === 'init') {
        model?.policy.dispose();
        model?.reference?.dispose();
        model = { policy: new TransformerPolicy(message.policy, 0), grammar: shardGrammar(message.grammar, message.policy.vocabSize) };
        port.postMessage({ type: 'ready' }, []);
        return;
      }
      if (!model) throw new Error('compute before init');
      model.policy.setWeights(unpackWeights(message.weights));
      if (message.reference) {
        model.reference ??= new TransformerPolicy(model.policy.config, 0);
        model.reference.setWeights(unpackWeights(message.reference));
      }
      const result = shardLossGradients(model.policy, model.grammar, message.pairs, message.loss, message.reference ? model.reference : undefined);
      const sizes = result.grads.map((grad) => grad.size);
      const packed = new Float32Array(sizes.reduce((a, b) => a + b, 0));
      try {
        let offset = 0;
        for (const grad of result.grads) {
          packed.set(grad.dataSync() as Float32Array, offset);
          offset += grad.size;
        }
      } finally {
        tf.dispose(result.grads);
      }
      port.postMessage({ type: 'gradients', id: message.id, sums: result.sums, tokens: result.tokens, buffer: packed.buffer, sizes }, [packed.buffer]);
    } catch (error) {
      port.postMessage({ type: 'error', id: message.type === 'compute' ? message.id : undefined, message: error instanceof Error ? error.message : String(error) }, []);
    }
  });
}

