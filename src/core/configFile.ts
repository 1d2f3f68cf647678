/**
 * A config file (`--config FILE`), YAML or JSON, as a lab config. Two shapes are read:
 *
 * - the lab's own: its sections (`task`, `model`, `algorithm`, ...) with camelCase keys, as
 *   config.json and config.yaml in a run's output dir hold it;
 * - the Q-language RL system's flat keys (`learning_rate`, `batch_size`,
 *   `gradient_accumulation_steps`, `max_steps`, `save_steps`, `reward_scale`, `kl_coef`,
 *   `entropy_coef`, ...), mapped onto the lab's fields. Its `batch_size` is per micro-batch, so
 *   the lab's batchSize (episodes per update) is batch_size x gradient_accumulation_steps.
 *
 * - the DQN code-generation seed's sections (`environment.max_steps`, `agent.*`, `reward.type`,
 *   `training.num_episodes`): algorithm dqn with its settings; `training.num_episodes` becomes
 *   steps of batchSize programs.
 *
 * Unknown keys are an error that names them; keys that mean nothing here (mixed precision,
 * experiment tracking, a device) are accepted and reported as ignored.
 */
import { isScalar, parseDocument, stringify as stringifyYaml, visit } from 'yaml';
import { parseConfig, type LabConfig } from './config';

/**
 * A seed key and the lab field it sets (`section.key`). Maps, not plain objects: a key of the
 * file named `constructor` or `__proto__` must be an unknown key, not Object.prototype's member.
 */
const seedKeys = new Map(Object.entries({
  learning_rate: 'algorithm.learningRate',
  gradient_accumulation_steps: 'algorithm.gradientAccumulationSteps',
  kl_coef: 'algorithm.klCoef',
  entropy_coef: 'algorithm.entropyCoef',
  max_grad_norm: 'algorithm.gradClip',
  num_generations: 'algorithm.groupSize',
  beta: 'algorithm.beta',
  temperature: 'algorithm.temperature',
  reward_scale: 'functions.rewardScale',
  max_steps: 'run.maxSteps',
  save_steps: 'run.checkpointFreq',
  eval_steps: 'run.evalFreq',
  num_train_epochs: 'run.numEpochs',
  seed: 'run.seed',
  output_dir: 'run.outputDir',
  max_seq_length: 'model.context',
}));

/** The DQN seed's sectioned keys and the lab field each sets. */
const dqnSeedKeys = new Map(Object.entries({
  'environment.max_steps': 'model.maxProgramTokens',
  'agent.learning_rate': 'algorithm.learningRate',
  'agent.gamma': 'algorithm.gamma',
  'agent.epsilon_start': 'algorithm.epsilonStart',
  'agent.epsilon_end': 'algorithm.epsilonEnd',
  'agent.epsilon_decay': 'algorithm.epsilonDecay',
  'agent.buffer_capacity': 'algorithm.bufferSize',
  'agent.batch_size': 'algorithm.dqnBatchSize',
  'agent.target_update': 'algorithm.targetNetworkFrequency',
  'agent.double_dqn': 'algorithm.doubleDqn',
  'agent.dueling': 'algorithm.dueling',
  'agent.prioritized_replay': 'algorithm.prioritized',
  'reward.type': 'functions.rewardType',
}));
const dqnSections = ['environment', 'agent', 'training', 'reward'];

/** Seed keys with no meaning in the lab: accepted, reported. */
const ignoredSeedKeys = new Set(['bf16', 'fp16', 'gradient_checkpointing', 'wandb', 'wandb_project', 'experiment_name', 'report_to', 'logging_steps', 'base_model', 'verbose', 'log_frequency', 'environment.vocab_size', 'agent.device']);

const sections = ['task', 'model', 'algorithm', 'sandbox', 'run', 'digits', 'functions'];

export interface ConfigFile {
  config: LabConfig;
  /** The fields the file set (what a run's defaults do not give), mapped onto the lab's sections. */
  input: Record<string, Record<string, unknown>>;
  /** What the reader did that the user should know (ignored keys). */
  notes: string[];
  /**
   * The file's `command` section: a command's own flags that are not config fields (train's
   * `eval-k`, `preferences`, `threads`, ...), by flag name, as a run's config.yaml keeps them.
   * The command that reads the file applies those it knows (cli/args.ts).
   */
  flags: Record<string, string | boolean>;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** A value as a message shows it: `Infinity` and `NaN` as themselves (JSON would say null). */
const shown = (value: unknown): string => (typeof value === 'number' ? String(value) : JSON.stringify(value) ?? String(value));

/**
 * The file's text as plain data, refusing a key given twice in one mapping. yaml's own check
 * compares every key with every other (40,000 keys took 17 s), so it is off and this one, with a
 * set per mapping, takes its place.
 */
function parseText(text: string): unknown {
  const document = parseDocument(text, { uniqueKeys: false });
  if (document.errors.length) throw new Error(`not YAML or JSON: ${document.errors[0].message.split('\n')[0]}`);
  visit(document, {
    Map(_, map) {
      const seen = new Set<unknown>();
      for (const pair of map.items) {
        if (!isScalar(pair.key)) continue;
        if (seen.has(pair.key.value)) throw new Error(`the key ${String(pair.key.value)} is given twice in one mapping`);
        seen.add(pair.key.value);
      }
    },
  });
  return document.toJS();
}

/** Reads a config file's text; throws a message naming the bad or unknown keys. */
export function parseConfigFile(text: string): ConfigFile {
  const input = parseText(text);
  if (!isObject(input)) throw new Error(`expected a mapping of keys to values, got ${input === null ? 'an empty file' : Array.isArray(input) ? 'a list' : typeof input}`);
  const lab: Record<string, Record<string, unknown>> = {};
  const notes: string[] = [];
  const unknown: string[] = [];
  const flags: Record<string, string | boolean> = {};
  let numEpisodes: unknown;
  // Defined, not assigned: a key `__proto__` becomes an own key (refused as unknown by
  // parseConfig's strict check), never the prototype that would smuggle values past it.
  const set = (path: string, value: unknown) => {
    const [section, key] = path.split('.');
    if (!Object.hasOwn(lab, section)) Object.defineProperty(lab, section, { value: {}, enumerable: true, writable: true, configurable: true });
    Object.defineProperty(lab[section], key, { value, enumerable: true, writable: true, configurable: true });
  };
  for (const [key, value] of Object.entries(input)) {
    if (key === 'command') {
      if (!isObject(value)) throw new Error(`"command" must be a mapping of flag names to values, got ${Array.isArray(value) ? 'a list' : typeof value}`);
      for (const [flag, flagValue] of Object.entries(value)) {
        if (!/^[a-z][a-z0-9-]*$/.test(flag)) throw new Error(`command.${flag}: not a flag name (lower case words joined by -, as on the command line)`);
        if (typeof flagValue !== 'string' && typeof flagValue !== 'boolean' && !(typeof flagValue === 'number' && Number.isFinite(flagValue))) {
          throw new Error(`command.${flag} must be a string, a number or true/false, got ${shown(flagValue)}`);
        }
        Object.defineProperty(flags, flag, { value: typeof flagValue === 'number' ? String(flagValue) : flagValue, enumerable: true, writable: true, configurable: true });
      }
    } else if (sections.includes(key)) {
      if (!isObject(value)) throw new Error(`"${key}" must be a mapping of its fields, got ${Array.isArray(value) ? 'a list' : typeof value}`);
      for (const [field, fieldValue] of Object.entries(value)) set(`${key}.${field}`, fieldValue);
    } else if (dqnSections.includes(key)) {
      if (!isObject(value)) throw new Error(`"${key}" must be a mapping of its keys, got ${Array.isArray(value) ? 'a list' : typeof value}`);
      set('algorithm.name', 'dqn');
      for (const [inner, innerValue] of Object.entries(value)) {
        const path = `${key}.${inner}`;
        if (dqnSeedKeys.has(path)) set(dqnSeedKeys.get(path)!, innerValue);
        else if (path === 'training.num_episodes') numEpisodes = innerValue;
        else if (ignoredSeedKeys.has(path)) notes.push(`${path}: not used by the lab (ignored)`);
        else unknown.push(path);
      }
    } else if (seedKeys.has(key)) {
      set(seedKeys.get(key)!, value);
    } else if (key === 'batch_size') {
      continue; // with gradient_accumulation_steps, below
    } else if (ignoredSeedKeys.has(key)) {
      notes.push(`${key}: not used by the lab (ignored)`);
    } else {
      unknown.push(key);
    }
  }
  if (unknown.length) throw new Error(`unknown key${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')} (the lab's sections: ${sections.join(', ')}, and command for a command's own flags; or the seed's keys: batch_size, ${[...seedKeys.keys()].join(', ')}; or the DQN seed's: ${[...dqnSeedKeys.keys(), 'training.num_episodes'].join(', ')})`);
  if (Object.hasOwn(input, 'batch_size')) {
    // Whole numbers first: 2.5 x 2 would be a valid batch of 5 that nobody asked for.
    const wholeKey = (key: string, value: unknown) => {
      if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) throw new Error(`${key} must be a whole number of at least 1, got ${shown(value)}`);
      return value;
    };
    const perDevice = wholeKey('batch_size', input.batch_size);
    const steps = Object.hasOwn(input, 'gradient_accumulation_steps') ? wholeKey('gradient_accumulation_steps', input.gradient_accumulation_steps) : 1;
    set('algorithm.batchSize', perDevice * steps);
  }
  let config = parseConfig(lab, { strict: true });
  if (numEpisodes !== undefined) {
    if (typeof numEpisodes !== 'number' || !Number.isInteger(numEpisodes) || numEpisodes < 1) throw new Error(`training.num_episodes must be a positive whole number, got ${shown(numEpisodes)}`);
    // One episode is one program; a step samples batchSize of them. The steps are validated as
    // any field is: a value past the schema would train, then fail to load from its checkpoints.
    const maxSteps = Math.ceil(numEpisodes / config.algorithm.batchSize);
    set('run.maxSteps', maxSteps);
    try {
      config = parseConfig(lab, { strict: true });
    } catch (error) {
      throw new Error(`training.num_episodes ${shown(numEpisodes)} makes run.maxSteps ${maxSteps}: ${(error as Error).message}`);
    }
    notes.push(`training.num_episodes ${numEpisodes}: ${config.run.maxSteps} steps of ${config.algorithm.batchSize} programs`);
  }
  return { config, input: lab, notes, flags };
}

/**
 * A config as the YAML a run's output dir holds (config.yaml): the lab's own shape, read back by
 * parseConfigFile, and under `command` the run's own flags that are not config fields, so that
 * `--config runs/NAME/config.yaml` repeats the whole run.
 */
export function configToYaml(config: LabConfig, flags: Record<string, string | boolean> = {}): string {
  return stringifyYaml(Object.keys(flags).length ? { ...config, command: flags } : config);
}
