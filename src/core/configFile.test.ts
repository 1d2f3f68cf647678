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

  it('names unknown keys, bad values and files that are not a mapping', () => {
    expect(() => parseConfigFile('learning_rate: 0.001\nlearnin_rate: 2\nfoo: 1')).toThrow(/unknown keys learnin_rate, foo/);
    expect(() => parseConfigFile('algorithm:\n  learningrate: 0.1')).toThrow(/unknown key algorithm.learningrate \(did you mean learningRate\?\)/);
    expect(() => parseConfigFile('learning_rate: fast')).toThrow(/algorithm.learningRate/);
    expect(() => parseConfigFile('- 1\n- 2')).toThrow(/got a list/);
    expect(() => parseConfigFile('')).toThrow(/got an empty file/);
    expect(() => parseConfigFile('a: [1,')).toThrow(/not YAML or JSON/);
  });
});
