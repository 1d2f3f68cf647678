/**
 * `npm run generate -- --count N --seed S --out FILE [--exclude FILE]`: synthetic
 * (sequence, program) pairs from the task's generator (docs/kolmogorov-spec.md's distribution), one JSON
 * object per line. `--exclude` drops every sequence that appears in another JSONL file, so a
 * training file never contains a held-out sequence.
 */
import { createWriteStream, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { defaultGeneratorOptions, generateProblems, problemKey } from '../core/functions/generator';
import { problemToJson } from '../core/functions/problems';
import { generateDataset } from '../core/kolmogorov/generator';
import { checkOutputs, writeOutputFile } from './outputs';
import { parseArgs, positiveFlag, runMain, usage, type ExtraFlag } from './args';
import { functionsProtectedProblems, loadKolmogorovFile } from './data';
import { progressLine } from './report';

const extras: ExtraFlag[] = [
  { name: 'help', doc: 'show this help', boolean: true },
  { name: 'count', doc: 'number of distinct sequences', defaultValue: '1000' },
  { name: 'seed', doc: 'generator seed', defaultValue: '1' },
  { name: 'out', doc: 'output JSONL file (default: standard output)' },
  { name: 'exclude', doc: 'JSONL file whose sequences (or problems, with --task functions) must not appear in the output' },
  { name: 'task', doc: 'kolmogorov, or functions: problems in the seed format from the functions generator', defaultValue: 'kolmogorov' },
];

/** `--task functions`: generated problems (functions/generator.ts), one seed-format object per line. */
function generateFunctions(count: number, seed: number, exclude: string | undefined): string[] {
  // --exclude, and always the held-out and dev problems (data.ts functionsProtectedFiles).
  const excluded = new Set(functionsProtectedProblems(exclude ? [exclude] : []).map(problemKey));
  const made = generateProblems(count, seed, defaultGeneratorOptions, excluded);
  if (made.length < count) throw new Error(`only ${made.length} problems could be generated`);
  return made.map(({ problem }) => JSON.stringify(problemToJson(problem)));
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  if (argv.includes('--help') || argv.includes('-h')) {
    console.log(usage('generate', 'Synthetic Kolmogorov (sequence, program) pairs as JSONL.', extras, false));
    return;
  }
  const { extra } = parseArgs(argv, extras, false);
  const count = positiveFlag('count', extra.count, true);
  const seed = Number(extra.seed);
  if (!Number.isInteger(seed) || seed < 0) throw new Error(`--seed: expected a non-negative integer, got "${extra.seed}"`);
  if (typeof extra.out === 'string') checkOutputs([{ flag: 'out', path: extra.out, kind: 'file' }], typeof extra.exclude === 'string' ? [{ flag: 'exclude', path: extra.exclude }] : []);
  if (extra.task === 'functions') {
    const lines = generateFunctions(count, seed, typeof extra.exclude === 'string' ? extra.exclude : undefined);
    if (typeof extra.out === 'string') writeOutputFile('out', extra.out, lines.join('\n') + '\n');
    else process.stdout.write(lines.join('\n') + '\n');
    console.error(`wrote ${lines.length} problems${typeof extra.out === 'string' ? ` to ${extra.out}` : ''}`);
    return;
  }
  if (extra.task !== 'kolmogorov') throw new Error(`--task: kolmogorov or functions, got "${extra.task}"`);
  const excluded = new Set<string>();
  if (typeof extra.exclude === 'string') {
    for (const record of await loadKolmogorovFile(extra.exclude, { quiet: true })) excluded.add(record.sequence.join(','));
  }
  const started = performance.now();
  // Over-generate a little so that excluded sequences can be dropped and `count` still reached.
  const target = count + excluded.size;
  const line = progressLine();
  let examples = generateDataset(seed, target, {}, (distinct) => line.update(`generated ${distinct} / ${target} distinct sequences`, distinct, target));
  line.end();
  examples = examples.filter((e) => !excluded.has(e.sequence.join(','))).slice(0, count);
  if (examples.length < count) throw new Error(`only ${examples.length} sequences left after exclusion`);
  // The output's folder is made if missing (a write error would otherwise surface as a stack trace).
  if (typeof extra.out === 'string') mkdirSync(dirname(extra.out), { recursive: true });
  const out = typeof extra.out === 'string' ? createWriteStream(extra.out) : process.stdout;
  for (const example of examples) out.write(JSON.stringify(example) + '\n');
  if (out !== process.stdout) await new Promise<void>((resolve, reject) => (out as ReturnType<typeof createWriteStream>).end((error?: Error | null) => (error ? reject(error) : resolve())));
  console.error(`wrote ${examples.length} examples${typeof extra.out === 'string' ? ` to ${extra.out}` : ''} in ${((performance.now() - started) / 1000).toFixed(1)} s`);
}

runMain(main);
