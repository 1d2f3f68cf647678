/**
 * `npm run eval -- --checkpoint FILE --data FILE`: KT metrics of a trained policy on a
 * dataset (greedy, or best-of-k with --k), beside gzip and LZMA of the same data. A functions
 * checkpoint (or `--task functions`) is evaluated per problem instead: `n`, `solved`,
 * `pass_at_1` and `per_problem` in its JSON.
 * `npm run eval -- --programs FILE`: scores programs someone else wrote (a JSONL of
 * `{"sequence", "program"}`, the way the benchmark scores prompted language models) with
 * the same metrics. `--json` prints one JSON object with snake_case keys; `--out FILE`
 * also writes it to a file.
 * `npm run eval -- --checkpoint FILE --reference WARMSTART --preferences PAIRS.jsonl --json`: DPO's
 * implicit-reward figures of a policy against its reference on preference pairs (TRL's
 * rewards/accuracies and rewards/margins): one object with `n`, `rewards_accuracies`,
 * `rewards_margins`.
 */
import type { KolmogorovRecord } from '../core/data/records';
import { ktMetrics, ktMetricsByLength, type ScoredSample } from '../core/kolmogorov/metrics';
import { parseProgram, printProgram } from '../core/kolmogorov/program';
import { programToTokens } from '../core/kolmogorov/grammar';
import { splitSearch } from '../core/kolmogorov/split';
import { repairSearch } from '../core/kolmogorov/repair';
import { programBits, type PriorName } from '../core/kolmogorov/prior';
import { taskPreludes, programTask, searchOf } from '../core/runner';
import type { FoundBy } from '../core/kolmogorov/evaluate';
import { taskDefinition } from '../core/registry';
import type { SandboxJob } from '../core/sandbox/outcome';
import { defaultConfig } from '../core/config';
import { parseArgs, positiveFlag, runMain, usage, type ExtraFlag } from './args';
import { decodeCheckpoint } from '../core/checkpoint';
import { printable } from '../core/data/jsonl';
import type { FunctionsConfig } from '../core/functions/config';
import type { FunctionEvaluation } from '../core/functions/evaluate';
import type { SearchOptions as FunctionSearchOptions, Sampling, SearchResult, Selection } from '../core/functions/search';
import { encodeProblemPrompt, promptBudget } from '../core/functions/task';
import { openAnyCheckpointRunner, openCheckpointRunner, openFunctionsCheckpointRunner } from './checkpointRunner';
import { loadItemsFile, loadKolmogorovFile, loadKolmogorovLines, loadProblemsReport, namingCheckpoint, readCheckpointFile } from './data';
import { checkOutputs, writeOutputFile } from './outputs';
import { evaluationTable, formatLengthTable, formatMetricsTable, metricsJson, progressLine, sandboxLimits, type EvalMetrics } from './report';
import { createNodeSandboxPool } from './sandboxHost';
import { initTensorflow } from './tfBackend';
import { scorePreferences } from '../core/algorithms/dpo';
import { tensorArrays } from '../core/checkpoint';
import { checkpointWeights } from '../core/loop';
import { TransformerPolicy } from '../core/model/transformer';
import { loadPreferencesFile } from './data';
import * as tf from '@tensorflow/tfjs';

/** DPO's implicit-reward figures of a checkpoint against its reference on a file of preference pairs. */
async function scorePreferenceFile(checkpointPath: string, referencePath: string, pairsPath: string, betaText: string | undefined, backendName: string): Promise<Record<string, number>> {
  await initTensorflow(backendName as 'auto' | 'wasm' | 'cpu');
  const bytes = readCheckpointFile(checkpointPath, 'checkpoint');
  const { meta, tensors } = await namingCheckpoint('checkpoint', checkpointPath, () => decodeCheckpoint(bytes));
  const config = meta.config;
  const beta = betaText === undefined ? (config.algorithm.name === 'dpo' ? config.algorithm.beta : 0.1) : positiveFlag('beta', betaText);
  if (config.task.name !== 'kolmogorov' && config.task.name !== 'functions') throw new Error(`--preferences: a ${config.task.name} checkpoint; pair files are read for kolmogorov`);
  const task = programTask(config);
  const pairs = await loadPreferencesFile(pairsPath, task);
  const policy = new TransformerPolicy(task.policyConfig(config), config.run.seed);
  const reference = new TransformerPolicy(task.policyConfig(config), config.run.seed);
  try {
    policy.setWeights(tensorArrays(tensors, 'weights'));
    try {
      reference.setWeights(await checkpointWeights(readCheckpointFile(referencePath, 'reference'), config, task.vocab));
    } catch (error) {
      throw new Error(`--reference ${referencePath}: ${(error as Error).message}`);
    }
    // An IPO run's figures are of per-token means, as its training compared them.
    const perToken = config.algorithm.name === 'dpo' && (config.algorithm as { dpoLossType?: string }).dpoLossType === 'ipo';
    const scored = await scorePreferences(policy, reference, task.grammar, pairs, beta, { perToken });
    return Object.fromEntries([['beta', beta], ...Object.entries(scored).map(([name, value]) => [name.replace('/', '_'), value])]);
  } finally {
    policy.dispose();
    reference.dispose();
    tf.disposeVariables();
  }
}

const extras: ExtraFlag[] = [
  { name: 'help', doc: 'show this help', boolean: true },
  { name: 'checkpoint', doc: 'checkpoint file of the policy to evaluate' },
  { name: 'programs', doc: 'JSONL of {"sequence", "program"} to score instead of a policy (a program the bit prior cannot price, with a value past 255 or a count the grammar has no token for, counts as a failure, its line named)' },
  { name: 'data', doc: 'JSONL of sequences to evaluate the checkpoint on', defaultValue: 'datasets/heldout.jsonl' },
  { name: 'k', doc: 'programs per sequence, the greedy one and k - 1 samples; the shortest correct one counts', defaultValue: '1' },
  { name: 'num-episodes', doc: 'functions: episodes per problem, as the DQN seed\'s evaluate.py (the same as --k: the greedy program and N - 1 samples; success_rate is their share that pass every test)' },
  { name: 'temperature', doc: 'sampling temperature of the k - 1 programs sampled beside the greedy one (default 1; functions --search: 1.3)' },
  { name: 'repair', doc: 'when no program is correct, search edits of the closest ones: swaps for, and inserts of, the policy\'s M runner-ups per token, and dropped numbers (0: off)', defaultValue: '0' },
  { name: 'repair-rounds', doc: 'rounds of repair: each edits the closest wrong programs of the last once more (the default is the recipe\'s, the page\'s and train\'s)', defaultValue: String(repairSearch.rounds) },
  { name: 'split', doc: 'when no program is correct, write the sequence piece by piece: R rounds of split search, pieces joined with concatenate or woven with interleave (0: off)', defaultValue: '0' },
  { name: 'bridge-above', doc: `with --split: where the policy writes nothing from a place, split search bridges it with the values themselves (set_list) and goes on; a program holding such a bridge counts only at most R bits per raw bit, since failing leaves the sequence to gzip (0: no bridges; default ${splitSearch.bridgeAbove})` },
  { name: 'search', doc: 'functions: search instead of best-of-k: up to --k programs per problem (at most 1024; 256 when --k is not given), drawn in batches (see --sampling), a problem stopping, with distinct draws, after the first --batch when one of them passes the shown tests, else once --enough programs of a second stage pass them; with independent samples, once --enough draws pass them; the choice among them by --select; prints solved@k and names problems with a shown test that looks wrong', boolean: true },
  { name: 'select', doc: 'functions, with --search: likely (the passing program the policy finds most probable), first (the first program to pass the shown tests), shortest, or cluster (the largest group of passing programs that agree on extra inputs, then its shortest)', defaultValue: 'likely' },
  { name: 'enough', doc: 'functions, with --search: programs passing the shown tests after which a problem stops drawing (distinct sampling: distinct programs of its second stage; independent: draws, a program drawn again counting again; first: always 1)', defaultValue: '8' },
  { name: 'batch', doc: 'functions, with --search: programs drawn per problem in one round', defaultValue: '32' },
  { name: 'sampling', doc: 'functions, with --search: distinct (programs drawn without replacement by stochastic beam search: the first --batch, then, where none passes, up to --k) or independent (samples, the first greedy)', defaultValue: 'distinct' },
  { name: 'limit', doc: 'evaluate only the first N records' },
  { name: 'prior', doc: 'bit prior for --programs: kt or strict', defaultValue: 'kt' },
  { name: 'backend', doc: 'tfjs backend: auto, wasm or cpu', defaultValue: 'auto' },
  { name: 'task', doc: 'the task to evaluate (default: the checkpoint\'s task; any task of the registry): functions evaluates per problem, --data defaulting to datasets/functions/heldout.jsonl' },
  { name: 'preferences', doc: 'JSONL of {prompt, chosen, rejected}: score the checkpoint\'s implicit DPO rewards against --reference on these pairs' },
  { name: 'reference', doc: 'with --preferences: the reference (warm-start) checkpoint the policy was trained from' },
  { name: 'beta', doc: 'with --preferences: the scale of the implicit reward (default: the checkpoint\'s algorithm.beta when it trained with dpo, else 0.1)' },
  { name: 'json', doc: 'print one JSON object with snake_case keys', boolean: true },
  { name: 'out', doc: 'also write the JSON result to this file' },
  { name: 'rows', doc: 'kolmogorov, with --checkpoint: write one JSON line per sequence to this file: its id, length, the kept program, its bits, its outcome and the search that found it (greedy, sample, repair, split or bridge)' },
];

async function scorePrograms(path: string, prior: PriorName, limit: number | undefined): Promise<EvalMetrics> {
  const loaded = await loadKolmogorovLines(path);
  const records = loaded.records.slice(0, limit);
  const config = defaultConfig();
  const pool = createNodeSandboxPool({ size: config.sandbox.workers, limits: sandboxLimits(config), preludes: taskPreludes() });
  try {
    // A record without a program scores as a failure, like one that does not parse; both are named by line.
    const missing: number[] = [];
    const parsed = records.map((record, index) => {
      if (record.program === undefined) {
        missing.push(loaded.lines[index]);
        return { program: null, text: '', error: 'no "program" field' };
      }
      try {
        const program = parseProgram(record.program);
        // The prior prices what the policy's grammar can write: an argument past its range (a value
        // over 255, a count it has no token for) has no price, and would be charged as one in range.
        try {
          programToTokens(program);
        } catch (error) {
          throw new Error(`outside what the bit prior prices (${(error as Error).message})`);
        }
        return { program, text: printProgram(program), error: null };
      } catch (error) {
        return { program: null, text: record.program, error: (error as Error).message };
      }
    });
    const jobs: SandboxJob[] = [];
    const jobOf: number[] = [];
    parsed.forEach((entry, i) => {
      if (entry.program) {
        jobOf[i] = jobs.length;
        jobs.push({ source: entry.text, expected: records[i].sequence, seed: config.run.seed, prelude: 'kolmogorov' });
      }
    });
    const outcomes = await pool.evaluateBatch(jobs);
    const samples: ScoredSample[] = records.map((record: KolmogorovRecord, i) => {
      const entry = parsed[i];
      const outcome = entry.program ? outcomes[jobOf[i]] : null;
      return {
        sequence: record.sequence,
        output: outcome?.output ?? null,
        correct: outcome?.kind === 'ok',
        bits: entry.program ? programBits(entry.program, prior) : 0,
        program: entry.text,
      };
    });
    if (missing.length) console.error(`${path}: ${missing.length} record${missing.length > 1 ? 's have' : ' has'} no "program" field (line${missing.length > 1 ? 's' : ''} ${missing.slice(0, 10).join(', ')}${missing.length > 10 ? ', ...' : ''}); they count as failures`);
    const failures = parsed.flatMap((entry, i) => (entry.error && records[i].program !== undefined ? [`line ${loaded.lines[i]}: ${printable(entry.error, 160)}`] : []));
    for (const failure of failures.slice(0, 10)) console.error(`${path}: ${failure}`);
    if (failures.length) console.error(`${path}: ${failures.length} program${failures.length > 1 ? 's do' : ' does'} not parse as DSL programs the bit prior prices${failures.length > 10 ? ' (the first 10 above)' : ''}; they count as failures`);
    return { ...ktMetrics(samples), byLength: ktMetricsByLength(samples) };
  } finally {
    await pool.close();
  }
}

interface SearchOptions {
  k: number;
  temperature: number;
  repair: number;
  repairRounds: number;
  split: number;
  bridgeAbove: number | undefined;
  limit: number | undefined;
  /** Where to write one JSON line per sequence (`--rows`). */
  rowsPath: string | undefined;
}

async function scoreCheckpoint(path: string, dataPath: string, { k, temperature, repair, repairRounds, split, bridgeAbove, limit, rowsPath }: SearchOptions, backendName: string): Promise<EvalMetrics> {
  const bytes = readCheckpointFile(path, 'checkpoint');
  const backend = await initTensorflow(backendName as 'auto' | 'wasm' | 'cpu');
  const records = await loadKolmogorovFile(dataPath);
  const { runner, meta, close } = await namingCheckpoint('checkpoint', path, () => openCheckpointRunner(bytes, records), { any: true });
  console.error(`tfjs backend: ${backend.backend} (${backend.detail}); checkpoint step ${meta.step}`);
  const line = progressLine();
  try {
    const { rows, searches, ...metrics } = await runner.evaluate(records, {
      k,
      temperature,
      repair,
      repairRounds,
      split,
      bridgeAbove,
      limit,
      onProgress: (done, total) => line.update(`evaluated ${done}/${total}`, done, total),
    });
    line.end();
    const solvedBy = (search: FoundBy) => rows.filter((row) => row.outcome === 'ok' && row.foundBy === search).length;
    if (repair > 0) console.error(`repair: ${solvedBy('repair')} of ${rows.length} sequences solved by repair (edits of the closest wrong programs)`);
    if (split > 0) {
      const bridged = solvedBy('bridge');
      console.error(`split: ${solvedBy('split') + bridged} of ${rows.length} sequences solved by split search (pieces joined with concatenate, or woven with interleave), ${bridged} of them with values written as they are (literal bridges)`);
    }
    if (rowsPath) {
      const lines = rows.map((row, i) => JSON.stringify({ id: records[i].id ?? i, length: records[i].sequence.length, found_by: row.foundBy, outcome: row.outcome, bits: row.bits, program: row.program }));
      writeOutputFile('rows', rowsPath, lines.join('\n') + '\n');
    }
    return { ...metrics, searches: searches.length > 1 ? searches : undefined };
  } finally {
    await close();
  }
}

/** What a functions evaluation reports beside its scores: the problems it could not score, by position and name, and why. */
interface Rejected {
  rejected: { where: string; function_name: string | null; reason: string }[];
}
type FunctionsResult = (FunctionEvaluation | SearchResult) & Rejected;

/**
 * The functions task: per problem, the greedy program and k - 1 samples, the first that passes
 * the shown tests chosen and scored on every test (functions/evaluate.ts); or, with `search`,
 * up to k programs per problem with early stop and a choice rule (functions/search.ts). Problems
 * the policy cannot read (a value that is not an integer, a boolean or a list of them; a
 * signature too long for its prompt) are reported by name with why, and the rest are scored.
 */
async function evaluateFunctionsCheckpoint(path: string, dataPath: string, options: { k: number; temperature?: number; limit?: number; search?: Omit<FunctionSearchOptions, 'k' | 'temperature' | 'limit'> }, backendName: string): Promise<FunctionsResult> {
  const bytes = readCheckpointFile(path, 'checkpoint');
  const backend = await initTensorflow(backendName as 'auto' | 'wasm' | 'cpu');
  const loaded = loadProblemsReport(dataPath);
  const { runner, meta, close } = await namingCheckpoint('checkpoint', path, () => openFunctionsCheckpointRunner(bytes), { any: true });
  console.error(`tfjs backend: ${backend.backend} (${backend.detail}); checkpoint step ${meta.step}`);
  try {
    const config = runner.config as FunctionsConfig;
    const rejected: Rejected['rejected'] = loaded.errors.map((error) => ({ where: `${error.where} ${error.index}`, function_name: error.name ?? null, reason: error.reason }));
    const problems = loaded.problems.filter((problem, i) => {
      try {
        encodeProblemPrompt(problem, config.functions.promptTests, promptBudget(config));
        return true;
      } catch (error) {
        const place = loaded.places[i];
        rejected.push({ where: place ? `${place.where} ${place.index}` : `problem ${i + 1} of those that load`, function_name: problem.functionName, reason: (error as Error).message });
        console.error(`${dataPath}: ${problem.functionName}: ${(error as Error).message}; not scored`);
        return false;
      }
    });
    if (problems.length === 0) throw new Error(`${dataPath}: no problem the policy can read`);
    if (rejected.length) console.error(`${dataPath}: ${rejected.length} problem${rejected.length > 1 ? 's' : ''} not scored (listed above and under "rejected" in --json); scoring the other ${problems.length}`);
    const line = progressLine();
    const onProgress = (done: number, total: number) => line.update(`${options.search ? 'searched' : 'evaluated'} ${done}/${total}`, done, total);
    const result = options.search
      ? await runner.search(problems, { ...options.search, k: options.k, temperature: options.temperature, limit: options.limit, onProgress })
      : await runner.evaluate(problems, { k: options.k, temperature: options.temperature, limit: options.limit, onProgress });
    line.end();
    return { ...result, rejected };
  } finally {
    await close();
  }
}

function formatFunctionsTable(result: FunctionsResult): string {
  const rejected = result.rejected.map((row) => `not scored  ${row.where}${row.function_name ? ` (${row.function_name})` : ''}: ${row.reason}`);
  if ('selection' in result) {
    const rows = result.per_problem.map((row) =>
      `${row.solved ? 'solved' : '      '}  ${row.function_name.padEnd(26)} drawn ${String(row.drawn).padStart(4)}  passing ${String(row.passing).padStart(3)}  ${row.program.replace(/\s+/g, ' ').slice(0, 90)}`);
    const suspects = result.per_problem.flatMap((row) => (row.suspect_test ? [`suspect test  ${row.function_name}: shown test ${row.suspect_test.index + 1} looks wrong: ${row.suspect_test.reason}`] : []));
    return [
      ...rows, ...(suspects.length ? ['', ...suspects] : []), ...(rejected.length ? ['', ...rejected] : []), '',
      `solved@k (the first program to pass the shown tests within k samples passes every test): ${result.solved_at.map(({ k, solved }) => `@${k} ${solved.toFixed(3)}`).join('  ')}`,
      `${result.n} problems, search up to k=${result.k} (${result.sampling} samples), ${result.selection}: solved ${result.solved.toFixed(3)}, ${result.mean_drawn.toFixed(1)} programs drawn per problem on average`,
    ].join('\n');
  }
  const rows = result.per_problem.map((row) =>
    `${row.solved ? 'solved' : '      '}  ${row.function_name.padEnd(26)} shown ${row.shown_passed}/${row.shown_total}  hidden ${row.hidden_passed}/${row.hidden_total}  success ${row.success_rate.toFixed(2)}  ${row.program.replace(/\s+/g, ' ').slice(0, 90)}`);
  return [...rows, ...(rejected.length ? ['', ...rejected] : []), '', `${result.n} problems, k=${result.k}: solved ${result.solved.toFixed(3)}, pass@1 ${result.pass_at_1.toFixed(3)}, success rate ${result.success_rate.toFixed(3)}`].join('\n');
}

/** A checkpoint's task, read from its header (null when the file cannot be read or decoded; the scoring path reports why). */
async function checkpointTask(path: string): Promise<string | null> {
  try {
    return (await decodeCheckpoint(readCheckpointFile(path))).meta.config.task.name;
  } catch {
    return null;
  }
}

/** Most programs per problem the search draws (the issue's 1,024). */
const MAX_SEARCH_K = 1024;

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  if (argv.includes('--help') || argv.includes('-h')) {
    console.log(usage('eval', [
      'A checkpoint scored on held-out data with one of its task\'s searches (the task is the checkpoint\'s, or --task):',
      '  kolmogorov: KT metrics (accuracy, compression rate, by length) beside gzip and LZMA; --k, --repair, --split; or a file of programs (--programs)',
      '  functions: problems solved (the program chosen on the shown tests passes every test), pass@1, per problem; --k;',
      '    or --search: up to --k programs per problem with early stop, --select likely|first|shortest|cluster, solved@k and suspect tests',
      '  any other task: its own evaluation and searches (the digit tasks: greedy accuracy and format compliance)',
      '  preference pairs (--preferences, with --reference): DPO\'s rewards/accuracies and margins',
    ].join('\n'), extras, false));
    return;
  }
  const { extra } = parseArgs(argv, extras, false);
  if (typeof extra.rows === 'string' && typeof extra.checkpoint !== 'string') throw new Error('--rows: a file of one line per sequence comes from a kolmogorov --checkpoint evaluation');
  // Checked together, so that --out and --rows are not the same file either.
  const outputs = (['out', 'rows'] as const).flatMap((flag) => (typeof extra[flag] === 'string' ? [{ flag, path: extra[flag] as string, kind: 'file' as const }] : []));
  if (outputs.length > 0) {
    const inputs = ['checkpoint', 'data', 'programs', 'preferences', 'reference'].flatMap((flag) => (typeof extra[flag] === 'string' ? [{ flag, path: extra[flag] as string }] : []));
    checkOutputs(outputs, inputs);
  }
  const kFlag = extra['num-episodes'] !== undefined ? 'num-episodes' : 'k';
  // --search without --k draws up to 256 programs a problem (the task's 'search-256, likely').
  const kGiven = argv.some((arg) => /^--(k|num-episodes)(=|$)/.test(arg));
  const k = extra.search && !kGiven ? 256 : positiveFlag(kFlag, extra[kFlag], true);
  const limit = extra.limit === undefined ? undefined : positiveFlag('limit', extra.limit, true);
  const repair = Number(extra.repair);
  if (!Number.isInteger(repair) || repair < 0) throw new Error(`--repair: expected a whole number, got "${extra.repair}"`);
  const repairRounds = positiveFlag('repair-rounds', extra['repair-rounds'], true);
  const split = Number(extra.split);
  if (!Number.isInteger(split) || split < 0) throw new Error(`--split: expected a whole number of rounds, got "${extra.split}"`);
  const bridgeAbove = extra['bridge-above'] === undefined ? undefined : Number(extra['bridge-above']);
  if (bridgeAbove !== undefined && !(bridgeAbove >= 0)) throw new Error(`--bridge-above: expected a number of bits per raw bit, at least 0, got "${extra['bridge-above']}"`);
  if (bridgeAbove !== undefined && split === 0) throw new Error('--bridge-above bounds split search\'s literal bridges: give --split R too');
  if (bridgeAbove !== undefined && bridgeAbove > 1) console.error(`--bridge-above ${bridgeAbove}: a program with bridges may now be longer than the values it writes (8 bits each), so its accuracy says little; the compression rate is the figure to read`);
  // Not given: 1 for best-of-k, the search's own default (SEARCH_TEMPERATURE) for --search.
  const givenTemperature = extra.temperature === undefined ? undefined : positiveFlag('temperature', extra.temperature);
  const temperature = givenTemperature ?? 1;
  if (extra.prior !== 'kt' && extra.prior !== 'strict') throw new Error(`--prior: expected kt or strict, got "${extra.prior}"`);

  if (typeof extra.preferences === 'string') {
    if (typeof extra.checkpoint !== 'string' || typeof extra.reference !== 'string') throw new Error('--preferences: give --checkpoint FILE (the trained policy) and --reference FILE (the policy it started from)');
    const result = await scorePreferenceFile(extra.checkpoint, extra.reference, extra.preferences, typeof extra.beta === 'string' ? extra.beta : undefined, String(extra.backend));
    if (typeof extra.out === 'string') writeOutputFile('out', extra.out, JSON.stringify(result, null, 2) + '\n');
    console.log(extra.json ? JSON.stringify(result) : Object.entries(result).map(([name, value]) => `${name.padEnd(20)} ${Number.isInteger(value) ? value : value.toFixed(4)}`).join('\n'));
    return;
  }
  const task = typeof extra.task === 'string' ? extra.task : typeof extra.checkpoint === 'string' ? await checkpointTask(extra.checkpoint) : 'kolmogorov';
  if (typeof extra.rows === 'string' && task !== 'kolmogorov') throw new Error(`--rows writes the kolmogorov evaluation's rows; this is a ${task ?? 'unreadable'} checkpoint`);
  if (extra.search && task !== 'functions') throw new Error(`--search is the functions task's search; this is a ${task ?? 'unreadable'} checkpoint (kolmogorov searches with --k, --repair and --split)`);
  if (task === 'functions') {
    if (typeof extra.checkpoint !== 'string') throw new Error('--task functions: give --checkpoint FILE (and --data PROBLEMS)');
    const data = argv.some((arg) => arg === '--data' || arg.startsWith('--data=')) ? String(extra.data) : 'datasets/functions/heldout.jsonl';
    const selections: readonly Selection[] = ['likely', 'first', 'shortest', 'cluster'];
    if (!selections.includes(extra.select as Selection)) throw new Error(`--select: expected likely, first, shortest or cluster, got "${String(extra.select)}"`);
    if (extra.search && k > MAX_SEARCH_K) throw new Error(`--k: at most ${MAX_SEARCH_K} programs per problem with --search, got ${k}`);
    if (!extra.search && argv.some((arg) => /^--(select|enough|batch|sampling)(=|$)/.test(arg))) throw new Error('--select, --enough, --batch and --sampling choose how --search searches: add --search (without it, eval is best-of-k)');
    const samplings: readonly Sampling[] = ['independent', 'distinct'];
    if (!samplings.includes(extra.sampling as Sampling)) throw new Error(`--sampling: expected independent or distinct, got "${String(extra.sampling)}"`);
    const search = extra.search ? { selection: extra.select as Selection, sampling: extra.sampling as Sampling, enough: positiveFlag('enough', extra.enough, true), batch: positiveFlag('batch', extra.batch, true) } : undefined;
    const result = { ...(await evaluateFunctionsCheckpoint(extra.checkpoint, data, { k, temperature: search ? givenTemperature : temperature, limit, search }, String(extra.backend))), evaluated: { checkpoint: extra.checkpoint, data, k, limit, ...(search ?? {}) } };
    if (typeof extra.out === 'string') writeOutputFile('out', extra.out, JSON.stringify(result, null, 2) + '\n');
    console.log(extra.json ? JSON.stringify(result) : formatFunctionsTable(result));
    return;
  }
  if (task !== null && task !== 'kolmogorov') {
    // Any other task of the registry: its own evaluation, with one of its searches.
    if (typeof extra.checkpoint !== 'string') throw new Error(`--task ${task}: give --checkpoint FILE`);
    const definition = taskDefinition(task);
    const bytes = readCheckpointFile(extra.checkpoint, 'checkpoint');
    const { meta } = await namingCheckpoint('checkpoint', extra.checkpoint, () => decodeCheckpoint(bytes), { any: true });
    if (meta.config.task.name !== task) throw new Error(`--checkpoint ${extra.checkpoint}: the checkpoint is for task ${meta.config.task.name}, not ${task}`);
    const heldout = definition.data.kind === 'file' ? await loadItemsFile(definition, argv.some((arg) => arg === '--data' || arg.startsWith('--data=')) ? String(extra.data) : definition.data.shipped.heldout) : definition.data.heldout(meta.config);
    await initTensorflow(String(extra.backend) as 'auto');
    const { runner, close } = await namingCheckpoint('checkpoint', extra.checkpoint, () => openAnyCheckpointRunner(bytes, heldout), { any: true });
    try {
      const search = definition.searches.find((s) => s.k === k && !s.options) ?? searchOf(definition, undefined);
      const result = await runner.evaluate(heldout, { limit, search });
      if (typeof extra.out === 'string') writeOutputFile('out', extra.out, JSON.stringify(result.json, null, 2) + '\n');
      console.log(extra.json ? JSON.stringify(result.json) : evaluationTable(result, `${task}, ${search.name}, step ${meta.step}`));
    } finally {
      await close();
    }
    return;
  }
  let label: string;
  let metrics: EvalMetrics;
  if (typeof extra.programs === 'string') {
    label = `programs (${extra.programs})`;
    metrics = await scorePrograms(extra.programs, extra.prior, limit);
  } else if (typeof extra.checkpoint === 'string') {
    label = (k > 1 ? `policy best-of-${k}` : 'policy greedy') + (repair > 0 ? ` + repair ${repair}` : '') + (split > 0 ? ` + split ${split}` : '') + (split > 0 && bridgeAbove !== 0 ? ' + bridges' : '');
    metrics = await scoreCheckpoint(extra.checkpoint, String(extra.data), { k, temperature, repair, repairRounds, split, bridgeAbove, limit, rowsPath: typeof extra.rows === 'string' ? extra.rows : undefined }, String(extra.backend));
  } else {
    throw new Error('give --checkpoint FILE (with --data FILE) or --programs FILE; see --help');
  }
  // What was scored and how, so that two results can be told apart (and compared) later.
  const evaluated = typeof extra.programs === 'string' ? { programs: extra.programs, limit } : { checkpoint: extra.checkpoint, data: String(extra.data), k, temperature, repair, repair_rounds: repairRounds, split, bridge_above: bridgeAbove, limit };
  const json = { ...metricsJson(metrics), evaluated };
  if (typeof extra.out === 'string') writeOutputFile('out', extra.out, JSON.stringify(json, null, 2) + '\n');
  if (extra.json) console.log(JSON.stringify(json));
  else {
    const searches = metrics.searches?.map((level) => ({ label: `policy ${level.search}`, metrics: level })) ?? [{ label, metrics }];
    console.log(formatMetricsTable(searches, metrics));
    if (metrics.byLength) console.log(`\nby sequence length (each range scored on its own)\n${formatLengthTable(metrics.byLength)}`);
  }
}

runMain(main);
