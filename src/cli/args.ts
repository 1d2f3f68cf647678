/**
 * Command-line flags derived from the one config schema (src/core/config.ts): every config
 * field is a flag named after it (`learningRate` -> `--learning-rate`; the seeds' snake_case
 * spelling `--learning_rate` is accepted too). Command-specific flags are declared by each
 * command. `--config FILE` loads a YAML or JSON config first (core/configFile.ts: the lab's
 * sections, or the Q-language system's flat keys); flags override it.
 */
import { realpathSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { closest, distance } from 'fastest-levenshtein';
import { pathToFileURL } from 'node:url';
import { configFields, configFromFlags, configProblem, type ConfigField, type ConfigInput, type LabConfig } from '../core/config';
import { parseConfigFile } from '../core/configFile';
import { taskDefinition, taskNames } from '../core/registry';
import { MAX_CONFIG_BYTES, readTextChecked } from './data';

export interface ExtraFlag {
  name: string;
  doc: string;
  boolean?: boolean;
  defaultValue?: string;
}

export interface ParsedArgs {
  config: LabConfig;
  /** The fields set by the flags or the config file (`section.key`): the rest are their task's and algorithm's defaults. */
  given: Set<string>;
  extra: Record<string, string | boolean | undefined>;
  /** The command's own flags given on the command line or in the config file's `command` section (the rest of `extra` are their defaults). */
  extraGiven: Set<string>;
  /** The `--config` file read, when one was given: a file the run read, as its data are. */
  configFile?: string;
}

/** Where a flag's description starts, and how wide a help line is. */
const DOC_COLUMN = 34;
const WIDTH = 110;

/** Flags a config file's `command` section never sets: they say what to do with a run folder, not how the run computes. */
const COMMAND_LINE_ONLY = new Set(['help', 'config', 'resume', 'rerun', 'overwrite', 'allow-changed']);

/** One flag of the help: its name, then its description wrapped at WIDTH; a name too long for its column puts the description on the lines below. */
function helpEntry(name: string, doc: string): string[] {
  const words = doc.split(/\s+/).filter(Boolean);
  const wrapped: string[] = [];
  let line = '';
  for (const word of words) {
    if (line && line.length + 1 + word.length > WIDTH - DOC_COLUMN) {
      wrapped.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) wrapped.push(line);
  const indent = ' '.repeat(DOC_COLUMN);
  if (name.length >= DOC_COLUMN - 1) return [name, ...wrapped.map((text) => indent + text)];
  return [name.padEnd(DOC_COLUMN) + (wrapped[0] ?? ''), ...wrapped.slice(1).map((text) => indent + text)];
}

/**
 * The help of a command: its own flags, then every config field by section. `present` lets a
 * command leave out fields it never reads (null) or describe one its own way; the defaults are
 * those of `forConfig`'s task and algorithm when given.
 */
export function usage(command: string, summary: string, extras: ExtraFlag[], withConfig = true, present: (field: ConfigField) => ConfigField | null = (field) => field, forConfig?: LabConfig): string {
  const lines = [`usage: npm run ${command} -- [flags]`, '', summary, ''];
  for (const flag of extras) {
    lines.push(...helpEntry(`  --${flag.name}${flag.boolean ? '' : ' VALUE'}`, flag.doc + (flag.defaultValue ? ` (default ${flag.defaultValue})` : '')));
  }
  if (withConfig) {
    lines.push('', ...helpEntry('  --config FILE', 'YAML or JSON config to start from (the lab\'s sections, or the seed\'s keys: learning_rate, batch_size, ...); flags override it'));
    let section = '';
    // A command's own flag of the same name is the one it reads: the field is not listed twice.
    const own = new Set(extras.map((flag) => flag.name));
    for (const field of configFields(forConfig).filter((f) => !own.has(f.flag)).flatMap((f) => present(f) ?? [])) {
      if (field.section !== section) {
        section = field.section;
        lines.push('', `  ${section}:`);
      }
      const kind = field.kind === 'enum' ? field.options!.join('|') : field.kind === 'boolean' ? '' : field.kind.toUpperCase();
      const fallback = field.defaultValue === undefined ? 'required' : `default ${field.defaultValue === '' ? 'none' : String(field.defaultValue)}`;
      lines.push(...helpEntry(`  --${field.flag} ${kind}`.trimEnd(), `${field.doc} (${fallback})`));
    }
  }
  return lines.join('\n');
}

/** A flag's value as typed in `argv` (`--name V` or `--name=V`), read before any parsing: what decides which command parses the rest. */
export function flagValue(argv: readonly string[], name: string): string | undefined {
  return argv.flatMap((arg, i) => (arg === `--${name}` ? [argv[i + 1]] : arg.startsWith(`--${name}=`) ? [arg.slice(name.length + 3)] : []))[0];
}

/** Whether a run of `task` is `npm run digits`'s (a task that warms up before RL on generated items has its own recipe, command and flags), from `npm run train` or a grid. */
export function runsAsDigits(task: string | undefined): boolean {
  return Boolean(task && taskNames().includes(task) && taskDefinition(task).warmStart?.beforeTraining);
}

/** Parses argv into a validated config plus the command's own flags; throws with the flag named. */
export function parseArgs(argv: string[], extras: ExtraFlag[], withConfig = true): ParsedArgs {
  const fields = new Map<string, ConfigField>(configFields().map((field) => [field.flag, field]));
  const extraByName = new Map(extras.map((flag) => [flag.name, flag]));
  // A typo (--max-step, --learning_rat) is answered with the nearest flag the command has.
  const known = [...extras.map((flag) => flag.name), ...(withConfig ? [...fields.keys(), 'config'] : [])];
  const unknownFlag = (name: string) => {
    const near = known.length ? closest(name, known) : null;
    return `unknown flag --${name}${near && distance(name, near) <= Math.max(2, Math.floor(name.length / 4)) ? ` (did you mean --${near}?)` : ''} (see --help)`;
  };
  const extra: ParsedArgs['extra'] = {};
  for (const flag of extras) if (flag.defaultValue !== undefined) extra[flag.name] = flag.defaultValue;

  const pairs: [string, string | undefined][] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (!arg.startsWith('--')) throw new Error(`unexpected argument "${arg}" (flags start with --)`);
    // The seed's spellings (--learning_rate) name the same flag; a value (--output-dir=runs/my_run) is kept as typed.
    const eq = arg.indexOf('=');
    const name = (eq >= 0 ? arg.slice(2, eq) : arg.slice(2)).replace(/_/g, '-');
    let value = eq >= 0 ? arg.slice(eq + 1) : undefined;
    const isBoolean = extraByName.get(name)?.boolean || fields.get(name)?.kind === 'boolean';
    // A boolean flag alone means true; `--flag false` and `--flag=false` both turn it off.
    if (value === undefined && isBoolean && (argv[i + 1] === 'true' || argv[i + 1] === 'false')) value = argv[++i];
    if (value === undefined && !isBoolean) {
      value = argv[++i];
      // A flag is never a value (`--output-dir --quiet` forgot the folder); a negative number (-1) is.
      if (value === undefined || value.startsWith('--')) {
        if (!fields.has(name) && !extraByName.has(name)) throw new Error(unknownFlag(name));
        throw new Error(`--${name} needs a value${value === undefined ? '' : `, got the flag ${value}`}`);
      }
    }
    pairs.push([name, value]);
  }

  let base: ConfigInput = {};
  const given = new Set<string>();
  const extraGiven = new Set<string>();
  const configFile = pairs.find(([name]) => name === 'config');
  if (configFile && withConfig) {
    let text: string;
    try {
      text = readTextChecked(configFile[1]!, 'config file', MAX_CONFIG_BYTES);
    } catch (error) {
      throw new Error(`--config: ${(error as Error).message}`);
    }
    try {
      const file = parseConfigFile(text);
      base = file.input as ConfigInput;
      for (const [section, values] of Object.entries(file.input)) for (const key of Object.keys(values)) given.add(`${section}.${key}`);
      for (const note of file.notes) console.error(`--config ${configFile[1]}: ${note}`);
      for (const [name, value] of Object.entries(file.flags)) {
        const flag = extraByName.get(name);
        if (COMMAND_LINE_ONLY.has(name)) throw new Error(`command.${name}: --${name} is given on the command line, not in a config file`);
        if (!flag) {
          console.error(`--config ${configFile[1]}: command.${name}: not a flag of this command (ignored)`);
          continue;
        }
        if (flag.boolean && typeof value !== 'boolean' && value !== 'true' && value !== 'false') throw new Error(`command.${name} must be true or false, got ${JSON.stringify(value)}`);
        extra[name] = flag.boolean ? value === true || value === 'true' : String(value);
        extraGiven.add(name);
      }
    } catch (error) {
      throw new Error(`--config ${configFile[1]}: ${(error as Error).message}`);
    }
  }
  const flags: [string, string][] = [];
  for (const [name, value] of pairs) {
    if (name === 'config' && withConfig) continue;
    const flag = extraByName.get(name);
    if (flag) {
      extra[name] = flag.boolean ? value !== 'false' : value;
      extraGiven.add(name);
      continue;
    }
    const field = withConfig ? fields.get(name) : undefined;
    if (!field) throw new Error(unknownFlag(name));
    flags.push([name, value ?? '']);
    given.add(`${field.section}.${field.key}`);
  }
  // One resolution of everything set: the fields not set take the run's task's and algorithm's defaults.
  const config = configFromFlags(flags, base, (flag) => new Error(unknownFlag(flag)));
  // Fields that disagree (heads must divide d_model) are said now, before data loads or workers start.
  const problem = configProblem(config);
  if (problem) throw new Error(problem);
  return { config, given, extra, extraGiven, ...(configFile && withConfig ? { configFile: configFile[1]! } : {}) };
}

/** A flag's value as a positive finite number (a whole one with `integer`; 1e400 is Infinity, refused), or an error that names the flag and what it got. */
export function positiveFlag(name: string, text: unknown, integer = false): number {
  const value = Number(text);
  if (!(value > 0) || !Number.isFinite(value) || (integer && !Number.isInteger(value))) throw new Error(`--${name}: expected a positive ${integer ? 'whole ' : ''}number, got "${String(text)}"`);
  return value;
}

/** Says so on stderr when more threads are asked for than the machine has cores: they then share them. */
export function warnOversubscribed(threads: number): void {
  const cores = availableParallelism();
  if (threads > cores) console.error(`--threads ${threads} on ${cores} core${cores === 1 ? '' : 's'}: the threads share them, so more than ${cores} is slower, not faster`);
}

/** Whether this module is the process's entry (`node --import tsx src/cli/x.ts`), not imported by a test or another command. */
export function isEntry(moduleUrl: string, entry = process.argv[1]): boolean {
  if (entry === undefined) return false;
  if (moduleUrl === pathToFileURL(entry).href) return true;
  // Node loads a module by its real path, so a script named through a symbolic link (a linked
  // checkout or folder) is still the entry: without this the command did nothing and exited 0.
  try {
    return moduleUrl === pathToFileURL(realpathSync(entry)).href;
  } catch {
    return false;
  }
}

export interface Interrupt {
  /** The signal that asked the command to stop, or null. */
  readonly signal: NodeJS.Signals | null;
  /** Removes the handlers (the command has finished). */
  dispose(): void;
}

/**
 * Ctrl-C (SIGINT) and a kill (SIGTERM) ask the command to stop where it can save its work:
 * `say(signal)` tells the user what happens now. A second signal quits at once, but not one
 * within a second of the first: npm forwards a signal its process group also delivered, and
 * that is the same request.
 */
export function catchInterrupt(say: (signal: NodeJS.Signals) => string): Interrupt {
  let signal: NodeJS.Signals | null = null;
  let at = 0;
  const onSignal = (received: NodeJS.Signals) => {
    if (signal && performance.now() - at > 1000) process.exit(received === 'SIGTERM' ? 143 : 130);
    if (signal) return;
    signal = received;
    at = performance.now();
    console.error(`\n${received}: ${say(received)} (again to quit at once)`);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return {
    get signal() {
      return signal;
    },
    dispose() {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    },
  };
}

/**
 * Exits with `code` once stdout has written what it holds: to a pipe stdout is asynchronous, and
 * process.exit at once cut `eval --json | ...` at 64 KB.
 */
function exitAfterOutput(code: number): void {
  process.stdout.write('', () => process.exit(code));
}

/** Runs a command's main with readable errors and exit codes. */
export function runMain(main: () => Promise<void>): void {
  main().then(
    () => exitAfterOutput(0),
    (error: unknown) => {
      console.error(`error: ${error instanceof Error ? error.message : String(error)}`);
      if (process.env.DEBUG && error instanceof Error) console.error(error.stack);
      exitAfterOutput(1);
    },
  );
}
