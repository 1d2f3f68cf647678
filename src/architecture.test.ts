/**
 * The import structure docs/architecture.md describes, checked: no module imports itself back
 * through others (types included, which ESLint's import-x/no-cycle does not count), generic core
 * code imports no task folder (ESLint's no-restricted-imports says where; this says it holds for
 * the whole tree), no hand-written file grows past 500 lines, the page's main thread loads
 * no tfjs backend, and its workers load only the backends they use.
 */
import { readFileSync } from 'node:fs';
// @ts-expect-error -- madge ships no type declarations
import madgeModule from 'madge';
import { describe, expect, it } from 'vitest';

const taskFolders = ['kolmogorov', 'functions', 'digits'];

/** What this test uses of madge: a module graph, its cycles and its edges. */
const madge = madgeModule as (root: string, options: object) => Promise<{ circular(): string[][]; obj(): Record<string, string[]> }>;

/** The graph of value imports (what a bundle loads), built once for the tests that read it. */
let valueGraph: Promise<Record<string, string[]>> | undefined;
const valueImports = () => (valueGraph ??= madge('src', { fileExtensions: ['ts', 'tsx'], tsConfig: 'tsconfig.json' }).then((graph) => graph.obj()));

describe('architecture', () => {
  it('has no import cycle, type imports included, and generic core code imports no task folder', async () => {
    const graph = await madge('src', {
      fileExtensions: ['ts', 'tsx'],
      tsConfig: 'tsconfig.json',
      detectiveOptions: { ts: { skipTypeImports: false }, tsx: { skipTypeImports: false } },
    });
    expect(graph.circular()).toEqual([]);
    const generic = (file: string) => file.startsWith('core/') && !taskFolders.some((folder) => file.startsWith(`core/${folder}/`)) && file !== 'core/registry.ts' && !file.endsWith('.test.ts');
    const offending = Object.entries(graph.obj()).flatMap(([file, imports]) =>
      generic(file) ? imports.filter((target) => taskFolders.some((folder) => target.startsWith(`core/${folder}/`))).map((target) => `${file} -> ${target}`) : [],
    );
    expect(offending).toEqual([]);
  }, 60_000);

  it('keeps every hand-written source file under 500 lines (generated kernels aside)', async () => {
    const long = Object.keys(await valueImports())
      .filter((file) => !file.includes('.generated.'))
      .map((file) => ({ file, lines: readFileSync(`src/${file}`, 'utf8').split('\n').length }))
      .filter(({ lines }) => lines > 500);
    expect(long).toEqual([]);
  }, 60_000);

  it('keeps the page\'s main thread off the tfjs umbrella and its backends (the workers train; the page only needs core\'s config and registry)', async () => {
    // The umbrella @tensorflow/tfjs brings layers, data and the cpu and webgl backends: 1.65 MB of
    // first bundle where core on @tensorflow/tfjs-core makes it 0.87 MB (docs/architecture.md).
    const graph = await valueImports();
    const reached = new Set<string>();
    const visit = (file: string) => {
      if (reached.has(file)) return;
      reached.add(file);
      for (const target of graph[file] ?? []) visit(target);
    };
    visit('ui/main.tsx');
    expect(reached.has('core/registry.ts')).toBe(true); // what makes this test mean something
    const heavy = /(?:from|import)\s+'@tensorflow\/tfjs(?:-backend-[a-z]+)?'/;
    const offending = [...reached].filter((file) => heavy.test(readFileSync(`src/${file}`, 'utf8')));
    expect(offending).toEqual([]);
  }, 60_000);

  it('keeps the page\'s workers off the tfjs umbrella, and the helper workers off the GPU backends', async () => {
    // Each worker is its own bundle: the umbrella put layers, data, the converter and webgl into
    // every one (gradient and generator workers 2.29 MB each; on tfjs-core, wasm and cpu, 1.14 MB).
    const graph = await valueImports();
    const reachedFrom = (entry: string) => {
      const reached = new Set<string>();
      const visit = (file: string) => {
        if (reached.has(file)) return;
        reached.add(file);
        for (const target of graph[file] ?? []) visit(target);
      };
      visit(entry);
      return [...reached];
    };
    const importing = (files: string[], pattern: RegExp) => files.filter((file) => pattern.test(readFileSync(`src/${file}`, 'utf8')));
    const umbrella = /(?:from|import)\s+'@tensorflow\/tfjs'/;
    const gpu = /(?:from|import)\s+'@tensorflow\/tfjs-backend-(?:webgl|webgpu)'/;
    // Without the umbrella, a worker registers tfjs-core's gradients and chained ops itself.
    const registers = (files: string[]) => importing(files, /register_all_gradients'/).length > 0 && importing(files, /register_all_chained_ops'/).length > 0;
    const trainer = reachedFrom('worker/trainer.worker.ts');
    expect(registers(trainer)).toBe(true);
    expect(importing(trainer, gpu)).toEqual(['worker/trainer.worker.ts']); // what makes this test mean something
    expect(importing(trainer, umbrella)).toEqual([]);
    for (const helper of ['worker/gradient.worker.ts', 'worker/generator.worker.ts']) {
      const files = reachedFrom(helper);
      expect(files).toContain('worker/wasmBackend.ts');
      expect(registers(files), helper).toBe(true);
      expect(importing(files, umbrella), helper).toEqual([]);
      expect(importing(files, gpu), helper).toEqual([]);
    }
  }, 60_000);
});
