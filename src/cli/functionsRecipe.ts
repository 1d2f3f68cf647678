/**
 * `npm run recipe -- --task functions`: the functions task's recipe, end to end, within an hour
 * on 2 cores.
 *
 *   1. supervised warm start on generated problems (functions/generator.ts; never one equal to a
 *      held-out problem), its progress measured greedily on the dev problems: `pretrain`
 *   2. REINFORCE from the warm start on the generated training file and the seed's 8 training
 *      problems, KL to the warm start, group baseline: `train --init-from`
 *   3. each policy scored on the held-out list functions, the seed's 8 training and its 3
 *      evaluation problems: greedy (pass@1) and best-of-k (the first of the greedy program and
 *      k - 1 samples that passes the shown tests, scored on every test): `eval --task functions`
 *
 * Settings were chosen on datasets/functions/dev.jsonl (20 hand-written problems of the same
 * kind) and handwritten_dev.jsonl (59); `--dev-only` scores nothing else, so settings can be
 * tried without reading a held-out file, and `--ship-only` then scores the chosen RL policy on
 * the held-out set once. `--ship` copies the RL policy to public/functions.prl with
 * public/functions.json, what the regression test checks.
 */
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readCheckpointFile, readJsonChecked } from './data';
import { parseArgs, usage, type ExtraFlag } from './args';
import { formatTable } from './report';
import { shippedPolicy } from './shippedPolicy';
import { stage } from './stage';
import { finishedScores, writeWarmStartRecord } from './recipeRecord';
import { recordFreshStart, recordReusedStart } from './warmStartOrigin';

const extras: ExtraFlag[] = [
  { name: 'help', doc: 'show this help', boolean: true },
  { name: 'out', doc: 'directory of the checkpoints, logs and recipe.json', defaultValue: 'runs/functions-recipe' },
  { name: 'pretrain-steps', doc: 'supervised warm-start updates', defaultValue: '3000' },
  { name: 'rl-steps', doc: 'REINFORCE updates from the warm start', defaultValue: '300' },
  { name: 'k', doc: 'programs per problem for best-of-k (the greedy one and k - 1 samples)', defaultValue: '8' },
  { name: 'ship', doc: 'copy the RL policy to public/functions.prl, with its record public/functions.json', boolean: true },
  { name: 'smoke', doc: 'a tiny model and few steps: checks the whole pipeline (tests)', boolean: true },
  { name: 'ship-only', doc: 'only ship a policy of an earlier run in --out (its recipe.json)', boolean: true },
  { name: 'ship-policy', doc: 'which policy --ship and --ship-only ship: rl (the warm start + RL) or warm (the warm start alone, when the dev sets chose it)', defaultValue: 'rl' },
  { name: 'reuse-warm-start', doc: 'keep the warm start of an earlier run in --out (same flags) and run only RL and the evaluations', boolean: true },
  { name: 'init-from', doc: 'the warm start continues from this checkpoint (same shape, e.g. public/functions.prl, or fewer layers: the policy grows, see --layers) instead of from random weights' },
  { name: 'layers', doc: 'transformer blocks of the policy; with a shallower --init-from, the new blocks go on top and start as the identity', defaultValue: '2' },
  { name: 'pretrain-lr', doc: 'the warm start\'s peak learning rate', defaultValue: '0.003' },
  { name: 'rl-lr', doc: 'the RL learning rate', defaultValue: '0.0001' },
  { name: 'seed', doc: 'seed of the warm start\'s generated stream and of RL (a second warm start from the first should draw other problems)', defaultValue: '1' },
  { name: 'dev-only', doc: 'score the policies on the dev sets and the seed problems only, never the held-out ones (for choosing settings); --ship-only then scores the RL policy on the held-out sets before shipping it', boolean: true },
];

const model = (layers: string) => ['--task', 'functions', '--d-model', '64', '--layers', layers, '--heads', '4', '--context', '192', '--max-program-tokens', '40'];
const smokeModel = ['--d-model', '16', '--heads', '2', '--batch-size', '4', '--eval-limit', '4'];
const pretrainFlags = ['--batch-size', '32', '--warmup', '100', '--threads', '2', '--eval-every', '1000', '--eval-limit', '20', '--eval-data-path', 'datasets/functions/dev.jsonl'];
const rlFlags = [
  // The seed's 8 problems 50 times among the 4,000 generated ones: each is drawn about as often as
  // 100 generated problems are. On the dev set (from the same warm start, 300 steps) greedy went
  // 0.90 -> 0.95 with them weighed so (best-of-8 0.95 both), and the seed problems' success rates rose.
  '--problems', 'datasets/functions/train.jsonl,datasets/functions/training_problems.json*50',
  '--eval-data-path', 'datasets/functions/dev.jsonl',
  '--batch-size', '32', '--group-size', '4', '--kl-coef', '0.05', '--entropy-coef', '0.001',
  '--reward-type', 'test_cases', '--checkpoint-freq', '0', '--eval-samples', '20',
];
const smokeRl = ['--d-model', '16', '--heads', '2', '--batch-size', '4', '--group-size', '2', '--eval-samples', '4'];

/** The problem sets each policy is scored on: the held-out ones are reported, the dev ones choose settings. */
export const functionSets = [
  { name: 'held-out', path: 'datasets/functions/heldout.jsonl', heldout: true },
  { name: 'seed training', path: 'datasets/functions/training_problems.json', heldout: false },
  { name: 'seed evaluation', path: 'datasets/functions/evaluation_problems.json', heldout: false },
  { name: 'dev', path: 'datasets/functions/dev.jsonl', heldout: false },
  { name: 'handwritten dev', path: 'datasets/functions/handwritten_dev.jsonl', heldout: false },
  { name: 'handwritten dev2', path: 'datasets/functions/handwritten_dev2.jsonl', heldout: false },
] as const;

interface FunctionScore {
  n: number;
  solved: number;
  pass_at_1: number;
  per_problem: { function_name: string; solved: boolean; pass_at_1: boolean; program: string }[];
}

export async function functionsRecipe(argv: string[]): Promise<void> {
  if (argv.includes('--help') || argv.includes('-h')) {
    console.log(usage('recipe', 'The functions recipe (--task functions): warm start on generated problems, then RL, then the held-out and seed problems scored greedy and best-of-k.', extras, false));
    return;
  }
  const { extra, extraGiven } = parseArgs(argv, extras, false);
  // A smoke run is small in steps too, unless told otherwise.
  if (extra.smoke) for (const [name, value] of [['pretrain-steps', '2'], ['rl-steps', '1']]) if (!extraGiven.has(name)) extra[name] = value;
  const out = String(extra.out);
  const k = String(extra.k);
  mkdirSync(out, { recursive: true });
  const warm = join(out, 'pretrained.prl');
  const rlDir = join(out, 'rl');
  const rl = join(rlDir, 'latest.prl');
  const smoke = Boolean(extra.smoke);
  // A smoke run is one layer deep unless --layers says otherwise (a smoke run of a deeper policy's pipeline).
  const modelFlags = model(smoke && !extraGiven.has('layers') ? '1' : String(extra.layers));
  const seconds: Record<string, number> = {};
  if (extra['ship-policy'] !== 'rl' && extra['ship-policy'] !== 'warm') throw new Error(`--ship-policy: rl or warm, got "${String(extra['ship-policy'])}"`);
  const shipped = extra['ship-policy'] === 'warm' ? { name: 'warm start', checkpoint: warm } : { name: 'warm start + RL', checkpoint: rl };
  if (extra['ship-only']) {
    const earlier = readJsonChecked(join(out, 'recipe.json'), 'recipe result') as { scores?: Record<string, Record<string, FunctionScore>>; flags: Record<string, unknown> };
    const scores = finishedScores(earlier, out);
    // A --dev-only run: the policy shipped (and only it) is scored on the held-out sets now, once.
    const missing = functionSets.filter((set) => !scores[shipped.name][set.name]);
    if (missing.length) {
      Object.assign(scores[shipped.name], await scoreSets(out, shipped.name, shipped.checkpoint, missing, k));
      writeFileSync(join(out, 'recipe.json'), JSON.stringify(earlier, null, 2) + '\n');
    }
    return ship(shipped, scores, { ...earlier.flags, 'ship-policy': extra['ship-policy'] }, k, true);
  }
  if (extra['reuse-warm-start']) {
    // The warm start is deterministic given its flags, so an earlier run's is the one this run would make.
    if (!existsSync(warm) || !existsSync(join(out, 'recipe.json'))) throw new Error(`--reuse-warm-start: ${out} holds no earlier run (its pretrained.prl and recipe.json)`);
    const earlier = readJsonChecked(join(out, 'recipe.json'), 'recipe result') as { seconds: Record<string, number>; flags: Record<string, unknown> };
    seconds.pretrain = earlier.seconds.pretrain;
    console.error(`\n== warm start: reusing ${warm} (${(seconds.pretrain / 60).toFixed(1)} min in the run that made it)`);
    recordReusedStart(extra, earlier.flags, extraGiven, ['pretrain-steps', 'pretrain-lr']);
  } else {
    recordFreshStart(extra);
    rmSync(join(out, 'recipe.json'), { force: true });
    const initFrom = typeof extra['init-from'] === 'string' ? ['--init-from', extra['init-from']] : [];
    seconds.pretrain = await stage('warm start', 'src/cli/pretrain.ts', [...modelFlags, ...pretrainFlags, '--learning-rate', String(extra['pretrain-lr']), '--seed', String(extra.seed), ...initFrom, ...(smoke ? smokeModel : []), '--steps', String(extra['pretrain-steps']), '--out', warm, '--overwrite']);
  }
  writeWarmStartRecord(out, seconds, { model: modelFlags, pretrainFlags, rlFlags, ...extra });
  seconds.rl = await stage('RL', 'src/cli/train.ts', [...modelFlags, ...rlFlags, '--learning-rate', String(extra['rl-lr']), '--seed', String(extra.seed), ...(smoke ? smokeRl : []), '--init-from', warm, '--max-steps', String(extra['rl-steps']), '--output-dir', rlDir, '--overwrite', '--quiet']);
  const scores: Record<string, Record<string, FunctionScore>> = {};
  const evalStarted = performance.now();
  const sets = functionSets.filter((set) => !(extra['dev-only'] && set.heldout));
  for (const [policy, checkpoint] of [['warm start', warm], ['warm start + RL', rl]] as const) scores[policy] = await scoreSets(out, policy, checkpoint, sets, k);
  seconds.eval = (performance.now() - evalStarted) / 1000;
  const rows = Object.entries(scores).flatMap(([policy, scored]) =>
    sets.map(({ name }): string[] => [policy, name, String(scored[name].n), scored[name].pass_at_1.toFixed(3), scored[name].solved.toFixed(3)]));
  const table = [
    formatTable(['policy', 'problems', 'n', `greedy (pass@1)`, `best-of-${k}`], rows),
    `wall time: warm start ${(seconds.pretrain / 60).toFixed(1)} min, RL ${(seconds.rl / 60).toFixed(1)} min, evaluation ${(seconds.eval / 60).toFixed(1)} min`,
  ].join('\n');
  writeFileSync(join(out, 'recipe.json'), JSON.stringify({ scores, seconds, flags: { model: modelFlags, pretrainFlags, rlFlags, ...extra } }, null, 2) + '\n');
  console.log(table);
  if (extra.ship) {
    if (extra['dev-only']) throw new Error('--ship with --dev-only: the held-out sets were not scored; run --ship-only on this --out to score them and ship');
    await ship(shipped, scores, extra, k, false);
  }
}

/** The checkpoint as the page's warm start (shippedPolicy.ts) with the RL learning rate `learningRate`. */
export function asShippedPolicy(bytes: Uint8Array, learningRate: number): Promise<Uint8Array> {
  return shippedPolicy(bytes, (own) => ({ ...own, algorithm: { ...own.algorithm, learningRate } }));
}

/** Each set scored with eval --task functions (greedy and best-of-k), its JSON kept in `out`. */
async function scoreSets(out: string, policy: string, checkpoint: string, sets: readonly (typeof functionSets)[number][], k: string): Promise<Record<string, FunctionScore>> {
  const scored: Record<string, FunctionScore> = {};
  for (const set of sets) {
    const file = join(out, `eval-${policy}-${set.name}.json`.replace(/[^a-z0-9.-]+/gi, '-').toLowerCase());
    await stage(`eval: ${policy}, ${set.name}`, 'src/cli/eval.ts', ['--task', 'functions', '--checkpoint', checkpoint, '--data', set.path, '--k', k, '--out', file]);
    scored[set.name] = readJsonChecked(file, 'recipe result') as FunctionScore;
  }
  return scored;
}

/** Ships a policy (the RL one unless --ship-policy warm): public/functions.prl, and what the regression test checks in public/functions.json. */
async function ship(shipped: { name: string; checkpoint: string }, scores: Record<string, Record<string, FunctionScore>>, flags: Record<string, unknown>, k: string, later: boolean): Promise<void> {
  // The page runs RL from the shipped policy with the config inside it: a warm start's carries the
  // warm-start stage's learning rate (10x the RL one), so it is given the RL stage's; an RL
  // policy's step and optimizer state stay behind.
  writeFileSync('public/functions.prl', await asShippedPolicy(readCheckpointFile(shipped.checkpoint), Number(flags['rl-lr'] ?? 1e-4)));
  const made = ['out', 'init-from', 'layers', 'seed', 'pretrain-steps', 'pretrain-lr', 'rl-steps', 'rl-lr', 'k'].filter((name) => typeof flags[name] === 'string').map((name) => `--${name} ${String(flags[name])}`);
  const choice = flags['ship-policy'] === 'warm' ? ' --ship-policy warm' : '';
  const after = scores[shipped.name];
  const solvedOf = (set: string) => after[set].per_problem.filter((row) => row.solved).map((row) => row.function_name);
  const record = {
    made_by: later
      ? `npm run recipe -- --task functions ${made.join(' ')}${flags['dev-only'] ? ' --dev-only' : ''}, then the same with --ship-only${choice}`
      : `npm run recipe -- --task functions ${made.join(' ')} --ship${choice}`,
    shipped_policy: shipped.name,
    ...(typeof flags['init-from'] === 'string' ? { warm_start_from: { file: flags['init-from'], sha256: flags['init-sha256'] } } : {}),
    k: Number(k),
    seed_training_solved: solvedOf('seed training'),
    seed_evaluation_solved: solvedOf('seed evaluation'),
    heldout: { n: after['held-out'].n, pass_at_1: after['held-out'].pass_at_1, solved: after['held-out'].solved },
    scores: Object.fromEntries(Object.entries(scores).map(([policy, sets]) => [policy, Object.fromEntries(Object.entries(sets).map(([name, s]) => [name, { n: s.n, pass_at_1: s.pass_at_1, solved: s.solved }]))])),
  };
  writeFileSync('public/functions.json', JSON.stringify(record, null, 2) + '\n');
  console.error('shipped public/functions.prl and public/functions.json');
}
