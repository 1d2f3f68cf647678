import { describe, expect, it } from 'vitest';
import { configFields, configFromSearchParams, configProblem, configToSearchParams, defaultConfig, explicitInput, fieldApplies, parseConfig, withField, withVariant } from './config';

describe('config', () => {
  it('documents every field with a default', () => {
    for (const field of configFields()) {
      expect(field.doc.length, field.key).toBeGreaterThan(5);
      expect(field.defaultValue, field.key).not.toBeUndefined();
    }
  });

  it('round-trips through the URL form, keeping only non-defaults', () => {
    const config = configFromSearchParams('learning-rate=0.01&layers=3&task=sum_digits');
    expect(config.algorithm.learningRate).toBe(0.01);
    expect(config.model.layers).toBe(3);
    expect(config.task.name).toBe('sum_digits');
    expect(configFromSearchParams(configToSearchParams(config))).toEqual(config);
    expect(configToSearchParams(defaultConfig())).toBe('');
  });

  it('rejects bad values with the field named', () => {
    expect(() => configFromSearchParams('layers=1.5')).toThrow(/--layers/);
    expect(() => configFromSearchParams('learning-rate=abc')).toThrow(/--learning-rate: expected a number/);
    expect(() => configFromSearchParams('nope=1')).toThrow(/unknown config parameter "nope"/);
    expect(() => parseConfig({ model: { heads: 'four' } })).toThrow(/model\.heads/);
  });

  it('a flag is blamed only for its own field: an invalid field set before it is named by its path (issue 29)', () => {
    const broken = { ...defaultConfig(), run: { ...defaultConfig().run, maxSteps: 1e300 } };
    const seed = configFields().find((field) => field.flag === 'seed')!;
    expect(() => withField(broken, seed, '3')).toThrow(/^run\.maxSteps: /);
    expect(() => withField(defaultConfig(), seed, '-1')).toThrow(/^--seed: /);
  });

  it('a config file with an unknown key is refused with the key named, and a likely meant one', () => {
    expect(() => parseConfig({ algorithm: { learningrate: 0.5 } }, { strict: true })).toThrow('unknown key algorithm.learningrate (did you mean learningRate?)');
    expect(() => parseConfig({ modle: {}, run: { seed: 2, outputdir: 'x' } }, { strict: true })).toThrow('unknown keys modle, run.outputdir (did you mean outputDir?)');
    expect(parseConfig({ algorithm: { learningRate: 0.5 } }, { strict: true }).algorithm.learningRate).toBe(0.5);
    // A checkpoint's header (not strict) still reads with keys a later version dropped.
    expect(parseConfig({ algorithm: { gone: 1 } }).algorithm.learningRate).toBe(defaultConfig().algorithm.learningRate);
  });

  it('the page leaves CLI-only fields out of its link, and shows each task only the fields that apply to it', () => {
    const config = configFromSearchParams('output-dir=runs/rpieces/rl&data-path=mine.jsonl&learning-rate=0.001');
    expect(configToSearchParams(config)).toContain('output-dir=');
    expect(configToSearchParams(config, { page: true })).toBe('learning-rate=0.001');
    const shown = (task: string) => configFields().filter((f) => !f.cliOnly && fieldApplies(f, configFromSearchParams(`task=${task}`))).map((f) => `${f.section}.${f.key}`);
    expect(shown('kolmogorov')).toContain('task.maxTrainLength');
    expect(shown('kolmogorov').some((key) => key.startsWith('digits.') || key.startsWith('functions.'))).toBe(false);
    expect(shown('sum_digits')).toContain('digits.numGenerators');
    expect(shown('sum_digits')).not.toContain('algorithm.lengthPenalty');
    expect(shown('functions')).toContain('functions.rewardType');
    expect(shown('functions')).not.toContain('run.outputDir');
    expect(shown('functions')).toContain('algorithm.klCoef');
    expect(shown('functions&algorithm=reinforce_monarch')).not.toContain('algorithm.klCoef');
  });

  it('fields that must agree are checked together: heads must divide d_model, with the heads that would', () => {
    expect(configProblem(defaultConfig())).toBeNull();
    expect(configProblem(configFromSearchParams('d-model=64&heads=5'))).toBe('model.dModel (64) must be divisible by model.heads (5): try heads 1, 2, 4, 8, 16');
    expect(configProblem(configFromSearchParams('algorithm=grpo&repair-demos=4'))).toBe('algorithm.repairDemos (4) works with algorithm reinforce only, not grpo: set it to 0');
    // Inputs that extend another: said before a run is made (the page's form), not as the policy's constructor throws.
    expect(configProblem(configFromSearchParams('run-lengths=false'))).toMatch(/^model.strideTwo adds a second stride to the run lengths: it needs model.runLengths/);
    expect(configProblem(configFromSearchParams('previous-token=false'))).toMatch(/^model.secondPrevious embeds the token two back beside the previous one: it needs model.previousToken/);
    expect(configProblem(configFromSearchParams('run-lengths=false&stride-two=false&previous-token=false&second-previous=false'))).toBeNull();
    expect(configProblem(configFromSearchParams('copy-pointer=false&copy-resume=true'))).toMatch(/^model.copyResume carries the copy pointer across statements: it needs model.copyPointer/);
    expect(configProblem(configFromSearchParams('copy-resume=true'))).toBeNull();
    // The functions task's prompt is no list of numbers: it builds no pointer, as the digit tasks build none of the number inputs.
    expect(configProblem(configFromSearchParams('task=functions&copy-pointer=true'))).toBeNull();
  });

  it('an algorithm that joins programs of different steps in one update needs the longest prompt and program to fit the context together', () => {
    // 130 prompt tokens (128 values) + 96 program tokens - 1 = 225: sampling fits each batch alone, a replayed batch would not.
    for (const algorithm of ['dqn', 'expert_iteration', 'dpo']) {
      expect(configProblem(configFromSearchParams(`algorithm=${algorithm}&context=160`))).toBe(
        `model.context (160) is too short for ${algorithm}, whose updates join programs of different steps: the longest prompt (130 tokens: task.maxSequenceLength 128 + 2) and the longest program (model.maxProgramTokens 96) need 225. Use a context of 225 or more, or shorter sequences or programs`,
      );
      expect(configProblem(configFromSearchParams(`algorithm=${algorithm}&context=160&max-sequence-length=32`))).toBeNull();
    }
    expect(configProblem(configFromSearchParams('algorithm=reinforce&context=160'))).toBeNull(); // each update's batch is one sampling batch
  });

  it('every algorithm needs room for a program after the longest prompt: refused before the run, not at its first long item', () => {
    for (const algorithm of ['reinforce', 'grpo', 'dqn']) {
      expect(configProblem(configFromSearchParams(`algorithm=${algorithm}&context=48`))).toBe('model.context (48) leaves no room for a program after the longest prompt (130 tokens: task.maxSequenceLength 128 + 2): use a context above 130, or shorter sequences');
    }
    expect(configProblem(configFromSearchParams('context=48&max-sequence-length=32'))).toBeNull();
    // A checkpoint or saved run made before this check still opens (for data its context fits): only what is entered is refused.
    expect(configProblem(configFromSearchParams('context=48'), { opened: true })).toBeNull();
  });

  it('each task and algorithm brings its own defaults for the fields not set, and keeps those set on purpose', () => {
    // DPO's beta of 0.1 (TRL's) arrives with the algorithm, wherever it is picked.
    expect(configFromSearchParams('algorithm=dpo').algorithm.beta).toBe(0.1);
    expect(configFromSearchParams('algorithm=dpo&beta=0.3').algorithm.beta).toBe(0.3);
    expect(withField(defaultConfig(), configFields().find((f) => f.flag === 'algorithm')!, 'dpo').algorithm.beta).toBe(0.1);
    expect(configProblem(configFromSearchParams('algorithm=dpo'))).toBeNull();
    // A digit run gets the digit recipe's small policy; a learning rate set on purpose stays, even the Kolmogorov default's value.
    const digits = configFromSearchParams('task=sum_digits&learning-rate=0.0003');
    expect(digits.algorithm.learningRate).toBe(3e-4);
    expect(digits.algorithm.name).toBe('reinforce_monarch');
    expect(digits.model.dModel).toBe(64);
    expect(configFromSearchParams('task=sum_digits').algorithm.learningRate).toBe(1e-4);
    // Switching carries what was set and drops the old variant's defaults.
    const kolmogorov = configFromSearchParams('learning-rate=0.002&batch-size=16');
    const moved = withVariant(kolmogorov, { task: 'reverse_digits' });
    expect([moved.algorithm.learningRate, moved.algorithm.batchSize, moved.algorithm.name, moved.model.context]).toEqual([0.002, 16, 'reinforce_monarch', 40]);
    expect(explicitInput(moved)).toEqual({ task: { name: 'reverse_digits' }, algorithm: { name: 'reinforce_monarch', learningRate: 0.002, batchSize: 16 } });
    // The form opens on the shipped policy's shape (public/pretrained.prl: d_model 64, value deltas).
    expect(defaultConfig().model).toMatchObject({ dModel: 64, valueDeltas: true });
  });

  it('an unknown task or algorithm is refused with the known ones listed', () => {
    expect(() => configFromSearchParams('algorithm=ppo')).toThrow(/--algorithm: .*"ppo" is no algorithm \(known: reinforce, reinforce_monarch, grpo, rloo, dpo, dqn/);
    expect(() => parseConfig({ task: { name: 'chess' } })).toThrow(/task.name: "chess" is no task/);
  });
});
