/**
 * The Kolmogorov task as the lab looks it up (registry.ts): write the shortest program in the
 * DSL that reproduces an integer sequence (docs/kolmogorov.md). Its fields, defaults (the shipped
 * policy's model and the recipe's RL settings), data (JSONL of sequences), searches (best-of-k,
 * repair, split), charts and warm start (generated (sequence, program) pairs) are all here; the
 * rest of the folder is how.
 */
import { parseKolmogorovRecord, type KolmogorovRecord } from '../data/records';
import type { TaskDefinition } from '../task';
import { kolmogorovFields, type KolmogorovConfig } from './config';
import { evaluateKolmogorov } from './evaluate';
import { grammarProblem } from '../grammar';
import { encodePrompt, KolmogorovGrammar, programToTokens } from './grammar';
import { parseProgram } from './program';
import { gzipBits, lzmaBits, sequencesText } from './metrics';
import { PairStream, sequenceKey, toPair, type Pair } from './pairs';
import { repairSearch } from './repair';
import { splitSearch } from './split';
import { kolmogorovPolicyConfig, kolmogorovPrelude, kolmogorovTask } from './task';
import { tokenText } from './vocab';

/** Sequences compressed for a dataset's gzip and LZMA reference rates (LZMA of all 10,000 shipped ones takes ~9 s). */
export const REFERENCE_RECORDS = 1000;

/** gzip and LZMA bits over raw bits of a set's first REFERENCE_RECORDS sequences, compressed jointly (the charts' reference lines). */
function referenceRates(records: readonly KolmogorovRecord[]): Record<string, number> {
  const sequences = records.slice(0, REFERENCE_RECORDS).map((record) => record.sequence);
  const rawBits = 8 * sequences.reduce((sum, sequence) => sum + sequence.length, 0);
  if (rawBits === 0) return {};
  const text = sequencesText(sequences);
  return { gzipRate: gzipBits(text) / rawBits, lzmaRate: lzmaBits(text) / rawBits };
}

const grammar = new KolmogorovGrammar();

/** A program's tokens when the policy could write it for this sequence (within the token budget and the grammar), else undefined. */
function writable(config: KolmogorovConfig, sequence: readonly number[], text: string): number[] | undefined {
  try {
    const tokens = programToTokens(parseProgram(text));
    if (tokens.length > config.model.maxProgramTokens) return undefined;
    return grammarProblem(grammar, encodePrompt(sequence, config.task.maxSequenceLength), tokens) ? undefined : tokens;
  } catch {
    return undefined; // a split-joined program past the grammar's limits
  }
}

const rewardCaption = 'Mean reward of the programs sampled at each step; it should rise as the policy learns.';
const lossCaption = 'The policy-gradient loss of each update: its sign and size follow the advantages, so watch its trend, not its level.';

export const kolmogorov: TaskDefinition<KolmogorovConfig, KolmogorovRecord> = {
  name: 'kolmogorov',
  doc: 'the shortest DSL program that reproduces an integer sequence (reward C - lambda * bits when correct)',
  fields: kolmogorovFields,
  // The shipped policy's shape (public/pretrained.prl) and its recipe's RL settings, so that a
  // run of the defaults takes the shipped weights as they are (`--init-from`, the page's start).
  defaults: {
    model: { dModel: 64, valueDeltas: true, secondPrevious: true, runLengths: true, strideTwo: true, copyPointer: true },
    task: { maxTrainLength: 32, trainPieces: 2 },
    algorithm: { learningRate: 1e-4, lengthPenalty: 0.002, klCoef: 0.05, groupSize: 4 },
  },
  sandboxed: true,
  shippedPolicy: { file: 'pretrained.prl', name: 'pretrained checkpoint' },
  prelude: kolmogorovPrelude,
  check(config) {
    if (config.model.copyResume && !config.model.copyPointer) return 'model.copyResume carries the copy pointer across statements: it needs model.copyPointer (or turn copyResume off)';
    const { name, repairDemos } = config.algorithm as { name: string; repairDemos: number };
    // Demonstrations are found by search, not sampled: they have no sampling probability for GRPO's ratio or RLOO's KL.
    if (repairDemos > 0 && name !== 'reinforce') return `algorithm.repairDemos (${repairDemos}) works with algorithm reinforce only, not ${name}: set it to 0`;
    return null;
  },
  // BOS, the values, SEP (encodePrompt).
  longestPrompt: (config) => ({ tokens: config.task.maxSequenceLength + 2, because: `task.maxSequenceLength ${config.task.maxSequenceLength} + 2` }),
  policyConfig: kolmogorovPolicyConfig,
  createTask: (config, heldout) => kolmogorovTask(config, heldout as KolmogorovRecord[]),
  grammarSpec: () => ({ task: 'kolmogorov' }),
  grammarFromSpec: () => new KolmogorovGrammar(),
  tokenText,
  data: {
    kind: 'file',
    itemName: 'sequences',
    format: 'jsonl',
    sniff: (head) => head.includes('"sequence"'),
    parseRecord: parseKolmogorovRecord,
    shipped: { train: 'datasets/train.jsonl', heldout: 'datasets/heldout.jsonl' },
    preview: (record) => ({ label: `${record.sequence.length} values`, detail: record.sequence.slice(0, 24).join(' ') }),
    // The sequence is the item: its id and program are not.
    identity: (record) => sequenceKey(record.sequence),
    references: referenceRates,
  },
  searches: [
    { name: 'greedy', k: 1 },
    { name: 'greedy + repair', k: 1, options: { repair: true } },
    { name: 'greedy + split', k: 1, options: { split: true } },
    { name: 'best-of-8', k: 8 },
    { name: 'best-of-8 + repair', k: 8, options: { repair: true } },
    { name: 'best-of-8 + repair + split', k: 8, options: { repair: true, split: true } },
    { name: 'best-of-8 + repair + split + bridges', k: 8, options: { repair: true, split: true, bridges: true } },
  ],
  async evaluate({ policy, config, pool, onProgress, shouldStop }, records, { limit, search }) {
    const result = await evaluateKolmogorov({ policy, config, pool, shouldStop }, records, {
      limit,
      k: search.k,
      ...(search.options?.repair ? { repair: repairSearch.runnersUp, repairRounds: repairSearch.rounds } : {}),
      // Literal bridges only where the search names them: training searches (expert iteration's) leave them out, so no demonstration is values written as they are.
      ...(search.options?.split ? { split: splitSearch.rounds, bridgeAbove: search.options.bridges ? splitSearch.bridgeAbove : 0 } : {}),
      onProgress,
    });
    const { rows, searches: _searches, byLength: _byLength, ...metrics } = result;
    return {
      n: result.n,
      score: result.accuracy,
      metrics: {
        accuracy: result.accuracy,
        compression_rate: result.compressionRate,
        precision: result.precision,
        'acc@16': result.accAtPrefix['16'],
        'acc@64': result.accAtPrefix['64'],
        gzip_rate: result.gzipRate,
        lzma_rate: result.lzmaRate,
      },
      items: rows.map((r, index) => ({
        index,
        target: records[index].sequence.join(' '),
        output: r.output ? r.output.join(' ') : null,
        program: r.program ?? '',
        correct: r.outcome === 'ok',
        detail: r.program ? `${r.bits.toFixed(1)} bits, found by ${r.foundBy === 'bridge' ? 'split, with values written as they are' : r.foundBy}` : r.outcome,
        ...(r.outcome === 'ok' && r.program ? { tokens: writable(config, records[index].sequence, r.program), cost: r.bits } : {}),
      })),
      json: { ...metrics, by_length: result.byLength, searches: result.searches },
      summary: `accuracy ${result.accuracy.toFixed(3)}  compression ${result.compressionRate.toFixed(3)}`,
    };
  },
  evaluationDocs: {
    accuracy: 'the share of sequences whose kept program prints the whole sequence',
    compression_rate: 'bits of the kept programs (the failed sequences at their gzip size) over 8 bits per value: lower is better; gzip and LZMA below',
    precision: 'gzip of the programs found over gzip of the sequences they print: above 1, the programs are longer as text than their data, though fewer bits under the prior',
    'acc@16': 'the share whose kept program prints the sequence\'s first 16 values right',
    'acc@64': 'the share whose kept program prints the sequence\'s first 64 values right',
  },
  charts: [
    { name: 'avg_reward', title: 'average reward', caption: rewardCaption },
    {
      name: 'compression_rate', title: 'compression rate (lower is better)', references: true,
      caption: 'Bits of the batch\'s programs (failed sequences at their gzip size) over the raw bits. Above 1 while most of a small batch fails, since gzip of a few short sequences costs more than their bytes; compare the held-out evaluation with gzip and LZMA.',
    },
    { name: 'accuracy', title: 'accuracy', caption: 'Share of sampled programs that print their sequence exactly.' },
    { name: 'policy_loss', title: 'policy loss', caption: lossCaption },
    { name: 'program_bits', title: 'bits of correct programs', caption: 'Mean prior bits of the correct programs: lower is shorter, the goal of the task.' },
    { name: 'pretrain_loss', title: 'pretrain loss', optional: true, caption: 'Cross-entropy of the supervised warm start on generated (sequence, program) pairs.' },
    { name: 'pretrain_token_accuracy', title: 'pretrain token accuracy', optional: true, caption: 'Share of the generated programs\' tokens the policy predicts right during the warm start.' },
    { name: 'heldout_loss', title: 'held-out loss (pretrain)', optional: true, caption: 'The warm start\'s loss on held-out sequences, measured every few steps: it should fall with the training loss.' },
    { name: 'heldout_accuracy', title: 'held-out accuracy (pretrain)', optional: true, caption: 'Greedy accuracy on held-out sequences during the warm start, as measured (never smoothed).' },
  ],
  warmStart: {
    learningRate: (config) => config.algorithm.learningRate,
    batches(config, heldout) {
      const { task, model, run } = config as KolmogorovConfig;
      // Never a held-out sequence; the same seed offset as the CLI, so both see the same pairs.
      const exclude = new Set((heldout as KolmogorovRecord[]).map((record) => sequenceKey(record.sequence)));
      const stream = new PairStream({ maxSequenceLength: task.maxSequenceLength, context: model.context, maxProgramTokens: model.maxProgramTokens, seed: run.seed + 1_000_003, exclude });
      return (size) => stream.batch(size);
    },
    heldoutPairs(config, heldout) {
      const { task, model } = config as KolmogorovConfig;
      const limits = { maxSequenceLength: task.maxSequenceLength, context: model.context, maxProgramTokens: model.maxProgramTokens };
      return (heldout as KolmogorovRecord[]).map((record) => toPair(record, limits)).filter((pair): pair is Pair => pair !== null).slice(0, 256);
    },
  },
};
