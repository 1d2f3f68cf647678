/**
 * `npm run digits -- --task sum_digits|reverse_digits [flags]`: the Monarch RL example's digit
 * tasks, headless. A brief supervised warm start on a small labelled set, greedy evaluation on
 * --eval-samples held-out prompts, REINFORCE (per-token normalised log-probs, EMA baseline)
 * with --num-generators generator threads and versioned weight sync, then evaluation again.
 * Seed flags: --task --num-steps --num-generators --eval-samples --verbose; every config field
 * is a flag too (see --help). `npm run train -- --task sum_digits ...` lands here. With
 * --output-dir the run's record (run.json) is written, and `--rerun DIR` repeats it.
 *
 * Fields the user does not set take the digit task's defaults, which are the digit recipe's
 * (core/digits/definition.ts: a d_model 64 x 2 layer policy, batch 64 or 128). Writes
 * metrics.jsonl and eval_results.json to --output-dir when one is given.
 */
import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DigitEvalResult } from '../core/digits/evaluate';
import { runDigitTask } from '../core/digits/experiment';
import { withDqnBatchFollowing } from '../core/digits/definition';
import { digitTaskNames, isDigitTask } from '../core/digits/tasks';
import { defaultConfig, flagOfField, type ConfigField, type LabConfig } from '../core/config';
import { algorithmDefinition, fieldOwners } from '../core/registry';
import { checkOutputs } from './outputs';
import { catchInterrupt, parseArgs, runMain, usage, type ExtraFlag } from './args';
import { createNodeGeneratorPool } from './digitGenerators';
import { initTensorflow } from './tfBackend';
import { newRunRecord, recordFile, rerunConfig, writeRunRecord } from './runRecord';
import { clearRun, holdsRun, lockRunDir } from './runDir';

export const digitsFlags: ExtraFlag[] = [
  { name: 'help', doc: 'show this help', boolean: true },
  { name: 'verbose', doc: 'print sample generations every step', boolean: true },
  { name: 'json', doc: 'print the result as one JSON object at the end', boolean: true },
  { name: 'quiet', doc: 'print no step lines, only the evaluations and the closing table', boolean: true },
  { name: 'overwrite', doc: 'replace a run already in --output-dir (without it, a folder that holds a run is refused)', boolean: true },
  { name: 'rerun', doc: 'repeat the run recorded in this output dir (its run.json), into --output-dir (default DIR-rerun)' },
  { name: 'allow-changed', doc: 'with --rerun: go on when a recorded file changed since (said on stderr)', boolean: true },
];

/** Each digit task's defaults, with an algorithm's own where it has them (dqn's): the digit recipe's (core/digits/definition.ts). */
const digitDefaults = (algorithm?: string) => digitTaskNames.map((task) => [task, defaultConfig(task, algorithm)] as const);

/**
 * The help lists the fields a digit run reads, with the defaults a digit run has (the recipe's,
 * per task where they differ): no other task's fields, no files (it reads none and writes no
 * checkpoint), and --task as the two it takes.
 */
function digitField(field: ConfigField): ConfigField | null {
  if (field.flag === 'task') return { ...field, options: digitTaskNames, defaultValue: undefined, doc: 'Which digit task the policy learns.' };
  if (field.flag === 'output-dir') return { ...field, defaultValue: 'none: nothing is written', doc: 'Where config.json, run.json, metrics.jsonl and eval_results.json go.' };
  if (field.cliOnly) return null;
  const owners = fieldOwners().get(`${field.section}.${field.key}`);
  if (owners?.tasks && !owners.tasks.some(isDigitTask)) return null;
  // A field of one algorithm (dqn's replay) has the default a run of that algorithm gets.
  const values = digitDefaults(owners?.algorithms?.length === 1 ? owners.algorithms[0] : undefined).map(([task, config]) => [task, String((config[field.section as keyof LabConfig] as Record<string, unknown>)[field.key])] as const);
  const same = values.every(([, value]) => value === values[0][1]);
  return { ...field, defaultValue: same ? values[0][1] : values.map(([task, value]) => `${task} ${value}`).join(', ') };
}

function percent(x: number): string {
  return `${(100 * x).toFixed(1)}%`;
}

function table(before: DigitEvalResult, after: DigitEvalResult): string {
  return [
    '                    accuracy   format compliance',
    `warm start (before) ${percent(before.accuracy).padStart(8)}   ${percent(before.formatCompliance).padStart(8)}`,
    `after RL            ${percent(after.accuracy).padStart(8)}   ${percent(after.formatCompliance).padStart(8)}`,
  ].join('\n');
}

/** The flags of the fields the user set, on the command line or in a `--config` file (parseArgs' `given`). */
function explicitFlags(given: ReadonlySet<string>): Set<string> {
  return new Set([...given].flatMap((path) => flagOfField(path) ?? []));
}

export async function digitsMain(argv: string[]): Promise<void> {
  if (argv.includes('--help') || argv.includes('-h')) {
    console.log(usage('digits', "RL on sum_digits or reverse_digits with parallel generators (reinforce_monarch unless --algorithm says another).\nThe defaults below are the digit recipe's, per task where the two differ; with dqn, a named --batch-size carries dqn's batch fields and buffer with it.", digitsFlags, true, digitField));
    return;
  }
  const parsed = parseArgs(argv, digitsFlags);
  const rerun = typeof parsed.extra.rerun === 'string' ? rerunConfig(parsed.extra.rerun, parsed).config : null;
  const config = rerun ?? withDqnBatchFollowing(parsed.config, explicitFlags(parsed.given));
  if (!isDigitTask(config.task.name)) throw new Error(`--task must be sum_digits or reverse_digits (got ${config.task.name})`);
  if (config.run.initFrom) throw new Error(`--init-from ${config.run.initFrom}: a digit task starts from its own warm start on labelled examples (--warm-start-steps), not from a checkpoint`);
  const verbose = parsed.extra.verbose === true;
  // With --json, stdout is the JSON alone: every other line goes to stderr.
  const say = parsed.extra.json ? (line: string) => console.error(line) : (line: string) => console.log(line);
  const backend = await initTensorflow(config.run.backend === 'wasm' || config.run.backend === 'cpu' ? config.run.backend : 'auto');
  const outputDir = rerun || parsed.given.has('run.outputDir') ? config.run.outputDir : undefined;
  // A --config file is the one file a digit run reads (its items come from the seed): recorded, so a grid sees it edited.
  const runRecord = newRunRecord(['npm', 'run', 'digits', '--', ...argv], backend.backend, config, parsed.configFile ? [recordFile('config file', parsed.configFile)] : []);
  let releaseLock = () => undefined as void;
  // Ctrl-C and a kill end the run at the next step (of the warm start or RL); it is evaluated as it stands and its record ends.
  // Caught from before the run's files are written, so a signal never leaves a record without an end.
  const interrupt = catchInterrupt(() => 'ending the run after the current step (of the warm start or RL), then the closing evaluation');
  if (outputDir !== undefined) {
    try {
      checkOutputs([{ flag: 'output-dir', path: outputDir, kind: 'folder' }]);
      // A folder that holds a run (a digits run's, or train's) is never written over by accident,
      // and one process at a time writes it: the lock first, then the check and the clearing.
      mkdirSync(outputDir, { recursive: true });
      releaseLock = lockRunDir(outputDir);
      if (holdsRun(outputDir)) {
        if (!parsed.extra.overwrite) throw new Error(`--output-dir ${outputDir} already holds a run: give another --output-dir, or --overwrite to replace it`);
        clearRun(outputDir);
      }
      writeFileSync(join(outputDir, 'config.json'), JSON.stringify(config, null, 2));
      writeFileSync(join(outputDir, 'metrics.jsonl'), '');
      writeRunRecord(outputDir, runRecord);
    } catch (error) {
      // Refused before the run began (a file in the way, another process's lock, a run there): nothing is held on.
      releaseLock();
      interrupt.dispose();
      throw error;
    }
  }
  const started = performance.now();
  const metric = (step: number, name: string, value: number | undefined) => {
    // A figure a step does not have (dqn's baseline, an importance weight without generators) is left out, not written without a value.
    if (value === undefined || !Number.isFinite(value)) return;
    if (outputDir) appendFileSync(join(outputDir, 'metrics.jsonl'), JSON.stringify({ step, name, value, wallMs: Math.round(performance.now() - started) }) + '\n');
  };
  const { model, algorithm, digits } = config;
  say(`tfjs backend: ${backend.backend} (${backend.detail})`);
  // An algorithm that samples on the trainer (dqn) starts no generator workers: they would stay idle.
  const onTrainer = algorithmDefinition(algorithm.name).samplesOnTrainer === true;
  const sampledBy = onTrainer ? `sampled on the trainer (${algorithm.name})` : `with ${digits.numGenerators} generator(s)`;
  // --max-steps ends RL early; the learning-rate schedule still spans --num-steps (runDigitTask).
  const rlSteps = config.run.maxSteps > 0 ? Math.min(config.run.maxSteps, digits.numSteps) : digits.numSteps;
  const rlText = rlSteps < digits.numSteps ? `${rlSteps} of the schedule's ${digits.numSteps}` : String(rlSteps);
  say(`task ${config.task.name}: policy d_model ${model.dModel} x ${model.layers} layers, context ${model.context}; warm start ${digits.warmStartSteps} steps on ${digits.warmStartExamples} labelled examples; RL ${rlText} steps x ${algorithm.batchSize} ${sampledBy}`);
  const pool = onTrainer ? undefined : createNodeGeneratorPool(digits.numGenerators);
  try {
    const result = await runDigitTask(config, pool, {
      // --quiet: no progress lines, the warm start's included; what is said once (a note, a stop) stays.
      log: (line) => (parsed.extra.quiet && /^warm start \d+\/\d+ /.test(line) ? undefined : say(line)),
      shouldStop: () => interrupt.signal !== null,
      evaluation: (phase, step, r) => {
        say(`eval (${phase}, step ${step}) on ${r.n} held-out prompts, greedy: accuracy ${percent(r.accuracy)}  format compliance ${percent(r.formatCompliance)}`);
        metric(step, 'eval_accuracy', r.accuracy);
        metric(step, 'eval_format_compliance', r.formatCompliance);
        if (verbose) {
          const shown = [...r.samples.filter((s) => !s.correct).slice(0, 4), ...r.samples.filter((s) => s.correct).slice(0, 2)];
          for (const s of shown) say(`    ${s.question} -> ${JSON.stringify(s.text)} (${s.correct ? 'right' : `wrong, ${s.answer}`})`);
        }
      },
      step: (m) => {
        for (const [name, value] of Object.entries({ reward: m.reward, accuracy: m.accuracy, format_compliance: m.formatCompliance, policy_loss: m.loss, baseline: m.baseline, importance_weight: m.importanceWeight, generations_per_s: m.generationsPerSecond, ...m.algorithm })) metric(m.step, name, value);
        const every = verbose ? 1 : Math.max(1, Math.round(rlSteps / 20));
        if (!parsed.extra.quiet && (m.step % every === 0 || m.step === rlSteps || m.skipped)) {
          // The trainer's weights after this step's update and sync, and the version each generator sampled this step's batch with.
          const versions = m.generators.length ? ` [sampled ${m.generators.map((g) => `g${g.id}:v${g.generatedWith}`).join(' ')}]` : '';
          // Each algorithm reports what it has (dqn: no baseline, no generators).
          const f = (value: number | undefined, digits: number) => (value === undefined ? '-' : value.toFixed(digits));
          say(`step ${m.step}/${rlSteps}  reward ${m.reward.toFixed(3)}  acc ${m.accuracy.toFixed(3)}  format ${m.formatCompliance.toFixed(3)}  loss ${f(m.loss, 4)}  baseline ${f(m.baseline, 3)}  iw ${f(m.importanceWeight, 3)}  gen/s ${f(m.generationsPerSecond, 0)}${m.trainerVersion === undefined ? '' : `  trainer v${m.trainerVersion}`}${versions}${m.skipped ? `  SKIPPED: ${m.reason}` : ''}`);
        }
        if (verbose) for (const s of m.samples) say(`    [v${s.version}] ${s.question} -> ${JSON.stringify(s.text)} (reward ${s.reward}, answer ${s.answer})`);
      },
    }, verbose ? 2 : 0);
    say('');
    say(table(result.before, result.after));
    if (result.stoppedBy === 'interrupted') say(`${interrupt.signal} ended RL at step ${result.steps} of ${digits.numSteps}`);
    if (result.stoppedBy === 'time budget') say(`the time budget (--time-limit ${config.run.timeLimit}) ended RL at step ${result.steps} of ${digits.numSteps}`);
    say(`time: warm start ${result.warmStartSeconds.toFixed(0)} s, RL ${result.rlSeconds.toFixed(0)} s, total ${result.totalSeconds.toFixed(0)} s; RL answers/s ${result.generationsPerSecond.toFixed(1)} ${sampledBy}, updates included`);
    const summary = {
      task: result.task,
      n: result.after.n,
      before: { accuracy: result.before.accuracy, format_compliance: result.before.formatCompliance },
      after: { accuracy: result.after.accuracy, format_compliance: result.after.formatCompliance },
      num_generators: onTrainer ? 0 : digits.numGenerators,
      generations_per_s: result.generationsPerSecond,
      seconds: { warm_start: result.warmStartSeconds, rl: result.rlSeconds, total: result.totalSeconds },
    };
    if (outputDir) {
      writeFileSync(join(outputDir, 'eval_results.json'), JSON.stringify(summary, null, 2));
      writeRunRecord(outputDir, { ...runRecord, ended: new Date().toISOString(), steps: result.steps, stopped: result.stoppedBy });
    }
    if (parsed.extra.json) console.log(JSON.stringify(summary));
  } finally {
    interrupt.dispose();
    pool?.close();
    releaseLock();
  }
}

if (import.meta.url === `file://${process.argv[1]}` || process.argv[1]?.endsWith('digits.ts')) runMain(() => digitsMain(process.argv.slice(2)));
