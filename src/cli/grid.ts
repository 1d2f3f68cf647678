/**
 * `npm run grid -- --algorithms reinforce,grpo --seeds 1,2,3 [train flags]`: a small grid of
 * runs (every algorithm with every seed) under one budget, each evaluated on the same held-out
 * data at its end, and a table of the mean and spread per algorithm: grid.json, grid.csv and
 * grid.md in --output-dir. The runs go one at a time (this machine has two cores: two runs at
 * once would each measure the other's load), each a plain `npm run train` into
 * OUT/ALGORITHM-seedSEED with its own run record, so any cell can be rerun on its own.
 *
 * Every other flag goes to each run unchanged: the task, the warm start (--init-from), the
 * budget (--max-steps or --time-limit), the held-out file and its size. A cell whose run
 * finished with the same command is kept, so a grid stopped halfway goes on where it was.
 */
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { algorithmNames } from '../core/registry';
import { flagValue, isEntry, parseArgs, runMain, runsAsDigits } from './args';
import { trainCommand, trainFlags } from './train';
import { digitsFlags } from './digits';
import { changedFiles, codeVersion, type RunRecordFile } from './runRecord';
import { writeAtomic } from './data';
import { metricEvents } from './runDir';

export interface GridCell {
  algorithm: string;
  seed: number;
  dir: string;
  steps: number | null;
  wallSeconds: number | null;
  /** Threads that computed each update (train's --threads for an algorithm whose update splits its batch; 1 otherwise). */
  threads: number | null;
  /** The run's final held-out figures (metrics.jsonl's eval_* at its last step). */
  figures: Record<string, number>;
}

export interface GridRow {
  algorithm: string;
  figure: string;
  n: number;
  mean: number;
  /** The sample standard deviation across seeds (0 with one seed). */
  std: number;
  min: number;
  max: number;
  values: number[];
}

export interface GridTable {
  command: string[];
  /** The code the grid ran with (a cell kept from an earlier grid may have run with other code: said when it is kept). */
  code: RunRecordFile['code'];
  algorithms: string[];
  seeds: number[];
  cells: GridCell[];
  rows: GridRow[];
}

const OWN_FLAGS = ['algorithms', 'seeds', 'output-dir', 'json', 'help'];
/** Flags the grid sets for each run itself. */
const PER_RUN = ['algorithm', 'seed', 'rerun', 'resume', 'output-dir'];

const HELP = `usage: npm run grid -- --algorithms A,B --seeds 1,2,3 --output-dir DIR [train flags]

Runs every algorithm with every seed, one run at a time, each a \`npm run train\` with the other
flags as given (task, --init-from, --max-steps or --time-limit, --eval-data-path, --eval-samples,
...), into DIR/ALGORITHM-seedSEED. Each run scores the same held-out items at its end; the
table gives, per algorithm and figure, the mean and the spread (sample std, min, max) over the
seeds: DIR/grid.json, DIR/grid.csv (algorithm,figure,n,mean,std,min,max) and DIR/grid.md.
A cell whose run already finished with the same command is kept.

  --algorithms A,B       the algorithms to compare (${algorithmNames().join(', ')})
  --seeds 1,2,3          the seeds (default 1,2,3)
  --output-dir DIR       where the runs and the table go (default runs/grid)
  --json                 print the table as JSON on stdout (the runs' output goes to stderr)`;

/** Splits the grid's own flags from the ones each run gets. */
function splitArgs(argv: string[]): { own: Record<string, string | boolean>; rest: string[] } {
  const own: Record<string, string | boolean> = {};
  const rest: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const [flag, inline] = arg.startsWith('--') ? [arg.slice(2).replace(/_/g, '-').split('=')[0], arg.includes('=') ? arg.slice(arg.indexOf('=') + 1) : undefined] : ['', undefined];
    if (OWN_FLAGS.includes(flag)) {
      if (flag === 'json' || flag === 'help') own[flag] = true;
      else {
        const value = inline ?? argv[++i];
        if (value === undefined) throw new Error(`--${flag} needs a value`);
        own[flag] = value;
      }
    } else if (PER_RUN.includes(flag)) {
      throw new Error(`--${flag}: the grid sets it for each run (--algorithms, --seeds, --output-dir); drop it`);
    } else rest.push(arg);
  }
  return { own, rest };
}

function list(flag: string, text: string): string[] {
  const items = text.split(',').map((s) => s.trim()).filter(Boolean);
  if (!items.length) throw new Error(`--${flag}: expected a comma-separated list, got "${text}"`);
  if (new Set(items).size !== items.length) throw new Error(`--${flag}: "${text}" names one twice`);
  return items;
}

/** Flags that change what a run prints or whether it may replace a folder, not what it computes. */
const OUTPUT_ONLY = new Set(['--overwrite', '--quiet']);
const computing = (command: string[]) => command.filter((arg) => !OUTPUT_ONLY.has(arg));

/** A command's flags and their values, the last one of a flag given twice winning (as train reads them). */
function flagValues(command: string[]): Map<string, string> {
  const values = new Map<string, string>();
  for (let i = 0; i < command.length; i++) {
    if (!command[i].startsWith('--')) continue;
    const [flag, inline] = command[i].includes('=') ? [command[i].slice(0, command[i].indexOf('=')), command[i].slice(command[i].indexOf('=') + 1)] : [command[i], undefined];
    values.set(flag, inline ?? (command[i + 1] !== undefined && !command[i + 1].startsWith('--') ? command[++i] : 'true'));
  }
  return values;
}

/** How two commands differ, flag by flag ("--max-steps 1 -> 2"), or null when they set the same values. */
function commandDifference(before: string[], now: string[]): string | null {
  const [a, b] = [flagValues(computing(before)), flagValues(computing(now))];
  const differ = [...new Set([...a.keys(), ...b.keys()])].filter((flag) => a.get(flag) !== b.get(flag));
  return differ.length ? differ.map((flag) => `${flag} ${a.get(flag) ?? '(not given)'} -> ${b.get(flag) ?? '(not given)'}`).join(', ') : null;
}

/** The figures a finished run reports at its end, or null when it did not finish; a finished run made otherwise is said before it is replaced. */
function finishedCell(dir: string, command: string[], code: RunRecordFile['code']): Omit<GridCell, 'algorithm' | 'seed' | 'dir'> | null {
  const recordPath = join(dir, 'run.json');
  if (!existsSync(recordPath)) return null;
  const record = JSON.parse(readFileSync(recordPath, 'utf8')) as RunRecordFile;
  if (record.ended === null || record.stopped === 'interrupted') return null;
  // The same flags and values in another order, or with another --quiet, are the same run.
  const difference = commandDifference(record.command.slice(4), command);
  if (difference) {
    console.error(`grid: the finished run in ${dir} was made with another command (${difference}): replacing it`);
    return null;
  }
  // Kept, but a cell made by other code is said: its figures are that code's.
  if (record.code.commit && code.commit && record.code.commit !== code.commit) console.error(`grid: the run in ${dir} was made at commit ${record.code.commit.slice(0, 12)}, this grid runs ${code.commit.slice(0, 12)}: it is kept (delete it to run it again)`);
  // The same command on other files (a warm start, data or a --config file rewritten in place) is another run.
  const changed = changedFiles(record);
  if (changed.length) {
    console.error(`grid: the run in ${dir} is run again: ${changed.join('; ')}`);
    return null;
  }
  const figures: Record<string, number> = {};
  const entries = metricEvents(join(dir, 'metrics.jsonl'));
  // A loop, not Math.max(...): a long run's hundreds of thousands of lines overflow the stack as arguments.
  const last = entries.reduce((most, e) => Math.max(most, e.step), -Infinity);
  // Timings are the machine's, not the run's: wall_seconds says how long each took.
  // A figure a run does not have (precision with no correct program: null) is left out of its cell, not averaged in as 0.
  const held = (e: { name: string; value: number }) => e.name.startsWith('eval_') && !/(_ms|_per_s)$/.test(e.name) && typeof e.value === 'number' && Number.isFinite(e.value);
  for (const e of entries) if (e.step === last && held(e)) figures[e.name] = e.value;
  // A run that scored its start too (a digit task's warm start, at step 0) has it in the table, as start_eval_*.
  if (last > 0) for (const e of entries) if (e.step === 0 && held(e)) figures[`start_${e.name}`] = e.value;
  if (!Object.keys(figures).length) return null;
  return { steps: record.steps, wallSeconds: (Date.parse(record.ended) - Date.parse(record.started)) / 1000, threads: record.threads ?? 1, figures };
}

export function gridRows(cells: GridCell[], algorithms: string[]): GridRow[] {
  const rows: GridRow[] = [];
  for (const algorithm of algorithms) {
    const mine = cells.filter((c) => c.algorithm === algorithm);
    const names = [...new Set(mine.flatMap((c) => Object.keys(c.figures)))].sort();
    const series: [string, number[]][] = [
      ...names.map((name): [string, number[]] => [name, mine.flatMap((c) => (name in c.figures ? [c.figures[name]] : []))]),
      ['steps', mine.flatMap((c) => (c.steps === null ? [] : [c.steps]))],
      ['wall_seconds', mine.flatMap((c) => (c.wallSeconds === null ? [] : [c.wallSeconds]))],
      // Under a time budget, an algorithm whose updates split over two threads has twice the cores of one that cannot: said in the table.
      ['update_threads', mine.flatMap((c) => (c.threads === null ? [] : [c.threads]))],
    ];
    for (const [figure, values] of series) {
      if (!values.length) continue;
      const mean = values.reduce((a, b) => a + b, 0) / values.length;
      const std = values.length > 1 ? Math.sqrt(values.reduce((a, v) => a + (v - mean) ** 2, 0) / (values.length - 1)) : 0;
      rows.push({ algorithm, figure, n: values.length, mean, std, min: Math.min(...values), max: Math.max(...values), values });
    }
  }
  return rows;
}

export function gridCsv(rows: GridRow[]): string {
  return ['algorithm,figure,n,mean,std,min,max', ...rows.map((r) => [r.algorithm, r.figure, r.n, r.mean, r.std, r.min, r.max].join(','))].join('\n') + '\n';
}

/** One line per figure, one column per algorithm: "mean ± std". */
export function gridMarkdown(rows: GridRow[], algorithms: string[], seeds: number[]): string {
  const figures = [...new Set(rows.map((r) => r.figure))];
  const cell = (algorithm: string, figure: string) => {
    const row = rows.find((r) => r.algorithm === algorithm && r.figure === figure);
    if (!row) return '-';
    const digits = figure === 'steps' || figure === 'update_threads' ? 0 : figure === 'wall_seconds' ? 1 : 3;
    // One seed has no spread to show; a figure some seeds lack (precision where nothing was solved) says over how many.
    const over = row.n < seeds.length ? ` (n=${row.n})` : '';
    return (row.n > 1 ? `${row.mean.toFixed(digits)} ± ${row.std.toFixed(digits)}` : row.mean.toFixed(digits)) + over;
  };
  return [
    `Mean ± sample std over seeds ${seeds.join(', ')}.`,
    '',
    `| figure | ${algorithms.join(' | ')} |`,
    `|---|${algorithms.map(() => '---:').join('|')}|`,
    ...figures.map((figure) => `| ${figure} | ${algorithms.map((a) => cell(a, figure)).join(' | ')} |`),
  ].join('\n') + '\n';
}

export async function gridCommand(argv: string[]): Promise<GridTable> {
  const { own, rest } = splitArgs(argv);
  if (own.help) {
    console.log(HELP);
    return { command: argv, code: codeVersion(), algorithms: [], seeds: [], cells: [], rows: [] };
  }
  if (typeof own.algorithms !== 'string') throw new Error('--algorithms: name the algorithms to compare, e.g. --algorithms reinforce,grpo');
  const algorithms = list('algorithms', own.algorithms);
  const unknown = algorithms.filter((a) => !algorithmNames().includes(a));
  if (unknown.length) throw new Error(`--algorithms: unknown ${unknown.join(', ')} (known: ${algorithmNames().join(', ')})`);
  const seeds = list('seeds', typeof own.seeds === 'string' ? own.seeds : '1,2,3').map((s) => {
    const n = Number(s);
    if (!Number.isInteger(n) || n < 0) throw new Error(`--seeds: "${s}" is not a whole number`);
    return n;
  });
  const out = typeof own['output-dir'] === 'string' ? own['output-dir'] : 'runs/grid';
  mkdirSync(out, { recursive: true });
  // An earlier grid's summary (other flags, other seeds) must not stand as this one's if it stops early.
  for (const file of ['grid.json', 'grid.csv', 'grid.md']) rmSync(join(out, file), { force: true });
  // With --json, stdout is the table alone: the runs speak on stderr.
  const log = console.log;
  if (own.json) console.log = (...args: unknown[]) => console.error(...args);
  // Every cell's flags are read before the first runs, so a flag one algorithm refuses (dqn and
  // gradient accumulation) stops the grid at once, not after the cells before it have trained.
  // A digit task's cells run through `npm run digits`, whose own flags differ (--verbose).
  const flags = runsAsDigits(flagValue(rest, 'task')) ? digitsFlags : trainFlags;
  for (const algorithm of algorithms) {
    try {
      parseArgs([...rest, '--algorithm', algorithm, '--seed', String(seeds[0]), '--output-dir', join(out, `${algorithm}-seed${seeds[0]}`)], flags);
    } catch (error) {
      throw new Error(`grid: ${algorithm}: ${(error as Error).message}`);
    }
  }
  /** The code this grid runs: recorded in grid.json, and compared with each kept cell's (git asked once). */
  const code = codeVersion();
  const cells: GridCell[] = [];
  try {
    let index = 0;
    for (const algorithm of algorithms) {
      for (const seed of seeds) {
        index += 1;
        const dir = join(out, `${algorithm}-seed${seed}`);
        const command = [...rest, '--algorithm', algorithm, '--seed', String(seed), '--output-dir', dir];
        let done = finishedCell(dir, command, code);
        if (done) console.error(`grid ${index}/${algorithms.length * seeds.length}: ${algorithm} seed ${seed} finished before, kept (${dir})`);
        else {
          console.error(`grid ${index}/${algorithms.length * seeds.length}: ${algorithm} seed ${seed} -> ${dir}`);
          await trainCommand(existsSync(join(dir, 'run.json')) ? [...command, '--overwrite'] : command);
          done = finishedCell(dir, command, code);
          if (!done) throw new Error(`grid: the run in ${dir} did not finish with a held-out report (interrupted?); run the grid again to go on`);
        }
        cells.push({ algorithm, seed, dir, ...done });
      }
    }
  } finally {
    console.log = log;
  }
  const rows = gridRows(cells, algorithms);
  const table: GridTable = { command: ['npm', 'run', 'grid', '--', ...argv], code, algorithms, seeds, cells, rows };
  const markdown = gridMarkdown(rows, algorithms, seeds);
  const text = (body: string) => new TextEncoder().encode(body);
  writeAtomic(join(out, 'grid.csv'), text(gridCsv(rows)));
  writeAtomic(join(out, 'grid.md'), text(markdown));
  writeAtomic(join(out, 'grid.json'), text(JSON.stringify(table, null, 2) + '\n')); // last: a grid.json means the summary is whole
  if (own.json) console.log(JSON.stringify(table));
  else console.log(`\n${markdown}\nwritten: ${join(out, 'grid.json')}, grid.csv, grid.md`);
  return table;
}

if (isEntry(import.meta.url)) runMain(async () => void (await gridCommand(process.argv.slice(2))));
