/**
 * `npm run train -- [flags]`: RL on any task of the registry (registry.ts), headless: the
 * Kolmogorov task by default, `--task functions --problems FILE` for functions from docstrings
 * and tests; the digit tasks' recipe is `npm run digits`. Flags are the
 * config fields (see --help) plus the seed's options under the same names: model config
 * (--layers --d-model --heads --context), --data-path, --eval-data-path, --output-dir,
 * --num-epochs, --batch-size, --learning-rate, --reward-constant, --length-penalty,
 * --checkpoint-freq, --eval-freq, --seed, --backend.
 *
 * Writes to the output dir: config.json and config.yaml, metrics.jsonl (one `{step, name,
 * value, wallMs}` event per line), checkpoints/checkpoint-<step>.prl every --checkpoint-freq
 * steps and latest.prl (written to a temporary name, then renamed, so a crash mid-save keeps the
 * previous one), best.prl, and logs/: training_log.txt (what the run printed), rewards.json
 * (reward statistics, at each checkpoint) and eval_results.json after the final evaluation: the
 * Q-language system's layout. Ctrl-C saves a checkpoint before leaving (before the first step: none, and the folder stays as it was).
 */
import { appendFileSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve, sep } from 'node:path';
import { defaultConfig, fieldApplies, parseConfig, withVariant, type ConfigField, type LabConfig } from '../core/config';
import type { LoopDeps } from '../core/loop';
import { RewardModel } from '../core/algorithms/rewardModel';
import { checkpointWallMs, decodeCheckpoint, modelDifference } from '../core/checkpoint';
import { configToYaml } from '../core/configFile';
import { isSafetensors } from '../core/safetensors';
import { algorithmDefinition, algorithmNames, taskDefinition, taskNames } from '../core/registry';
import { SearchStopped, type SearchSpec, type TaskDefinition, type TaskEvaluation } from '../core/task';
import { createRunner, programTask, taskPreludes, type Runner } from '../core/runner';
import { taskData } from './trainData';
import type { GradientShards } from '../core/gradientShards';
import { createNodeGradientShards } from './gradientHost';
import type { StepResult } from '../core/runnerTypes';
import { catchInterrupt, flagValue, isEntry, parseArgs, positiveFlag, runMain, runsAsDigits, type ExtraFlag, usage, warnOversubscribed } from './args';
import { loadPreferencesFile, namingCheckpoint, readCheckpointFile, writeAtomic } from './data';
import { checkOutputs } from './outputs';
import { RewardLog, clearRun, lockRunDir, refuseClearingInputs, runDirPlan, truncateMetrics } from './runDir';
import { computationChanges, newRunRecord, readRunRecord, recordFile, recordOfCheckpoint, rerunConfig, resumedConfig, sessionsSoFar, SHAPING_FLAGS, writeRunRecord } from './runRecord';
import { createNodeSandboxPool } from './sandboxHost';
import { initTensorflow } from './tfBackend';
import { evaluationTable, sandboxLimits } from './report';

export const trainFlags: ExtraFlag[] = [
  { name: 'help', doc: 'show this help', boolean: true },
  { name: 'resume', doc: 'checkpoint file to resume from: its run goes on as it was (weights, optimizer, step, RNG, data cursor, config, warm start, threads); flags given change that (--max-steps to go further)' },
  { name: 'rerun', doc: 'repeat the run recorded in this output dir (its run.json: config, data, warm start), into --output-dir (default DIR-rerun); a file that changed since is named and refused' },
  { name: 'allow-changed', doc: 'with --rerun: go on when a recorded file changed since (said on stderr)', boolean: true },
  { name: 'eval-k', doc: 'programs sampled per held-out sequence at evaluation (best-of-k)', defaultValue: '1' },
  { name: 'quiet', doc: 'print only the summary', boolean: true },
  { name: 'skip-report', doc: 'end without the held-out report, so a run whose policy is chosen on other data (the recipe\'s --dev-only) reads no held-out score; the held-out items are still kept out of training', boolean: true },
  { name: 'overwrite', doc: 'replace a run already in --output-dir (without it a fresh run there is refused)', boolean: true },
  { name: 'use-dpo', doc: 'DPO (--algorithm dpo; --beta 0.1 unless given): on pairs from the run\'s own samples, or on --preferences', boolean: true },
  { name: 'preferences', doc: 'kolmogorov task: DPO on this JSONL of {prompt, chosen, rejected} (as `npm run rollouts -- --pairs` writes) instead of sampling' },
  { name: 'use-reward-model', doc: 'RL against a reward model (`npm run train-reward-model`): its score of each program, times --reward-model-weight, is added to the task\'s reward' },
  { name: 'reward-model-weight', doc: 'weight of the reward model\'s score', defaultValue: '1' },
  { name: 'reward-model-alone', doc: 'with --use-reward-model: its score replaces the task\'s reward instead of adding to it', boolean: true },
  { name: 'test-case-rewards-only', doc: 'the reward is the tests\' (functions: --reward-type test_cases) and nothing learned: refuses --use-reward-model and DPO', boolean: true },
  { name: 'threads', doc: 'threads computing an update\'s gradients (data parallelism: reinforce and expert_iteration; 1 = this thread only)', defaultValue: '2' },
  { name: 'problems', doc: 'functions task: the training problems (JSON array or JSONL in the seed format), the same as --data-path; default datasets/functions/train.jsonl' },
];

/** The numbered checkpoints in `dir`, oldest first. */
function numberedCheckpoints(dir: string): { step: number; file: string }[] {
  return readdirSync(dir)
    .flatMap((file) => {
      const match = /^checkpoint-(\d+)\.prl$/.exec(file);
      return match ? [{ step: Number(match[1]), file }] : [];
    })
    .sort((a, b) => a.step - b.step);
}

/** The best validation score a run recorded (logs/best.json) and its step, or null when there is none to read. */
function readBest(path: string): { step: number; score: number } | null {
  try {
    const best = JSON.parse(readFileSync(path, 'utf8')) as { score?: unknown; step?: unknown };
    return typeof best.score === 'number' && Number.isFinite(best.score) && typeof best.step === 'number' ? { step: best.step, score: best.score } : null;
  } catch {
    return null;
  }
}

function formatStep(result: StepResult, total: number, secondsPerStep: number): string {
  const m = result.metrics;
  const eta = Math.max(0, (total - result.step) * secondsPerStep);
  const etaText = eta > 90 ? `${(eta / 60).toFixed(1)}m` : `${eta.toFixed(0)}s`;
  if (m['rewards/accuracies'] !== undefined && m.avg_reward === undefined) {
    // DPO on a pair file: no sampling, TRL's preference figures.
    return [
      `step ${result.step}/${total}`,
      `loss ${m.policy_loss.toFixed(4)}`,
      `rewards/accuracies ${m['rewards/accuracies'].toFixed(3)}`,
      `rewards/margins ${m['rewards/margins'].toFixed(4)}`,
      `logps chosen ${m['logps/chosen'].toFixed(2)} rejected ${m['logps/rejected'].toFixed(2)}`,
      `${secondsPerStep.toFixed(2)} s/step`,
      `ETA ${etaText}`,
      result.skipped ? `SKIPPED: ${result.reason}` : '',
    ].filter(Boolean).join('  ');
  }
  return [
    `step ${result.step}/${total}`,
    `reward ${m.avg_reward.toFixed(3)}`,
    `acc ${m.accuracy.toFixed(3)}`,
    m.compression_rate !== undefined ? `comp ${m.compression_rate.toFixed(3)}` : '',
    m.tests_passed !== undefined ? `tests ${m.tests_passed.toFixed(3)}` : '',
    `loss ${m.policy_loss.toFixed(4)}`,
    m['rewards/margins'] !== undefined ? `pairs ${m.pairs}  margin ${m['rewards/margins'].toFixed(4)}` : '',
    // Each algorithm reports what it has: entropy (reinforce), KL and the clipped share (grpo, rloo).
    m.entropy !== undefined ? `H ${m.entropy.toFixed(3)}` : '',
    m.kl !== undefined ? `KL ${m.kl.toFixed(4)}` : '',
    m.clip_ratio !== undefined ? `clipped ${m.clip_ratio.toFixed(3)}` : '',
    m['charts/epsilon'] !== undefined ? `eps ${m['charts/epsilon'].toFixed(3)}` : '',
    m['losses/td_loss'] !== undefined ? `td ${m['losses/td_loss'].toFixed(4)}  Q ${m['losses/q_values'].toFixed(3)}` : '',
    m.program_bits !== undefined ? `bits ${Number.isFinite(m.program_bits) ? m.program_bits.toFixed(1) : '-'}` : m.program_tokens !== undefined ? `tokens ${m.program_tokens.toFixed(1)}` : '',
    `tok/s ${m.tokens_per_s.toFixed(0)}`,
    `evals/s ${m.evals_per_s.toFixed(0)}`,
    `${secondsPerStep.toFixed(2)} s/step`,
    `ETA ${etaText}`,
    result.skipped ? `SKIPPED: ${result.reason}` : '',
  ].filter(Boolean).join('  ');
}

/**
 * train's help: its flags, then the config fields a run of the task and algorithm given (default
 * kolmogorov with its default algorithm) reads, with their defaults there; `--help all` lists
 * the fields of every task and algorithm.
 */
export function trainHelp(task = 'kolmogorov', algorithm?: string, all = false): string {
  const tasks = taskNames().map((name) => `  ${name}: ${taskDefinition(name).doc}`).join('\n');
  const known = taskNames().includes(task) && (algorithm === undefined || algorithmNames().includes(algorithm));
  const config = known ? defaultConfig(task, algorithm) : undefined;
  const shown = (field: ConfigField) => (all || !config || fieldApplies(field, config) ? field : null);
  const which = config ? `the fields of --task ${config.task.name} with --algorithm ${config.algorithm.name} (${algorithmNames().join(', ')}), their defaults there; --help all lists those of every task and algorithm` : 'every field';
  return usage('train', `RL on a task (--task, default kolmogorov):\n${tasks}\n\nListed below: ${all ? 'every field' : which}.`.replace('; --help all', ';\n--help all'), trainFlags, true, shown, all ? undefined : config);
}

/** `npm run train -- ARGS`, also called in-process by tests (the signal handlers are removed when it returns). */
export async function trainCommand(argv: string[]): Promise<void> {
  // A task that warms up before RL on generated items (the digit tasks) has its own recipe and command (src/cli/digits.ts).
  const rerunDir = flagValue(argv, 'rerun');
  const task = rerunDir ? readRunRecord(rerunDir).config.task.name : flagValue(argv, 'task');
  if (runsAsDigits(task)) return (await import('./digits')).digitsMain(argv);
  if (argv.includes('--help') || argv.includes('-h')) return console.log(trainHelp(task, flagValue(argv, 'algorithm'), argv.includes('all')));
  const parsed = parseArgs(argv, trainFlags);
  const { extra } = parsed;
  const repeated = typeof extra.rerun === 'string' ? rerunConfig(extra.rerun, parsed) : null;
  // A rerun repeats the recorded run's own flags too (its pair file, reward model, best-of-k, resume).
  if (repeated) Object.assign(extra, repeated.extras);
  const rerun = repeated?.config ?? null;
  // A resume continues the checkpoint's run as it was configured, with the flags given on top:
  // its config from the checkpoint, its own flags and thread count from its record.
  const resumed = !rerun && typeof extra.resume === 'string' ? await resumedConfig(extra.resume, parsed) : null;
  const resumedRecord = resumed ? recordOfCheckpoint(extra.resume as string) : null;
  const restored = Object.entries(resumedRecord?.extras ?? {}).filter(([flag]) => flag !== 'resume' && !parsed.extraGiven.has(flag));
  for (const [flag, value] of restored) extra[flag] = value;
  // --problems names the training problems (the seed's flag): it is the run's dataPath, recorded as such.
  if (typeof extra.problems === 'string' && parsed.given.has('run.dataPath')) throw new Error(`--problems is the seed's name for --data-path: give one of them (got --problems ${extra.problems} and --data-path ${parsed.config.run.dataPath})`);
  const flagged = typeof extra.problems === 'string' ? { ...parsed.config, run: { ...parsed.config.run, dataPath: extra.problems } } : parsed.config;
  const initPath = (rerun ?? resumed ?? flagged).run.initFrom;
  const initFrom = initPath ? readCheckpointFile(initPath, 'init-from') : undefined;
  const config = rerun ?? resumed ?? (await adoptWarmStart(withDpoSwitches(flagged, extra, argv), parsed.given, initFrom, initPath));
  // Checked before the first step, not at the first checkpoint: its config must load back.
  parseConfig(config);
  const quiet = Boolean(extra.quiet);
  const evalK = positiveFlag('eval-k', extra['eval-k'], true);
  // A rerun computes its updates on as many threads as the recorded run did (a split sums in another order).
  const recordedThreads = repeated?.threads ?? null;
  if (recordedThreads !== null && parsed.extraGiven.has('threads')) throw new Error(`--rerun repeats the recorded run as it was: drop --threads (it ran on ${recordedThreads})`);
  // A resume goes on with its run's thread count too, unless --threads says otherwise.
  const resumedThreads = resumedRecord && !parsed.extraGiven.has('threads') ? (resumedRecord.threads ?? 1) : null;
  const threads = recordedThreads ?? resumedThreads ?? positiveFlag('threads', extra.threads, true);
  warnOversubscribed(threads);
  const definition = taskDefinition(config.task.name);
  if (definition.data.kind !== 'file') throw new Error(`--task ${config.task.name}: its items are generated; use \`npm run digits\``);
  if (config.run.backend === 'webgpu' || config.run.backend === 'webgl') {
    throw new Error(`--backend ${config.run.backend} exists only in the browser; in Node use wasm or cpu`);
  }

  const backend = await initTensorflow(config.run.backend === 'auto' ? 'auto' : config.run.backend);
  console.error(`tfjs backend: ${backend.backend} (${backend.detail})`);
  for (const line of repeated ? computationChanges(repeated.record, backend.backend) : []) console.error(`--rerun ${extra.rerun}: ${line}`);
  const data = await taskData(definition, config);
  const preferences = typeof extra.preferences === 'string'
    ? await loadPreferencesFile(extra.preferences, programTask(config))
    : undefined;

  const outputDir = config.run.outputDir;
  const resume = typeof extra.resume === 'string' ? extra.resume : undefined;
  const inputs = [
    ...['resume', 'preferences', 'use-reward-model'].flatMap((flag) => (typeof extra[flag] === 'string' ? [{ flag, path: extra[flag] as string }] : [])),
    ...(initPath ? [{ flag: 'init-from', path: initPath }] : []),
  ]; // not --config: it was read whole (and is recorded now, as it was read) before --overwrite clears its folder
  const configRecord = parsed.configFile ? [recordFile('config file', parsed.configFile)] : [];
  checkOutputs([{ flag: 'output-dir', path: outputDir, kind: 'folder' }], inputs);
  // A fresh run never erases an earlier one by accident (the default output dir is the same every
  // time), a resume continues its own directory's run only, and one process writes a run.
  const plan = runDirPlan(outputDir, { resume, overwrite: Boolean(extra.overwrite) });
  if (plan === 'replace') refuseClearingInputs(outputDir, inputs);
  // The Q-language system's layout: checkpoints/checkpoint-N.prl, logs/training_log.txt,
  // logs/rewards.json, logs/eval_results.json and config.yaml; beside them the lab's latest.prl,
  // best.prl, config.json and metrics.jsonl.
  const checkpointsDir = join(outputDir, 'checkpoints');
  const logsDir = join(outputDir, 'logs');
  mkdirSync(outputDir, { recursive: true });
  const releaseLock = lockRunDir(outputDir);
  // Judged again under the lock: another process may have written a run since.
  if (runDirPlan(outputDir, { resume, overwrite: Boolean(extra.overwrite) }) !== plan) {
    releaseLock();
    throw new Error(`--output-dir ${outputDir} changed while this run started: try again`);
  }
  const metricsPath = join(outputDir, 'metrics.jsonl');
  const logPath = join(logsDir, 'training_log.txt');
  const bestPath = join(logsDir, 'best.json');
  /** Lines said before the run is sure to start: a run refused at its start leaves no log behind (a log is a run, to the next one). */
  let unlogged: string[] | null = [];
  /** A line for the user (stderr, unless it is step detail under --quiet) and for logs/training_log.txt. */
  const say = (line: string, detail = false) => {
    if (unlogged) unlogged.push(line);
    else appendFileSync(logPath, line + '\n');
    if (!(detail && quiet)) console.error(line);
  };

  const pool = createNodeSandboxPool({ size: config.sandbox.workers, limits: sandboxLimits(config), preludes: taskPreludes() });
  let runner: Runner | undefined;
  let shards: GradientShards | undefined;
  /** Wall time already in metrics.jsonl before a resume, so that wallMs keeps growing. */
  let wallOffset = 0;
  /** Whether the held-out report runs (the run is saved by then): a signal ends the report. */
  let reporting = false;
  // Ctrl-C and a kill end the run at the next step boundary with a checkpoint, or end the report.
  const interrupt = catchInterrupt(() => (reporting ? 'ending the held-out report; the run and its checkpoint are saved' : unlogged ? 'stopping before the run starts: its folder stays as it was' : 'finishing the current step and saving a checkpoint'));
  const stopAsked = () => interrupt.signal !== null;

  try {
    const rewardModel = typeof extra['use-reward-model'] === 'string' ? await openRewardModel(extra['use-reward-model'], config, extra) : undefined;
    if (algorithmDefinition(config.algorithm.name).dataParallel) {
      if (threads > 1) shards = await createNodeGradientShards(threads - 1, definition.policyConfig(config), backend.backend as 'wasm' | 'cpu', definition.grammarSpec(config));
      say(`update threads: ${threads}${threads > 1 ? ` (this one and ${threads - 1} gradient worker${threads > 2 ? 's' : ''}; each tfjs engine runs one thread)` : ''}`);
    }
    runner = await namingCheckpoint('init-from', initPath, () => createRunner(config, data, { pool, initFrom, preferences, rewardModel, gradientShards: shards?.shards, onLog: (text) => say(text) }));
    const opened = runner;
    const resumedMeta = resume !== undefined ? await namingCheckpoint('resume', resume, () => runner!.loadCheckpoint(readCheckpointFile(resume, 'resume')), { any: true }) : undefined;
    const algorithm = algorithmDefinition(config.algorithm.name);
    const groupSize = algorithm.groupSize?.(config) ?? config.algorithm.groupSize;
    const groups = preferences ? config.algorithm.batchSize : Math.max(1, Math.round(config.algorithm.batchSize / groupSize));
    // An epoch passes over the items RL samples from (Kolmogorov cuts pieces of long sequences: more than the file's lines).
    const epochSteps = Math.ceil((preferences?.length ?? data.trainedItems) / groups);
    // A step budget (--max-steps, or the task's), else --num-epochs passes.
    const stepBudget = config.run.maxSteps || algorithm.stepLimit?.(config) || 0;
    const total = stepBudget || config.run.numEpochs * epochSteps;
    // A resumed run already at its last step has nothing to train: said, before anything is rewritten.
    if (resume !== undefined && runner.globalStep >= total) throw new Error(`--resume ${resume}: the run is at step ${runner.globalStep}, and it trains to step ${total}: give --max-steps N, more than ${runner.globalStep}, to train on`);
    // So with its time budget: it would train no step and report again.
    const spentMs = resumedMeta && config.run.timeLimit > 0 ? checkpointWallMs(resumedMeta) : 0;
    if (spentMs >= config.run.timeLimit * 1000 && config.run.timeLimit > 0) throw new Error(`--resume ${resume}: the run has trained ${(spentMs / 1000).toFixed(1)} s, its time budget is ${config.run.timeLimit} s: give --time-limit S, more than ${Math.ceil(spentMs / 1000)}, to train on`);
    // Ctrl-C or a kill while the run was being made: it never started, and the folder stays as it was.
    if (stopAsked()) throw new Error(`${interrupt.signal} before the run started: nothing was trained or changed in ${outputDir}`);
    // The run is sure to start: only now does the earlier run go (a refused --init-from or
    // --resume leaves it as it was), and the log begins, or goes on for a resume of this run.
    if (plan === 'replace') clearRun(outputDir);
    mkdirSync(checkpointsDir, { recursive: true });
    mkdirSync(logsDir, { recursive: true });
    if (plan !== 'continue') writeFileSync(logPath, '');
    appendFileSync(logPath, unlogged.map((line) => line + '\n').join(''));
    unlogged = null;
    if (initFrom) say(resume !== undefined ? `its warm start (the KL reference): ${initPath}` : `policy initialised from ${initPath}`);
    if (data.note) say(data.note);
    if (resume !== undefined) {
      // The run's time so far: its figures' here, the checkpoint's in a folder of its own (the time budget counts it either way).
      wallOffset = plan === 'continue' ? truncateMetrics(metricsPath, runner.globalStep) : (writeFileSync(metricsPath, ''), checkpointWallMs(resumedMeta!));
      // As its figures past the resumed step, the numbered checkpoints past it are of the run before
      // this resume: they go (kept, they outlived the new ones --keep-checkpoints prunes).
      const later = plan === 'continue' ? numberedCheckpoints(checkpointsDir).filter((c) => c.step > runner!.globalStep) : [];
      for (const { file } of later) rmSync(join(checkpointsDir, file), { force: true });
      if (later.length) say(`removed ${later.map((c) => c.file).join(', ')}: past step ${runner.globalStep}, of the run before this resume`);
      // So is a best policy found past it (best.prl, and its score in best.json: the score to beat is of the steps kept).
      if (plan === 'continue' && (readBest(bestPath)?.step ?? 0) > runner.globalStep) {
        for (const file of [join(outputDir, 'best.prl'), bestPath]) rmSync(file, { force: true });
        say(`removed best.prl: its step is past ${runner.globalStep}, of the run before this resume`);
      }
      say(`resumed from ${resume} at step ${runner.globalStep}${plan === 'continue' ? '' : ` into ${outputDir}, a run of its own from here`}`);
    } else {
      writeFileSync(metricsPath, '');
    }
    const rewards = RewardLog.fromMetrics(metricsPath);
    /** Appends a step's figures to metrics.jsonl, and those of logs/rewards.json to its log. */
    const record = (step: number, values: Record<string, number>, wallMs: number) => {
      const entries = Object.entries(values);
      appendFileSync(metricsPath, entries.map(([name, value]) => JSON.stringify({ step, name, value, wallMs })).join('\n') + '\n');
      for (const [name, value] of entries) rewards.add(step, name, value);
    };
    // Written once the run is sure to start: a refused --resume leaves the earlier config as it was.
    const runRecord = newRunRecord(['npm', 'run', 'train', '--', ...argv], backend.backend, config, [
      ...data.files,
      ...(initPath ? [recordFile('warm start', initPath)] : []),
      ...configRecord,
      ...(typeof extra.preferences === 'string' ? [recordFile('preferences', extra.preferences)] : []),
      ...(typeof extra['use-reward-model'] === 'string' ? [recordFile('reward model', extra['use-reward-model'])] : []),
    ], shards ? threads : 1);
    const shaping = new Set([...parsed.extraGiven, ...Object.keys(repeated?.extras ?? {}), ...restored.map(([flag]) => flag)]);
    runRecord.extras = Object.fromEntries(SHAPING_FLAGS.flatMap((flag) => (shaping.has(flag) ? [[flag, extra[flag]!]] : [])));
    writeFileSync(join(outputDir, 'config.json'), JSON.stringify(config, null, 2) + '\n');
    // config.yaml also keeps the flags that shaped the run (not --resume: a config starts a run), so --config repeats it.
    const commandFlags = Object.fromEntries(Object.entries(runRecord.extras).filter(([flag]) => flag !== 'resume'));
    writeFileSync(join(outputDir, 'config.yaml'), configToYaml(config, { ...commandFlags, threads: String(threads) }));
    if (resume !== undefined) {
      // A checkpoint in this folder is overwritten (latest.prl) or pruned as the run goes on: the
      // record names a copy kept beside the others, so that --rerun finds the file it resumed from.
      const inside = resolve(resume).startsWith(resolve(outputDir) + sep);
      const kept = inside ? join(checkpointsDir, `resumed-from-step-${runner.globalStep}.prl`) : resume;
      if (inside && resolve(kept) !== resolve(resume)) writeAtomic(kept, readCheckpointFile(resume, 'resume'));
      runRecord.files.push(recordFile('resumed from', kept));
      if (runRecord.extras?.resume !== undefined) runRecord.extras.resume = kept;
      // Continued in place: the record this one replaces, and those before it, are kept in it.
      const earlier = sessionsSoFar(outputDir);
      if (earlier.length) runRecord.previous = earlier;
    }
    writeRunRecord(outputDir, runRecord);

    const started = performance.now();
    const startStep = runner.globalStep;

    const saveCheckpoint = async (reason: string) => {
      const bytes = await runner!.saveCheckpoint();
      const numbered = join(checkpointsDir, `checkpoint-${runner!.globalStep}.prl`);
      writeAtomic(numbered, bytes);
      writeAtomic(join(outputDir, 'latest.prl'), bytes);
      rewards.write(join(logsDir, 'rewards.json'));
      say(`checkpoint (${reason}): ${numbered} (${(bytes.length / 1024).toFixed(0)} KiB)`, true);
      // The last --keep-checkpoints numbered ones stay (latest.prl and best.prl always); older ones
      // go only once the new one is written.
      const keep = config.run.keepCheckpoints;
      if (keep > 0) for (const { file } of numberedCheckpoints(checkpointsDir).slice(0, -keep)) rmSync(join(checkpointsDir, file), { force: true });
    };
    // The best validation score so far, kept beside best.prl so that a resume goes on comparing with it.
    let bestScore = plan === 'continue' ? (readBest(bestPath)?.score ?? -Infinity) : -Infinity;
    const search = searchOfK(definition, evalK);
    const figures = (prefix: string, result: TaskEvaluation) => Object.fromEntries(Object.entries(result.metrics).map(([name, value]) => [`${prefix}_${name}`, value]));
    /** The periodic evaluation, on the validation items: best.prl is the policy of the best score there, never of the held-out one's. */
    /** An evaluation a signal may end (between items, and inside a long search): undefined when it did. */
    const stoppable = (items: readonly unknown[]) =>
      opened.evaluate(items, { limit: config.run.evalSamples, search, shouldStop: stopAsked }).catch((error: unknown) => {
        if (error instanceof SearchStopped) return undefined;
        throw error;
      });
    const validate = async (): Promise<TaskEvaluation | undefined> => {
      const result = await stoppable(data.validation);
      if (!result) return undefined;
      if (result.score > bestScore) {
        bestScore = result.score;
        writeAtomic(join(outputDir, 'best.prl'), await runner!.saveCheckpoint());
        writeAtomic(bestPath, new TextEncoder().encode(JSON.stringify({ step: runner!.globalStep, score: bestScore }) + '\n')); // whole or not at all: a cut file would read as no best
      }
      record(runner!.globalStep, figures('val', result), wallOffset + performance.now() - started);
      return result;
    };
    /** Items sampled and never solved, with how often (a problem no sample ever solves may have a wrong test case). */
    const tries = new Map<number, { label: string; tries: number; solved: boolean }>();

    // run.timeLimit (--time-limit): a wall-clock budget, recorded in the run's config like any field.
    const timeLimit = config.run.timeLimit > 0 ? config.run.timeLimit : Infinity;
    // The budget counts the run's time before a resume too (metrics.jsonl's wall time).
    while (runner.globalStep < total && !stopAsked() && (wallOffset + performance.now() - started) / 1000 < timeLimit) {
      await new Promise((resolve) => setImmediate(resolve)); // lets a signal's handler run between steps
      const result = await runner.step({ shouldStop: stopAsked });
      const wallMs = wallOffset + performance.now() - started;
      record(result.step, result.metrics, wallMs);
      for (const sample of result.samples) {
        const entry = tries.get(sample.itemIndex) ?? { label: sample.label ?? itemLabel(sample.target), tries: 0, solved: false };
        entry.tries += 1;
        entry.solved ||= Boolean(sample.correct);
        tries.set(sample.itemIndex, entry);
      }
      const secondsPerStep = (wallMs - wallOffset) / 1000 / (runner.globalStep - startStep);
      say(formatStep(result, total, secondsPerStep), true);
      if (config.run.checkpointFreq > 0 && runner.globalStep % config.run.checkpointFreq === 0) await saveCheckpoint('periodic');
      if (config.run.evalFreq > 0 && runner.globalStep % config.run.evalFreq === 0) {
        const result = await validate();
        say(`validation @${runner.globalStep} (${result ? `${result.n} scored, --eval-samples, of ` : ''}${data.validationName}): ${result?.summary ?? 'stopped'}`);
      }
    }
    const interrupted = stopAsked();
    await saveCheckpoint(interrupted ? 'interrupted' : 'final');
    const steps = runner.globalStep - startStep;
    const seconds = (performance.now() - started) / 1000;
    say(`trained ${steps} step${steps === 1 ? '' : 's'} in ${seconds.toFixed(1)} s (${(steps / seconds).toFixed(3)} steps/s)`);
    const unsolved = [...tries.values()].filter((entry) => !entry.solved).sort((a, b) => b.tries - a.tries);
    writeFileSync(join(logsDir, 'unsolved.json'), JSON.stringify({ steps: runner.globalStep, sampled: tries.size, never_solved: unsolved }, null, 2) + '\n');
    if (unsolved.length) {
      const shown = unsolved.slice(0, 10).map((entry) => `${entry.label} (${entry.tries} samples)`).join('; ');
      say(`${unsolved.length} of the ${tries.size} training ${definition.data.itemName} sampled were never solved (most tried first${config.task.name === 'functions' ? '; a wrong test case shows up here' : ''}): ${shown}${unsolved.length > 10 ? '; ... (logs/unsolved.json)' : ''}`);
    }
    runRecord.ended = new Date().toISOString();
    runRecord.steps = runner.globalStep;
    runRecord.stopped = interrupted ? 'interrupted' : runner.globalStep >= total ? (stepBudget ? 'step budget' : 'epoch budget') : 'time budget';
    writeRunRecord(outputDir, runRecord);

    if (!interrupted && !extra['skip-report']) {
      // The report: the held-out items, scored once at the end; nothing was chosen on them.
      say(`held-out report: ${Math.min(config.run.evalSamples, data.heldout.length)} ${definition.data.itemName} of ${config.run.evalDataPath} (${search.name}), never trained or chosen on...`);
      reporting = true;
      const result = await stoppable(data.heldout);
      if (!result) {
        say(`held-out report stopped: no figures written (the run and latest.prl are saved; \`npm run eval -- --checkpoint ${join(outputDir, 'latest.prl')} --data ${config.run.evalDataPath}\` scores it later)`);
        return;
      }
      record(runner.globalStep, figures('eval', result), wallOffset + performance.now() - started);
      writeFileSync(join(logsDir, 'eval_results.json'), JSON.stringify({ step: runner.globalStep, k: evalK, search: search.name, data: config.run.evalDataPath, ...result.json }, null, 2) + '\n');
      const table = evaluationTable(result, `held-out ${definition.data.itemName} (report), ${search.name}, policy step ${runner.globalStep}`);
      appendFileSync(logPath, table + '\n');
      console.log(table);
    }
  } finally {
    interrupt.dispose();
    runner?.dispose();
    await Promise.all([pool.close(), shards?.close()]);
    releaseLock();
  }
}

/**
 * The seed's `--use-dpo`, and `--preferences` (which only DPO learns from): algorithm dpo, with
 * TRL's DPO beta of 0.1 unless --beta was given. Another --algorithm with them is refused.
 */
export function withDpoSwitches(config: LabConfig, extra: Record<string, string | boolean | undefined>, argv: readonly string[]): LabConfig {
  const why = extra['use-dpo'] ? '--use-dpo' : typeof extra.preferences === 'string' ? '--preferences' : null;
  if (extra['test-case-rewards-only']) {
    const learned = [why, typeof extra['use-reward-model'] === 'string' ? '--use-reward-model' : null, config.algorithm.name === 'dpo' ? '--algorithm dpo' : null].filter(Boolean);
    if (learned.length) throw new Error(`--test-case-rewards-only: the reward is the tests' alone, so ${learned.join(' and ')} cannot go with it`);
    return config.task.name === 'functions' ? { ...config, functions: { ...config.functions, rewardType: 'test_cases' } } : config;
  }
  if (!why) return config;
  const given = (flag: string) => argv.some((arg) => arg === flag || arg.startsWith(`${flag}=`));
  if (given('--algorithm') && config.algorithm.name !== 'dpo') throw new Error(`${why} trains with DPO: drop --algorithm ${config.algorithm.name}, or give --algorithm dpo`);
  // With --preferences no group is sampled: the group size stays as given.
  // What was set stays; beta and the group size not set take dpo's defaults (with a pair file no group is sampled).
  const dpo = withVariant(config, { algorithm: 'dpo' });
  return why === '--preferences' ? { ...dpo, algorithm: { ...dpo.algorithm, groupSize: config.algorithm.groupSize } } : dpo;
}

/** The reward model of --use-reward-model, refused unless it reads this task's programs. */
async function openRewardModel(path: string, config: LabConfig, extra: Record<string, string | boolean | undefined>): Promise<NonNullable<LoopDeps['rewardModel']>> {
  const weight = Number(extra['reward-model-weight']);
  if (!Number.isFinite(weight)) throw new Error(`--reward-model-weight: expected a number, got "${String(extra['reward-model-weight'])}"`);
  const task = programTask(config);
  try {
    const { model, meta } = await RewardModel.load(readCheckpointFile(path, 'use-reward-model'), (rmConfig) => programTask(rmConfig).policyConfig(rmConfig));
    if (meta.config.task.name !== config.task.name || meta.vocab?.size !== task.vocab.size) {
      model.dispose();
      throw new Error(`it scores ${meta.config.task.name} programs, this run writes ${config.task.name} programs`);
    }
    console.error(`reward model ${path}: ${weight} x its score ${extra['reward-model-alone'] ? 'is the reward' : 'is added to the task\'s reward'}`);
    return { model, weight, alone: Boolean(extra['reward-model-alone']) };
  } catch (error) {
    throw new Error(`--use-reward-model ${path}: ${(error as Error).message}`);
  }
}

/** A training sequence as the never-solved list names it: its first values and its length. */
function itemLabel(target: readonly number[]): string {
  return `[${target.slice(0, 8).join(', ')}${target.length > 8 ? ', ...' : ''}] (${target.length} values)`;
}

/** The search of `--eval-k K`: the task's own search of K samples, or best-of-K. */
function searchOfK(definition: TaskDefinition, k: number): SearchSpec {
  return definition.searches.find((search) => search.k === k && !search.options) ?? { name: k === 1 ? 'greedy' : `best-of-${k}`, k };
}

/**
 * A warm start's model is the run's unless a flag or the config file set its shape: `--init-from
 * public/pretrained.prl` trains the shipped policy as it is, with no model flags repeated. The
 * task comes with it when none was given. Safetensors files carry no config: the run's shape
 * judges them.
 */
async function adoptWarmStart(config: LabConfig, given: ReadonlySet<string>, initFrom: Uint8Array | undefined, path: string | undefined): Promise<LabConfig> {
  if (!initFrom || isSafetensors(initFrom)) return config;
  let meta: Awaited<ReturnType<typeof decodeCheckpoint>>['meta'];
  try {
    ({ meta } = await decodeCheckpoint(initFrom));
  } catch (error) {
    throw new Error(`--init-from ${path}: ${(error as Error).message}`);
  }
  const input = structuredClone(config) as unknown as Record<string, Record<string, unknown>>;
  const adopt = (section: 'task' | 'model', key: string) => {
    if (!given.has(`${section}.${key}`)) input[section][key] = (meta.config[section] as Record<string, unknown>)[key];
  };
  // --task said one task and the warm start is another's: refused now, before any data loads.
  if (given.has('task.name') && meta.config.task.name !== config.task.name) throw new Error(`--init-from ${path}: the checkpoint is for task ${meta.config.task.name}, not ${config.task.name} (--task)`);
  if (!given.has('task.name') && meta.config.task.name !== config.task.name) {
    // Another task: the run is that task's, with what was set carried over.
    return adoptWarmStart(withVariant(config, { task: meta.config.task.name }), given, initFrom, path);
  }
  for (const key of Object.keys(meta.config.model)) adopt('model', key);
  // The prompt's shape (the longest sequence shown, say) is the policy's too.
  for (const key of Object.keys(meta.config.task)) if (key !== 'name' && key in config.task) adopt('task', key);
  const adopted = parseConfig(input);
  const change = modelDifference(config, adopted);
  if (change) console.error(`--init-from ${path}: the model is the checkpoint's (${change})`);
  return adopted;
}

if (isEntry(import.meta.url)) runMain(() => trainCommand(process.argv.slice(2)));
