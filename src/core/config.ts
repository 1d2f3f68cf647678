/**
 * The one typed config object of a run (docs/architecture.md): every field
 * has a default and a one-line doc; the CLI flags, the page's form, the URL hash and the
 * checkpoint header all derive from it, so a run is reproducible from its config and seed.
 *
 * The schema is assembled in registry.ts from the shared sections (configSections.ts) and each
 * task's and algorithm's own fields. Defaults depend on the run's task and algorithm: each
 * definition may give its own value for a shared field (the digit tasks' small policy, DPO's
 * beta of 0.1), which a run of it gets unless the field was set. So a config is resolved from
 * what was set (`resolveConfig`), and what was set is what differs from its variant's defaults
 * (`explicitInput`: the URL hash, and what carries over when the task or the algorithm changes).
 * Field names are whole words; CLI flags are their kebab-case forms (`learningRate` ->
 * `--learning-rate`).
 */
import type { z } from 'zod';
import { algorithmDefinition, configSchema, fieldOwners, sectionSchemas, taskDefinition, taskNames, algorithmNames, type LabConfig, type SectionName } from './registry';
import type { AlgorithmDefinition } from './algorithm';
import type { TaskDefinition } from './task';

export { configSchema, sectionSchemas, type LabConfig, type SectionName };
export type { ModelConfig, RunConfig, SandboxConfig } from './configSections';
export type AlgorithmConfig = LabConfig['algorithm'];
export type TaskConfig = LabConfig['task'];
export type DigitsConfig = LabConfig['digits'];
export type FunctionsConfig = LabConfig['functions'];

/** A config as given: sections of the fields that were set (any may be missing). */
export type ConfigInput = { [S in SectionName]?: Partial<LabConfig[S]> } & Record<string, unknown>;

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
/** Keys that are no field's and would reach an object's prototype if copied. */
const unsafeKeys = new Set(['__proto__', 'constructor', 'prototype']);

/** `over` laid on `under`, section by section (own keys only). */
function mergeSections(under: Record<string, unknown>, over: Record<string, unknown>): Record<string, unknown> {
  const merged: Record<string, unknown> = {};
  for (const source of [under, over]) {
    for (const section of Object.keys(source)) {
      if (unsafeKeys.has(section)) continue;
      const value = source[section];
      if (!isObject(value)) {
        merged[section] = value; // the schema says what is wrong with it
        continue;
      }
      const into = isObject(merged[section]) ? (merged[section] as Record<string, unknown>) : (merged[section] = {} as Record<string, unknown>);
      for (const key of Object.keys(value)) if (!unsafeKeys.has(key)) into[key] = value[key];
    }
  }
  return merged;
}

/** The task and algorithm a config input names (or gets by default). */
function variantOf(input: unknown): { task: string; algorithm: string } {
  const section = (name: string) => (isObject(input) && isObject(input[name]) ? (input[name] as Record<string, unknown>) : {});
  const task = section('task').name ?? 'kolmogorov';
  if (typeof task !== 'string' || !taskNames().includes(task)) throw new Error(`invalid config: task.name: ${JSON.stringify(task)} is no task (known: ${taskNames().join(', ')})`);
  const algorithm = section('algorithm').name ?? taskDefinition(task).defaultAlgorithm ?? 'reinforce';
  if (typeof algorithm !== 'string' || !algorithmNames().includes(algorithm)) throw new Error(`invalid config: algorithm.name: ${JSON.stringify(algorithm)} is no algorithm (known: ${algorithmNames().join(', ')})`);
  return { task, algorithm };
}

/** What a run of this task and algorithm gets for the fields not set: the task's values, then the algorithm's, then the task's for that algorithm. */
export function variantDefaults(task: string, algorithm: string): Record<string, Record<string, unknown>> {
  const definition = taskDefinition(task);
  const merged = mergeSections(mergeSections(definition.defaults ?? {}, algorithmDefinition(algorithm).defaults ?? {}), definition.algorithmDefaults?.[algorithm] ?? {}) as Record<string, Record<string, unknown>>;
  return mergeSections(merged, { task: { name: task }, algorithm: { name: algorithm } }) as Record<string, Record<string, unknown>>;
}

/**
 * The keys of `input` the schema does not know, as `section.key` paths, each with the known key
 * it differs from only in case or separators when there is one ("did you mean").
 */
export function unknownConfigKeys(input: unknown): string[] {
  if (!isObject(input)) return [];
  const loose = (key: string) => key.toLowerCase().replace(/[-_]/g, '');
  const guess = (key: string, known: string[]) => {
    const match = known.find((k) => loose(k) === loose(key));
    return match ? ` (did you mean ${match}?)` : '';
  };
  const unknown: string[] = [];
  const sections = Object.keys(sectionSchemas);
  for (const section of Object.keys(input)) {
    const value = input[section];
    if (!Object.hasOwn(sectionSchemas, section)) {
      unknown.push(`${section}${guess(section, sections)}`);
      continue;
    }
    if (!isObject(value)) continue; // the schema says what is wrong with it
    const known = Object.keys(sectionSchemas[section as SectionName].shape);
    for (const key of Object.keys(value)) if (!known.includes(key)) unknown.push(`${section}.${key}${guess(key, known)}`);
  }
  return unknown;
}

/**
 * Parses untrusted input (what a user set, a file, a URL hash, a checkpoint header) into a
 * config: the fields not given take their task's and algorithm's defaults. Errors are readable.
 * `strict` (a config file a person wrote) also refuses keys the schema does not know, naming
 * them, instead of dropping them (a misspelt `learningrate` would train at the default).
 */
export function parseConfig(input: unknown, { strict = false }: { strict?: boolean } = {}): LabConfig {
  if (strict) {
    const unknown = unknownConfigKeys(input);
    if (unknown.length) throw new Error(`invalid config: unknown key${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')}`);
  }
  if (input !== undefined && !isObject(input)) throw new Error(`invalid config: expected sections of fields, got ${input === null ? 'null' : Array.isArray(input) ? 'a list' : typeof input}`);
  const { task, algorithm } = variantOf(input);
  const result = configSchema.safeParse(mergeSections(variantDefaults(task, algorithm), input ?? {}));
  if (!result.success) {
    const lines = result.error.issues.map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`);
    throw new Error(`invalid config: ${lines.join('; ')}`);
  }
  return result.data;
}

/**
 * Model inputs added after configs were first stored, with what a config stored before them
 * meant (the input did not exist). A stored config (a checkpoint's header, a run's record) is
 * whole, so a field it lacks is one of these: it gets that value, not the task's default of
 * today, which may differ (the Kolmogorov task turned these inputs on on 2026-11-28, and its
 * older checkpoints would otherwise read as having weights they lack).
 */
const MODEL_FIELDS_ADDED = { secondPrevious: false, runLengths: false, strideTwo: false, copyPointer: false, copyResume: false } as const;

/** A config as stored by an earlier run: parseConfig, with model fields added since read as absent. */
export function parseStoredConfig(input: unknown): LabConfig {
  if (!isObject(input)) return parseConfig(input);
  const model = isObject(input.model) ? input.model : {};
  return parseConfig({ ...input, model: { ...MODEL_FIELDS_ADDED, ...model } });
}

/** The config a run of `task` (and `algorithm`, else the task's own) gets when nothing is set. */
export function defaultConfig(task = 'kolmogorov', algorithm?: string): LabConfig {
  return parseConfig({ task: { name: task }, ...(algorithm ? { algorithm: { name: algorithm } } : {}) });
}

/** What was set in `config`: the fields that differ from its task's and algorithm's defaults, with the two names. */
export function explicitInput(config: LabConfig): ConfigInput {
  const defaults = defaultConfig(config.task.name, config.algorithm.name);
  const input: Record<string, Record<string, unknown>> = { task: { name: config.task.name }, algorithm: { name: config.algorithm.name } };
  for (const section of Object.keys(sectionSchemas) as SectionName[]) {
    const values = config[section] as Record<string, unknown>;
    const base = defaults[section] as Record<string, unknown>;
    for (const key of Object.keys(values)) if (values[key] !== base[key]) (input[section] ??= {})[key] = values[key];
  }
  return input as ConfigInput;
}

/**
 * `config` moved to another task or algorithm: what was set carries over, and the fields not set
 * take the new variant's defaults (DPO's beta, the digit tasks' small policy).
 */
export function withVariant(config: LabConfig, change: { task?: string; algorithm?: string }): LabConfig {
  const input = explicitInput(config) as Record<string, Record<string, unknown>>;
  if (change.task !== undefined) {
    input.task.name = change.task;
    // A new task brings its own default algorithm unless one was chosen on purpose.
    if (change.algorithm === undefined && config.algorithm.name === (taskDefinition(config.task.name).defaultAlgorithm ?? 'reinforce')) delete input.algorithm.name;
  }
  if (change.algorithm !== undefined) input.algorithm.name = change.algorithm;
  return parseConfig(input);
}

/** One field of the config, as the CLI, the form and the URL see it. */
export interface ConfigField {
  section: SectionName;
  key: string;
  /** `--learning-rate` style flag name without dashes. */
  flag: string;
  kind: 'number' | 'integer' | 'boolean' | 'string' | 'enum';
  options?: readonly string[];
  defaultValue: unknown;
  doc: string;
  /** A field only the CLI reads (files and folders on disk): the page neither shows it nor puts it in its link. */
  cliOnly: boolean;
}

/** Fields about files on disk and how the CLI writes its run: meaningless in the page. */
const cliOnlyFields = new Set(['run.dataPath', 'run.evalDataPath', 'run.validationDataPath', 'run.initFrom', 'run.outputDir', 'run.checkpointFreq', 'run.keepCheckpoints', 'run.numEpochs']);

/** Whether a field means anything for this config's task and algorithm (the page shows only those). */
export function fieldApplies(field: Pick<ConfigField, 'section' | 'key'>, config: LabConfig): boolean {
  const owners = fieldOwners().get(`${field.section}.${field.key}`);
  if (!owners) return true;
  if (owners.tasks && !owners.tasks.includes(config.task.name)) return false;
  if (owners.algorithms && !owners.algorithms.includes(config.algorithm.name)) return false;
  return true;
}

/**
 * What makes a config unusable beyond each field's own range (the schema checks those): fields
 * that must agree with each other, the task's and the algorithm's own rules. Checked before a run
 * is made, so a bad Apply never costs the live run.
 */
export function configProblem(config: LabConfig, { opened = false }: { opened?: boolean } = {}): string | null {
  const { model } = config;
  if (model.dModel % model.heads !== 0) return `model.dModel (${model.dModel}) must be divisible by model.heads (${model.heads}): try heads ${[1, 2, 4, 8, 16].filter((h) => model.dModel % h === 0).join(', ')}`;
  // Inputs that extend another: refused here, so the page's form says so before Apply.
  if (model.secondPrevious && !model.previousToken) return 'model.secondPrevious embeds the token two back beside the previous one: it needs model.previousToken (or turn secondPrevious off)';
  if (model.strideTwo && !model.runLengths) return 'model.strideTwo adds a second stride to the run lengths: it needs model.runLengths (or turn strideTwo off)';
  const algorithm = algorithmDefinition(config.algorithm.name);
  if (config.algorithm.gradientAccumulationSteps > 1 && !algorithm.accumulates) return `algorithm.gradientAccumulationSteps works with algorithms whose update splits into micro-batches, not ${algorithm.name}: set it to 1`;
  const task = taskDefinition(config.task.name);
  return task.check?.(config) ?? algorithm.check?.(config) ?? contextProblem(config, algorithm, task, opened) ?? null;
}

/**
 * A run entered now needs room for a program after its longest prompt (else sampling would fail at
 * the first long item, perhaps only at the held-out report; a checkpoint or saved run made before
 * this check, `opened`, still opens, for data it fits); an algorithm that mixes batches needs the
 * longest prompt and the longest program to fit the context together (the update lays out
 * prompts, then programs).
 */
function contextProblem(config: LabConfig, algorithm: AlgorithmDefinition, task: TaskDefinition, opened: boolean): string | null {
  const prompt = task.longestPrompt?.(config);
  if (!prompt) return null;
  const { context, maxProgramTokens } = config.model;
  if (prompt.tokens >= context && !opened) return `model.context (${context}) leaves no room for a program after the longest prompt (${prompt.tokens} tokens: ${prompt.because}): use a context above ${prompt.tokens}, or shorter sequences`;
  if (!algorithm.mixesBatches) return null;
  const need = prompt.tokens + maxProgramTokens - 1;
  if (need <= context) return null;
  return `model.context (${context}) is too short for ${algorithm.name}, whose updates join programs of different steps: the longest prompt (${prompt.tokens} tokens: ${prompt.because}) and the longest program (model.maxProgramTokens ${maxProgramTokens}) need ${need}. Use a context of ${need} or more, or shorter sequences or programs`;
}

const kebab = (key: string) => key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
/** Flags whose kebab-case key would be ambiguous or differ from the seeds' spelling. */
const flagOverrides: Record<string, string> = { 'task.name': 'task', 'algorithm.name': 'algorithm' };

function unwrap(schema: z.ZodType): z.ZodType {
  let current: any = schema;
  while (current?.def && (current.def.type === 'default' || current.def.type === 'prefault' || current.def.type === 'optional')) {
    current = current.def.innerType;
  }
  return current;
}

function fieldKind(schema: z.ZodType): Pick<ConfigField, 'kind' | 'options'> {
  const inner: any = unwrap(schema);
  switch (inner.def.type) {
    case 'boolean':
      return { kind: 'boolean' };
    case 'string':
      return { kind: 'string' };
    case 'enum':
      return { kind: 'enum', options: inner.options as string[] };
    case 'number':
      return { kind: inner.format === 'safeint' || inner.isInt ? 'integer' : 'number' };
    default:
      throw new Error(`config field of unsupported type ${inner.def.type}`);
  }
}

/** Every field of the config, in declaration order, with its default for `config`'s task and algorithm (the base defaults without one). */
export function configFields(config?: LabConfig): ConfigField[] {
  const defaults = config ? defaultConfig(config.task.name, config.algorithm.name) : defaultConfig();
  const fields: ConfigField[] = [];
  for (const [section, schema] of Object.entries(sectionSchemas) as [SectionName, z.ZodObject][]) {
    for (const [key, fieldSchema] of Object.entries(schema.shape) as [string, z.ZodType][]) {
      fields.push({
        section,
        key,
        flag: flagOverrides[`${section}.${key}`] ?? kebab(key),
        // The names are any registered task's or algorithm's: a choice among those the registry has now.
        ...(key === 'name' && section === 'task' ? { kind: 'enum' as const, options: taskNames() } : key === 'name' && section === 'algorithm' ? { kind: 'enum' as const, options: algorithmNames() } : fieldKind(fieldSchema)),
        defaultValue: (defaults[section] as Record<string, unknown>)[key],
        doc: fieldSchema.description ?? '',
        cliOnly: cliOnlyFields.has(`${section}.${key}`),
      });
    }
  }
  return fields;
}

/** The flag that sets the field at `path` (`run.maxSteps` -> `max-steps`), or undefined when no field is there. */
export function flagOfField(path: string): string | undefined {
  return configFields().find((field) => `${field.section}.${field.key}` === path)?.flag;
}

/** A field's value from its text form (a CLI flag value, a URL parameter, the form), or an error naming the flag. */
export function fieldValue(field: ConfigField, text: string): unknown {
  if (field.kind === 'number' || field.kind === 'integer') {
    const value = Number(text);
    if (text.trim() === '' || !Number.isFinite(value)) throw new Error(`--${field.flag}: expected a number, got "${text}"`);
    return value;
  }
  if (field.kind === 'boolean') {
    if (!['true', 'false', '1', '0', ''].includes(text)) throw new Error(`--${field.flag}: expected true or false, got "${text}"`);
    return text === 'true' || text === '1' || text === '';
  }
  return text;
}

/** Sets one field from its text form, validating it; the task's or the algorithm's name moves the config to that variant. */
export function withField(config: LabConfig, field: ConfigField, text: string): LabConfig {
  const value = fieldValue(field, text);
  try {
    if (field.section === 'task' && field.key === 'name') return withVariant(config, { task: String(value) });
    if (field.section === 'algorithm' && field.key === 'name') return withVariant(config, { algorithm: String(value) });
  } catch (error) {
    throw new Error(`--${field.flag}: ${(error as Error).message.replace(/^invalid config: [\w.]+: /, '')}`);
  }
  const next = { ...config, [field.section]: { ...config[field.section], [field.key]: value } } as LabConfig;
  const result = configSchema.safeParse(next);
  if (!result.success) {
    // The flag is blamed for its own field only: a field made invalid before it (a config file's
    // mapping) is named by its path.
    const own = result.error.issues.find((issue) => issue.path.join('.') === `${field.section}.${field.key}`);
    const issue = own ?? result.error.issues[0];
    throw new Error(own ? `--${field.flag}: ${issue.message}` : `${issue.path.join('.')}: ${issue.message}`);
  }
  return result.data;
}

/** A config from flags' text values (`{flag: text}` pairs in order), each field named by its flag in errors. */
export function configFromFlags(pairs: Iterable<readonly [string, string]>, base: ConfigInput = {}, unknown: (flag: string) => Error = (flag) => new Error(`unknown config parameter "${flag}"`)): LabConfig {
  const byFlag = new Map(configFields().map((field) => [field.flag, field]));
  const input = mergeSections({}, base) as Record<string, Record<string, unknown>>;
  const given = new Map<string, string>();
  for (const [flag, text] of pairs) {
    const field = byFlag.get(flag);
    if (!field) throw unknown(flag);
    (input[field.section] ??= {})[field.key] = fieldValue(field, text);
    given.set(`${field.section}.${field.key}`, flag);
  }
  try {
    return parseConfig(input);
  } catch (error) {
    // Blame the flag that set the field the schema refused.
    const message = (error as Error).message;
    const path = /invalid config: ([\w]+\.[\w]+)/.exec(message)?.[1];
    const flag = path && given.get(path);
    throw new Error(flag ? `--${flag}: ${message.replace(/^invalid config: [\w.]+: /, '')}` : message);
  }
}

/**
 * What was set, as `flag=value` pairs: the URL hash of a run. `page` leaves out the CLI-only
 * fields (paths on disk), which a link of the page never carries.
 */
export function configToSearchParams(config: LabConfig, { page = false }: { page?: boolean } = {}): string {
  const params = new URLSearchParams();
  const input = explicitInput(config) as Record<string, Record<string, unknown>>;
  const defaults = defaultConfig(config.task.name);
  for (const field of configFields()) {
    if (page && field.cliOnly) continue;
    const value = input[field.section]?.[field.key];
    if (value === undefined) continue;
    // The names are written only where they are not what a plain run would get.
    if (field.key === 'name' && field.section === 'task' && value === 'kolmogorov') continue;
    if (field.key === 'name' && field.section === 'algorithm' && value === defaults.algorithm.name) continue;
    params.set(field.flag, String(value));
  }
  return params.toString();
}

/** A config from a URL hash's `flag=value` pairs, laid on `base` (what was set before them). */
export function configFromSearchParams(text: string, base: ConfigInput = {}): LabConfig {
  return configFromFlags(new URLSearchParams(text), base);
}
