import { describe, expect, it } from 'vitest';
import { defaultConfig } from './config';
import { configToYaml, parseConfigFile } from './configFile';

describe('config files', () => {
  it('reads the Q-language system\'s keys from YAML: the lab\'s batch is batch_size x gradient_accumulation_steps', () => {
    const { config, notes } = parseConfigFile(['learning_rate: 2.0e-6', 'batch_size: 1', 'gradient_accumulation_steps: 8', 'max_steps: 1000', 'save_steps: 50', 'reward_scale: 1.5', 'kl_coef: 0.1', 'entropy_coef: 0.01', 'bf16: true'].join('\n'));
    expect(config.algorithm).toMatchObject({ learningRate: 2e-6, batchSize: 8, gradientAccumulationSteps: 8, klCoef: 0.1, entropyCoef: 0.01 });
    expect(config.run).toMatchObject({ maxSteps: 1000, checkpointFreq: 50 });
    expect(config.functions.rewardScale).toBe(1.5);
    expect(notes).toEqual(['bf16: not used by the lab (ignored)']);
  });

  it('reads the lab\'s own shape, YAML or JSON, and config.yaml reads back as it was written', () => {
    const config = { ...defaultConfig(), algorithm: { ...defaultConfig().algorithm, name: 'grpo' as const, beta: 0.04 } };
    expect(parseConfigFile(configToYaml(config)).config).toEqual(config);
    expect(parseConfigFile(JSON.stringify(config)).config).toEqual(config);
    expect(parseConfigFile('model:\n  dModel: 32\nlearning_rate: 0.001').config).toMatchObject({ model: { dModel: 32 }, algorithm: { learningRate: 0.001 } });
  });

  it('reads the DQN seed\'s train_config.yaml: algorithm dqn, its agent\'s settings, episodes as steps', () => {
    const yaml = ['environment:', '  max_steps: 50', '  vocab_size: 5000', 'agent:', '  learning_rate: 0.0001', '  gamma: 0.99', '  epsilon_start: 1.0', '  epsilon_end: 0.01', '  epsilon_decay: 0.995', '  buffer_capacity: 50000', '  batch_size: 64', '  device: cpu', 'training:', '  num_episodes: 1000', 'reward:', '  type: code_quality'].join('\n');
    const { config, notes } = parseConfigFile(yaml);
    expect(config.algorithm).toMatchObject({ name: 'dqn', learningRate: 1e-4, gamma: 0.99, epsilonStart: 1, epsilonEnd: 0.01, epsilonDecay: 0.995, bufferSize: 50000, dqnBatchSize: 64 });
    expect(config.model.maxProgramTokens).toBe(50);
    expect(config.functions.rewardType).toBe('code_quality');
    expect(config.run.maxSteps).toBe(Math.ceil(1000 / config.algorithm.batchSize));
    expect(notes).toEqual(expect.arrayContaining(['environment.vocab_size: not used by the lab (ignored)', 'agent.device: not used by the lab (ignored)']));
    expect(() => parseConfigFile('agent:\n  learning_rat: 0.1\n  hidden: 3')).toThrow(/unknown keys agent.learning_rat, agent.hidden/);
  });

  it('names unknown keys, bad values and files that are not a mapping', () => {
    expect(() => parseConfigFile('learning_rate: 0.001\nlearnin_rate: 2\nfoo: 1')).toThrow(/unknown keys learnin_rate, foo/);
    expect(() => parseConfigFile('algorithm:\n  learningrate: 0.1')).toThrow(/unknown key algorithm.learningrate \(did you mean learningRate\?\)/);
    expect(() => parseConfigFile('learning_rate: fast')).toThrow(/algorithm.learningRate/);
    expect(() => parseConfigFile('- 1\n- 2')).toThrow(/got a list/);
    expect(() => parseConfigFile('')).toThrow(/got an empty file/);
    expect(() => parseConfigFile('a: [1,')).toThrow(/not YAML or JSON/);
  });
});
