/**
 * Writes the hand-written function problems: `npx tsx scripts/handwrittenFunctions.ts` writes
 * datasets/functions/handwritten_heldout.jsonl, `--dev` writes handwritten_dev.jsonl and `--dev2`
 * writes handwritten_dev2.jsonl.
 *
 * The problems (statement, argument names, reference solution in JavaScript, input drawer) are
 * written by hand in scripts/handwritten/*.ts, independently of the lab's problem generator, which
 * this script does not import. Tests come from running the reference, in a fresh `vm` context, on
 * hand-picked edge cases plus inputs drawn from a seeded mulberry32 generator: each problem's seed
 * is FNV-1a(name) XOR the file's seed, so adding or removing a problem leaves the others' tests
 * alone. Each problem gets 5 shown and 10 hidden tests with distinct inputs.
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import vm from 'node:vm';
import { dev2 } from './handwritten/dev2';
import { elementwise } from './handwritten/elementwise';
import { filtersFolds } from './handwritten/filtersFolds';
import { pairsPrefix } from './handwritten/pairsPrefix';
import { positional } from './handwritten/positional';
import { predicates } from './handwritten/predicates';
import { sortingIntegers } from './handwritten/sortingIntegers';
import { KINDS, fnv1a, makeRng, type Args, type Rng, type Spec, type Split } from './handwritten/types';

export const SPECS: Spec[] = [...elementwise, ...filtersFolds, ...predicates, ...positional, ...pairsPrefix, ...sortingIntegers, ...dev2];

/** The seeds of the three files. */
export const SEEDS: Record<Split, number> = { heldout: 20260611, dev: 4242, dev2: 77077 };
export const FILES: Record<Split, string> = { heldout: 'handwritten_heldout.jsonl', dev: 'handwritten_dev.jsonl', dev2: 'handwritten_dev2.jsonl' };

const SHOWN = 5;
const HIDDEN = 10;
const MAX_LIST = 64;
const MAX_PARAMS = 4;

type Test = [Args, unknown];

/** Turns -0 into 0 (JSON has one zero) and cross-realm arrays into ordinary ones. */
function normalize(value: unknown): unknown {
  if (Array.isArray(value)) return Array.from(value, normalize);
  return value === 0 ? 0 : value;
}

/** The type of a value the problem format accepts, or an error. */
function typeOf(value: unknown, where: string): string {
  if (typeof value === 'boolean') return 'bool';
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value)) throw new Error(`${where}: ${value} is not a safe integer`);
    return 'int';
  }
  if (Array.isArray(value)) {
    if (value.length > MAX_LIST) throw new Error(`${where}: list of ${value.length} values`);
    const types = new Set(value.map((v, i) => {
      if (Array.isArray(v)) throw new Error(`${where}[${i}]: nested list`);
      return typeOf(v, `${where}[${i}]`);
    }));
    if (types.size > 1) throw new Error(`${where}: list mixes integers and booleans`);
    return types.size === 0 ? 'list?' : types.has('bool') ? 'blist' : 'list';
  }
  throw new Error(`${where}: ${String(value)} is not an integer, boolean or list`);
}

/** The reference as a callable, each call run in the problem's own fresh context. */
export function compileReference(spec: Pick<Spec, 'name' | 'ref'>): (args: Args) => unknown {
  const context = vm.createContext({});
  vm.runInContext(spec.ref, context, { timeout: 1000 });
  if (typeof context[spec.name] !== 'function') throw new Error(`${spec.name}: the reference does not define function ${spec.name}`);
  return (args) => {
    context.__args = structuredClone(args);
    return normalize(vm.runInContext(`${spec.name}(...__args)`, context, { timeout: 1000 }));
  };
}

function checkSpec(spec: Spec): void {
  const where = spec.name;
  if (!/^[a-z][a-z0-9_]*$/.test(spec.name)) throw new Error(`${where}: not a snake_case name`);
  if (!KINDS.includes(spec.kind)) throw new Error(`${where}: unknown kind ${spec.kind}`);
  if (spec.params.length < 1 || spec.params.length > MAX_PARAMS) throw new Error(`${where}: ${spec.params.length} parameters`);
  const header = `function ${spec.name}(${spec.params.join(', ')}) {`;
  if (!spec.ref.startsWith(header)) throw new Error(`${where}: the reference should start with "${header}"`);
  if (spec.doc.trim() === '' || spec.doc.length > 400) throw new Error(`${where}: docstring empty or too long`);
}

/** 5 shown and 10 hidden tests: edge cases first, then random draws, with varied outputs. */
export function makeTests(spec: Spec, seed: number): { shown: Test[]; hidden: Test[] } {
  const rng: Rng = makeRng(seed);
  const run = compileReference(spec);
  const seen = new Set<string>();
  const edges: Test[] = [];
  const draws: Test[] = [];
  const add = (args: Args, into: Test[]) => {
    if (args.length !== spec.params.length) throw new Error(`${spec.name}: drew ${args.length} arguments`);
    args.forEach((a, i) => typeOf(a, `${spec.name} argument ${i + 1}`));
    const key = JSON.stringify(args);
    if (seen.has(key)) return;
    seen.add(key);
    into.push([structuredClone(args), run(args)]);
  };
  for (const args of spec.edges ?? []) add(args, edges);
  for (let attempt = 0; attempt < 2000 && draws.length < 60; attempt++) add(spec.draw(rng), draws);

  const all = [...edges, ...draws];
  const outTypes = new Set(all.map(([, out], i) => typeOf(out, `${spec.name} output ${i}`)));
  outTypes.delete('list?');
  if (outTypes.size > 1) throw new Error(`${spec.name}: outputs of different types (${[...outTypes].join(', ')})`);
  const isBool = outTypes.has('bool');

  // Keep outputs varied: first pass caps how often one output may repeat.
  const counts = new Map<string, number>();
  const chosenEdges = edges.slice(0, 5);
  const chosen: Test[] = [];
  const count = (t: Test) => counts.set(JSON.stringify(t[1]), (counts.get(JSON.stringify(t[1])) ?? 0) + 1);
  chosenEdges.forEach(count);
  const cap = isBool ? 7 : 3;
  const rest: Test[] = [];
  for (const t of draws) {
    if (chosenEdges.length + chosen.length >= SHOWN + HIDDEN) break;
    if ((counts.get(JSON.stringify(t[1])) ?? 0) < cap) {
      chosen.push(t);
      count(t);
    } else rest.push(t);
  }
  for (const t of [...rest, ...draws.filter((d) => !chosen.includes(d) && !rest.includes(d))]) {
    if (chosenEdges.length + chosen.length >= SHOWN + HIDDEN) break;
    chosen.push(t);
  }
  if (chosenEdges.length + chosen.length < SHOWN + HIDDEN) throw new Error(`${spec.name}: only ${chosenEdges.length + chosen.length} distinct inputs`);

  // Shown: four draws (preferring ones without lists of 0 or 1 elements, which say little) and
  // the first edge case (at a random place); hidden: the rest, shuffled.
  const tiny = (t: Test) => t[0].some((a) => Array.isArray(a) && a.length <= 1);
  const ordered = [...chosen.filter((t) => !tiny(t)), ...chosen.filter(tiny)];
  const shown = ordered.slice(0, SHOWN - Math.min(1, chosenEdges.length));
  const hidden = [...chosenEdges.slice(1), ...chosen.filter((t) => !shown.includes(t))];
  if (chosenEdges.length > 0) shown.splice(rng.int(0, shown.length), 0, chosenEdges[0]);
  rng.shuffle(hidden);
  // The shown tests should say something: at least two of each answer for a yes/no problem, at
  // least three different outputs otherwise (when the hidden tests have them). A shown draw whose
  // output repeats among the shown tests trades places with a hidden draw whose output is missing.
  const key = (t: Test) => JSON.stringify(t[1]);
  const countIn = (tests: Test[], k: string) => tests.filter((t) => key(t) === k).length;
  for (let swaps = 0; swaps < SHOWN; swaps++) {
    const keys = shown.map(key);
    let missing: (t: Test) => boolean;
    if (isBool) {
      const rare = countIn(shown, 'true') < 2 ? 'true' : countIn(shown, 'false') < 2 ? 'false' : undefined;
      if (rare === undefined) break;
      missing = (t) => key(t) === rare;
    } else {
      if (new Set(keys).size >= 3) break;
      missing = (t) => !keys.includes(key(t));
    }
    const j = hidden.findIndex((t) => missing(t) && !chosenEdges.includes(t));
    const i = shown.findIndex((t) => !chosenEdges.includes(t) && countIn(shown, key(t)) > (isBool ? 2 : 1));
    if (j < 0 || i < 0) break;
    [shown[i], hidden[j]] = [hidden[j], shown[i]];
  }
  if (isBool && new Set(shown.map(key)).size < 2) throw new Error(`${spec.name}: shown tests have one boolean output only`);
  return { shown, hidden };
}

export function buildFile(split: Split, specs: Spec[] = SPECS): string {
  const names = new Set<string>();
  for (const spec of specs) {
    checkSpec(spec);
    if (names.has(spec.name)) throw new Error(`${spec.name}: two problems have this name`);
    names.add(spec.name);
  }
  const lines = specs.filter((s) => s.split === split).map((spec) => {
    const { shown, hidden } = makeTests(spec, (fnv1a(spec.name) ^ SEEDS[split]) >>> 0);
    return JSON.stringify({
      function_name: spec.name,
      docstring: spec.doc,
      test_cases: shown,
      hidden_test_cases: hidden,
      starter_code: `def ${spec.name}(${spec.params.join(', ')}):\n    pass`,
      parameters: spec.params,
      reference: spec.ref,
      kind: spec.kind,
    });
  });
  return lines.join('\n') + '\n';
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const split: Split = process.argv.includes('--dev2') ? 'dev2' : process.argv.includes('--dev') ? 'dev' : 'heldout';
  const path = fileURLToPath(new URL(`../datasets/functions/${FILES[split]}`, import.meta.url));
  const text = buildFile(split);
  writeFileSync(path, text);
  const lines = text.trim().split('\n').map((l) => JSON.parse(l) as { kind: string });
  const byKind = new Map<string, number>();
  for (const l of lines) byKind.set(l.kind, (byKind.get(l.kind) ?? 0) + 1);
  console.log(`${path}: ${lines.length} problems (${[...byKind].map(([k, n]) => `${k} ${n}`).join(', ')})`);
}
