import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { KolmogorovGrammar, encodePrompt, programToTokens, vocabSize } from './src/core/kolmogorov/grammar';
import { generateDataset } from './src/core/kolmogorov/generator';
import { parseProgram } from './src/core/kolmogorov/program';
import { TransformerPolicy } from './src/core/model/transformer';
import { SupervisedTrainer } from './src/core/algorithms/supervised';
for (const backend of ['wasm', 'cpu']) {
  await tf.setBackend(backend);
  const pairs = generateDataset(1, 64, { maxBase: 1, maxLength: 8, listUpdateProbability: 0, mathProbability: 0 }).map((e) => ({ prompt: encodePrompt(e.sequence, 16), tokens: programToTokens(parseProgram(e.program)) }));
  const policy = new TransformerPolicy({ vocabSize, layers: 1, dModel: 32, heads: 2, context: 48 }, 1);
  const trainer = new SupervisedTrainer(policy, new KolmogorovGrammar(), { learningRate: 3e-3, gradClip: 1 });
  let t = performance.now();
  for (let i = 0; i < 5; i++) { const s = await trainer.step(pairs.slice(i * 8, i * 8 + 16)); if (i === 4) console.log(s); }
  console.log(backend, 'step ms', (performance.now() - t) / 5);
  t = performance.now();
  const x = tf.tensor2d([[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20]], [1,20], 'int32');
  for (let i = 0; i < 5; i++) policy.forward(x).dispose();
  console.log(backend, 'fwd ms', (performance.now() - t) / 5);
}
