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

  it('keeps a run\'s own flags under command, and reads them back as flags, not config fields', () => {
    const config = defaultConfig();
    const file = parseConfigFile(configToYaml(config, { 'eval-k': '8', preferences: 'pairs.jsonl', 'reward-model-alone': true, threads: '2' }));
    expect(file.config).toEqual(config);
    expect(file.flags).toEqual({ 'eval-k': '8', preferences: 'pairs.jsonl', 'reward-model-alone': true, threads: '2' });
    expect(parseConfigFile('command:\n  eval-k: 4').flags).toEqual({ 'eval-k': '4' });
    expect(parseConfigFile(configToYaml(config)).flags).toEqual({});
    expect(() => parseConfigFile('command: [1]')).toThrow(/"command" must be a mapping/);
    expect(() => parseConfigFile('command:\n  evalK: 4')).toThrow(/command.evalK: not a flag name/);
    expect(() => parseConfigFile('command:\n  eval-k: [4]')).toThrow(/command.eval-k must be a string, a number or true\/false/);
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

describe('config files that map past the schema or hide keys (issue 29)', () => {
  it('training.num_episodes is validated after it becomes run.maxSteps, and the message names it', () => {
    expect(() => parseConfigFile('training:\n  num_episodes: 400000000')).toThrow(/training.num_episodes 400000000 makes run.maxSteps 12500000: .*10000000/);
    expect(() => parseConfigFile('training:\n  num_episodes: 1e300')).toThrow(/training.num_episodes 1e\+300 makes run.maxSteps/);
    expect(() => parseConfigFile('training:\n  num_episodes: .inf')).toThrow('training.num_episodes must be a positive whole number, got Infinity');
    expect(parseConfigFile('training:\n  num_episodes: 320000000').config.run.maxSteps).toBe(10_000_000);
  });

  it('a __proto__ key is an unknown key, never the prototype of a section', () => {
    expect(() => parseConfigFile('task:\n  __proto__:\n    name: functions\n    bogusKey: 1')).toThrow(/unknown key task.__proto__/);
    expect(() => parseConfigFile('{"task": {"__proto__": {"name": "functions"}}}')).toThrow(/unknown key task.__proto__/);
    expect(() => parseConfigFile('__proto__:\n  name: functions')).toThrow(/unknown key __proto__/);
  });

  it('flat keys named like Object.prototype members are unknown keys, not a crash', () => {
    for (const key of ['constructor', 'toString', '__proto__', 'hasOwnProperty']) {
      expect(() => parseConfigFile(`${key}: 1`)).toThrow(new RegExp(`unknown key ${key}`));
    }
    expect(() => parseConfigFile('agent:\n  constructor: 1')).toThrow(/unknown key agent.constructor/);
  });

  it('batch_size and gradient_accumulation_steps must be whole numbers before they are multiplied', () => {
    expect(() => parseConfigFile('batch_size: 2.5\ngradient_accumulation_steps: 2')).toThrow('batch_size must be a whole number of at least 1, got 2.5');
    expect(() => parseConfigFile('batch_size: 2\ngradient_accumulation_steps: 1.5')).toThrow('gradient_accumulation_steps must be a whole number of at least 1, got 1.5');
    expect(() => parseConfigFile('batch_size: 600\ngradient_accumulation_steps: 2')).toThrow(/algorithm.batchSize/);
    expect(parseConfigFile('batch_size: 3\ngradient_accumulation_steps: 2').config.algorithm.batchSize).toBe(6);
  });

  it('a key given twice is refused, and the check stays linear: 40,000 keys parse in well under a second', () => {
    expect(() => parseConfigFile('learning_rate: 0.1\nlearning_rate: 0.2')).toThrow(/learning_rate.*twice/);
    expect(() => parseConfigFile('algorithm:\n  beta: 0.1\n  beta: 0.2')).toThrow(/beta.*twice/);
    const many = Array.from({ length: 40_000 }, (_, i) => `k${i}: ${i}`).join('\n');
    const started = performance.now();
    expect(() => parseConfigFile(many)).toThrow(/unknown keys k0, k1/);
    expect(performance.now() - started).toBeLessThan(3_000);
  });
});
