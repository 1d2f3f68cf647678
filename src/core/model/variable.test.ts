/**
 * Nothing a run makes outlives it: every algorithm's policy, optimizer, target network and value
 * heads, and the reward model, made and disposed, leave tfjs's tensor count where it was. A
 * variable made inline from a tensor (`tf.variable(tf.zeros(...))`) failed this: the tensor it
 * was made from leaked, two per weight for each Adam (the leak soak found it).
 */
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-cpu';
import { beforeAll, describe, expect, it } from 'vitest';
import { defaultConfig, type LabConfig } from '../config';
import { functionsTask } from '../functions/task';
import { createAlgorithm } from '../loop';
import { RewardModel } from '../algorithms/rewardModel';
import { TransformerPolicy } from './transformer';
import { variableFrom } from './variable';

beforeAll(async () => {
  await tf.setBackend('cpu');
});

function tiny(algorithm: LabConfig['algorithm']['name']): LabConfig {
  const config = defaultConfig();
  config.task.name = 'functions';
  config.model = { ...config.model, layers: 1, dModel: 16, heads: 2, context: 160, maxProgramTokens: 24 };
  config.algorithm = { ...config.algorithm, name: algorithm, batchSize: 8, groupSize: 4, dueling: true };
  return config;
}

describe('no tensor outlives its run', () => {
  it('variableFrom keeps one tensor, the variable', () => {
    const before = tf.memory().numTensors;
    const variable = variableFrom(tf.zeros([3, 2]), false);
    expect(tf.memory().numTensors).toBe(before + 1);
    variable.dispose();
    expect(tf.memory().numTensors).toBe(before);
  });

  for (const name of ['reinforce', 'grpo', 'rloo', 'dpo', 'dqn'] as const) {
    it(`${name}: a policy, its reference and its algorithm, made and disposed, leave the tensor count as it was`, () => {
      const config = tiny(name);
      const task = functionsTask(config);
      const before = tf.memory().numTensors;
      const policy = new TransformerPolicy(task.policyConfig(config), 1);
      const reference = new TransformerPolicy(task.policyConfig(config), 1);
      const algorithm = createAlgorithm(config, policy, task.grammar, reference);
      expect(tf.memory().numTensors).toBeGreaterThan(before);
      algorithm.dispose();
      reference.dispose();
      policy.dispose();
      expect(tf.memory().numTensors).toBe(before);
    });
  }

  it('a reward model, made and disposed, leaves the tensor count as it was', () => {
    const config = tiny('reinforce');
    const before = tf.memory().numTensors;
    const model = new RewardModel(functionsTask(config).policyConfig(config), 1);
    model.dispose();
    expect(tf.memory().numTensors).toBe(before);
  });
});
