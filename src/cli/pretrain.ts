/**
 * `npm run pretrain -- [flags]`: supervised warm start of a task's policy, cross-entropy on the
 * program tokens under the grammar mask. Kolmogorov: (sequence -> program) pairs; functions
 * (`--task functions`): (problem -> program) pairs from its generator, evaluated greedily on
 * the held-out problems (--eval-data-path).
 * Pairs stream from the task's own generator (seeded) or come from a JSONL file whose
 * records carry a `program` (--source FILE). Sequences of the held-out and dev files are never
 * trained on (data.ts kolmogorovProtectedFiles, and --eval-data-path): such pairs are dropped.
 *
 * Every --eval-every steps it reports the held-out loss (the held-out file's own programs)
 * and greedy held-out accuracy and compression rate (programs run in the sandbox), and
 * appends them to metrics.jsonl. The result is a checkpoint that `npm run train --
 * --init-from FILE` starts RL from.
 */
import { appendFileSync, existsSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { SupervisedTrainer } from '../core/algorithms/supervised';
import { KolmogorovGrammar } from '../core/kolmogorov/grammar';
import { PairStream, sequenceKey, toPair, type Pair } from '../core/kolmogorov/pairs';
import { scheduledRate } from '../core/model/schedule';
import { deepenCheckpoint } from '../core/model/deepen';
import { CheckpointError, compatibleWith, decodeCheckpoint } from '../core/checkpoint';
import { policyConfigOf } from '../core/export';
import { isSafetensors } from '../core/safetensors';
import type { LabConfig } from '../core/config';
import { FunctionGrammar } from '../core/functions/grammar';
import { defaultGeneratorOptions, generateProblem, generateProblems, problemKey, type GeneratedProblem } from '../core/functions/generator';
import { encodeProblemPrompt, functionsPolicyConfig, promptBudget } from '../core/functions/task';
import type { Grammar } from '../core/grammar';
import type { PolicyConfig, TransformerPolicy } from '../core/model/transformer';
import { Rng } from '../core/rng';
import { kolmogorovPolicyConfig } from '../core/kolmogorov/task';
import { createFunctionsRunner } from '../core/functions/runner';
import { createKolmogorovRunner } from '../core/kolmogorov/runner';
import { taskPreludes } from '../core/runner';
import type { SandboxPool } from '../core/sandbox/pool';
import { checkOutputs } from './outputs';
import { catchInterrupt, parseArgs, positiveFlag, runMain, type ExtraFlag, usage, warnOversubscribed } from './args';
import { functionsProtectedProblems, kolmogorovProtectedSequences, loadKolmogorovFile, loadProblemsFile, namingCheckpoint, readCheckpointFile } from './data';
import { sandboxLimits } from './report';
import { createNodeGradientShards } from './gradientHost';
import type { GrammarSpec } from '../core/grammar';
import { shardFailureNote } from '../core/gradientShards';
import { createNodeSandboxPool } from './sandboxHost';
import { initTensorflow } from './tfBackend';

const extras: ExtraFlag[] = [
  { name: 'help', doc: 'show this help', boolean: true },
  { name: 'steps', doc: 'supervised updates', defaultValue: '2000' },
  { name: 'source', doc: '"generator" or a JSONL file of {"sequence","program"} pairs', defaultValue: 'generator' },
  { name: 'max-train-length', doc: 'train only on generated sequences of at most N values (0: all)', defaultValue: '0' },
  { name: 'threads', doc: 'threads computing gradients (data parallelism; 1 = this thread only)', defaultValue: '2' },
  { name: 'warmup', doc: 'steps of linear learning-rate warm-up before the cosine decay', defaultValue: '50' },
  { name: 'eval-every', doc: 'held-out loss and accuracy every N steps', defaultValue: '200' },
  { name: 'eval-limit', doc: 'held-out sequences used for the periodic accuracy', defaultValue: '100' },
  { name: 'init-from', doc: 'checkpoint whose weights training continues from (e.g. a second stage on longer sequences); a .prl with fewer layers than --layers grows: the new blocks go on top and start as the identity' },
  { name: 'out', doc: 'checkpoint to write; its metrics go beside it (NAME-metrics.jsonl)', defaultValue: 'runs/pretrain/pretrained.prl' },
  { name: 'overwrite', doc: 'replace --out (and its metrics) when it exists (without it, an existing file is refused)', boolean: true },
];

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  if (argv.includes('--help') || argv.includes('-h')) {
    console.log(usage('pretrain', 'Supervised warm start on (sequence -> program) pairs before RL.', extras));
    return;
  }
  const { config, extra, given: flagged } = parseArgs(argv, extras);
  const [steps, evalEvery, evalLimit, threads] = (['steps', 'eval-every', 'eval-limit', 'threads'] as const).map((name) => positiveFlag(name, extra[name], true));
  const warmup = Number(extra.warmup);
  if (!Number.isInteger(warmup) || warmup < 0) throw new Error(`--warmup: expected a whole number of steps, at least 0, got "${String(extra.warmup)}"`);
  // The digit tasks warm up inside their own command, on their labelled examples.
  if (config.task.name !== 'kolmogorov' && config.task.name !== 'functions') throw new Error(`--task ${config.task.name}: pretrain warms up kolmogorov or functions; a digit task warms up in \`npm run digits\` (--warm-start-steps)`);
  warnOversubscribed(threads);
  const out = String(extra.out);
  const metricsPath = join(dirname(out), `${basename(out).replace(/\.prl$/, '')}-metrics.jsonl`);
  // Nothing the command reads is written over, and nothing that exists unless asked.
  const inputs = [
    { flag: 'init-from', path: typeof extra['init-from'] === 'string' ? extra['init-from'] : '' },
    { flag: 'source', path: extra.source === 'generator' ? '' : String(extra.source) },
    { flag: 'data-path', path: config.run.dataPath },
    { flag: 'eval-data-path', path: config.run.evalDataPath },
  ];
  checkOutputs([{ flag: 'out', path: out, kind: 'file' }, { flag: 'out (its metrics)', path: metricsPath, kind: 'file' }], inputs);
  if (!extra.overwrite && existsSync(out)) throw new Error(`--out ${out} already exists: give another --out, or --overwrite to replace it`);
  const backend = await initTensorflow(config.run.backend === 'auto' ? 'auto' : (config.run.backend as 'wasm' | 'cpu'));
  console.error(`tfjs backend: ${backend.backend} (${backend.detail})`);

  const pool = createNodeSandboxPool({ size: config.sandbox.workers, limits: sandboxLimits(config), preludes: taskPreludes() });
  const given = typeof extra['init-from'] === 'string' ? readCheckpointFile(extra['init-from'], 'init-from') : undefined;
  const { setup, deepened } = await namingCheckpoint('init-from', String(extra['init-from']), async () => {
    const { initFrom, deepened } = await deepenedWarmStart(given, config, flagged.has('model.layers'));
    return { deepened, setup: await (config.task.name === 'functions' ? functionsSetup(config, extra, pool, initFrom) : kolmogorovSetup(config, extra, pool, initFrom)) };
  });
  const { runner } = setup;
  if (given) console.error(`policy initialised from ${extra['init-from']}${deepened ? `, deepened from ${deepened} to ${config.model.layers} layers (the new blocks start as the identity)` : ''}`);
  // Data parallelism: tfjs-wasm in Node uses one thread, so each further thread is a worker
  // with its own engine that computes the gradients of a share of every batch.
  const gradientHost = threads > 1 ? await createNodeGradientShards(threads - 1, setup.policyConfig, backend.backend as 'wasm' | 'cpu', setup.shardGrammar) : null;
  const trainer = new SupervisedTrainer(
    runner.policy,
    setup.grammar,
    { learningRate: config.algorithm.learningRate, gradClip: config.algorithm.gradClip },
  );
  trainer.useShards(gradientHost?.shards ?? [], (message) => console.error(shardFailureNote(message)));
  console.error(`training threads: ${threads}${threads > 1 ? ` (this one and ${threads - 1} gradient worker${threads > 2 ? 's' : ''})` : ''}`);
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(metricsPath, '');
  const started = performance.now();
  const log = (step: number, values: Record<string, number>) => {
    const wallMs = performance.now() - started;
    appendFileSync(metricsPath, Object.entries(values).map(([name, value]) => JSON.stringify({ step, name, value, wallMs })).join('\n') + '\n');
  };

  // Ctrl-C and a kill save the weights so far (the next step boundary), as train does.
  const interrupt = catchInterrupt(() => `finishing the current step and saving ${out}`);
  const save = async () => {
    const bytes = await runner.saveCheckpoint();
    writeFileSync(`${out}.tmp`, bytes);
    renameSync(`${out}.tmp`, out);
  };
  try {
    let tokens = 0;
    for (let step = 1; step <= steps && !interrupt.signal; step++) {
      // A turn of the event loop per step: an update that never leaves the microtask queue would
      // never let a signal's handler run (one thread, no worker messages to wait for).
      await new Promise((resolve) => setImmediate(resolve));
      trainer.optimizer.learningRate = scheduledRate(config.algorithm.learningRate, step, steps, warmup);
      const batch = setup.batch(config.algorithm.batchSize);
      tokens += batch.reduce((sum, pair) => sum + pair.prompt.length + pair.tokens.length, 0);
      const result = await trainer.step(batch);
      log(step, { pretrain_loss: result.loss, pretrain_token_accuracy: result.tokenAccuracy, learning_rate: trainer.optimizer.learningRate });
      const seconds = (performance.now() - started) / 1000;
      if (step % 10 === 0 || step === 1) {
        console.error(
          `pretrain ${step}/${steps}  loss ${result.loss.toFixed(4)}  token acc ${result.tokenAccuracy.toFixed(3)}  ` +
            `${(tokens / seconds).toFixed(0)} tok/s  ETA ${(((steps - step) * seconds) / step / 60).toFixed(1)}m` +
            (result.skipped ? '  SKIPPED' : ''),
        );
      }
      if (step % evalEvery === 0 || step === steps) {
        const heldoutLoss = await trainer.loss(setup.heldoutPairs);
        const { values, text } = await setup.evaluate(evalLimit);
        log(step, { heldout_loss: heldoutLoss, ...values });
        console.error(`  ${config.run.evalDataPath} @${step}: loss ${heldoutLoss.toFixed(4)}  ${text}`);
        await save();
      }
    }
    if (interrupt.signal) await save();
    const dropped = setup.dropped();
    if (dropped) console.error(dropped);
    console.error(`wrote ${out}`);
  } finally {
    interrupt.dispose();
    runner.dispose();
    await Promise.all([pool.close(), gradientHost?.close()]);
  }
}

/**
 * The warm start's weights: the checkpoint as it is, or, when --layers asks for more layers than
 * it has (and it is otherwise the same shape), deepened with identity blocks on top
 * (model/deepen.ts). Without --layers a shallower checkpoint is refused as any other shape is.
 */
async function deepenedWarmStart(bytes: Uint8Array | undefined, config: LabConfig, layersGiven: boolean): Promise<{ initFrom?: Uint8Array; deepened?: number }> {
  if (!bytes || isSafetensors(bytes) || !layersGiven) return { initFrom: bytes };
  const decoded = await decodeCheckpoint(bytes);
  const { meta } = decoded;
  if (meta.config.task.name !== config.task.name || meta.config.model.layers >= config.model.layers) return { initFrom: bytes };
  // Every other difference is said as the loader says it, all of them at once.
  const problem = compatibleWith(meta, { ...config, model: { ...config.model, layers: meta.config.model.layers } });
  if (problem) throw new CheckpointError(problem);
  const { bytes: initFrom, fromLayers } = await deepenCheckpoint(decoded, policyConfigOf(config), config.run.seed);
  return { initFrom, deepened: fromLayers };
}

/** What the warm start needs of a task: its runner, grammar, pairs, held-out pairs and evaluation. */
interface PretrainSetup {
  runner: { policy: TransformerPolicy; saveCheckpoint(): Promise<Uint8Array>; dispose(): void };
  policyConfig: PolicyConfig;
  grammar: Grammar<unknown>;
  shardGrammar: GrammarSpec;
  batch(size: number): Pair[];
  heldoutPairs: Pair[];
  evaluate(limit: number): Promise<{ values: Record<string, number>; text: string }>;
  /** A note on pairs the stream dropped, or ''. */
  dropped(): string;
}

async function kolmogorovSetup(config: LabConfig, extra: Record<string, string | boolean | undefined>, pool: SandboxPool, initFrom?: Uint8Array): Promise<PretrainSetup> {
  const heldout = await loadKolmogorovFile(config.run.evalDataPath);
  // Never a pair whose sequence is a held-out or dev one, whichever file the progress is measured on.
  const exclude = new Set((await kolmogorovProtectedSequences([config.run.evalDataPath])).map((record) => sequenceKey(record.sequence)));
  const limits = { maxSequenceLength: config.task.maxSequenceLength, context: config.model.context, maxProgramTokens: config.model.maxProgramTokens };
  // The pair stream: the generator (never a held-out sequence) or a file, cycled.
  const records = extra.source === 'generator' ? undefined : await loadKolmogorovFile(String(extra.source));
  const maxTrainLength = Number(extra['max-train-length']);
  if (!Number.isInteger(maxTrainLength) || maxTrainLength < 0) throw new Error('--max-train-length: expected a whole number');
  const stream = new PairStream({ ...limits, seed: config.run.seed + 1_000_003, exclude, records, maxTrainLength });
  const runner = await createKolmogorovRunner(config, { train: [], heldout }, { pool, initFrom });
  return {
    runner,
    policyConfig: kolmogorovPolicyConfig(config),
    grammar: new KolmogorovGrammar() as Grammar<unknown>,
    shardGrammar: { task: 'kolmogorov' },
    batch: (size) => stream.batch(size),
    heldoutPairs: heldout.map((record) => toPair(record, limits)).filter((p): p is Pair => p !== null).slice(0, 256),
    async evaluate(limit) {
      const { rows: _rows, searches: _searches, byLength: _byLength, ...metrics } = await runner.evaluate(heldout, { limit });
      return {
        values: { heldout_accuracy: metrics.accuracy, heldout_compression_rate: metrics.compressionRate },
        text: `accuracy ${metrics.accuracy.toFixed(3)}  compression ${metrics.compressionRate.toFixed(3)} (gzip ${metrics.gzipRate.toFixed(3)}) on ${metrics.n}`,
      };
    },
    dropped: () => (stream.dropped ? `dropped ${stream.dropped} pairs (a held-out or dev sequence, program too long, or not tokenisable)` : ''),
  };
}

/**
 * The functions task's warm start: (problem -> program) pairs from the generator
 * (functions/generator.ts), never a problem equal to a held-out one, plus the training
 * problems of --source FILE when given (problems without a reference program teach nothing
 * supervised, so a file only adds to the exclusions there). Held-out: --eval-data-path.
 */
async function functionsSetup(config: LabConfig, extra: Record<string, string | boolean | undefined>, pool: SandboxPool, initFrom?: Uint8Array): Promise<PretrainSetup> {
  const heldout = loadProblemsFile(config.run.evalDataPath);
  // Never a generated problem equal to one of the held-out or dev problems, whichever file the progress is measured on.
  const exclude = new Set(functionsProtectedProblems([config.run.evalDataPath]).map(problemKey));
  const maxPrompt = promptBudget(config);
  const toPair = ({ problem, program }: GeneratedProblem): Pair => ({ prompt: encodeProblemPrompt(problem, config.functions.promptTests, maxPrompt), tokens: program });
  const options = { ...defaultGeneratorOptions, maxProgramTokens: config.model.maxProgramTokens };
  const rng = new Rng(config.run.seed + 1_000_003);
  let dropped = 0;
  const next = (): Pair => {
    for (;;) {
      const made = generateProblem(rng, options);
      if (made && !exclude.has(problemKey(made.problem))) return toPair(made);
      dropped += 1;
    }
  };
  // Held-out loss needs reference programs: a fixed generated set from its own seed stands in.
  const heldoutPairs = generateProblems(256, config.run.seed + 7_000_001, options, exclude).map(toPair);
  if (extra.source !== 'generator') throw new Error('--source: the functions warm start draws its pairs from the generator; give training problems to `npm run train -- --problems FILE`');
  const runner = await createFunctionsRunner(config, [], { pool, initFrom });
  return {
    runner,
    policyConfig: functionsPolicyConfig(config),
    grammar: new FunctionGrammar(config.model.maxProgramTokens) as Grammar<unknown>,
    shardGrammar: { task: 'functions', budget: config.model.maxProgramTokens },
    batch: (size) => Array.from({ length: size }, next),
    heldoutPairs,
    async evaluate(limit) {
      const result = await runner.evaluate(heldout, { limit });
      return { values: { heldout_solved: result.solved }, text: `greedy solved ${result.solved.toFixed(3)} of ${result.n} held-out problems` };
    },
    dropped: () => (dropped ? `dropped ${dropped} generated problems (uninformative tests, or equal to a held-out problem)` : ''),
  };
}

runMain(main);
