/**
 * `npm run build:kernels`: assembles the hand-written WebAssembly kernels in src/core/model with
 * wabt into their .generated.ts modules (base64, so Vite and Node load them with no bundler
 * configuration): batchMatMulKernel.wat (wasmBatchMatMul.ts) and elementwiseKernel.wat
 * (wasmElementwise.ts).
 *
 * Four binaries from each source:
 * - `fma`: the source as written, with relaxed SIMD's fused multiply-adds (`f32x4.relaxed_madd`,
 *   `f32x4.relaxed_nmadd`); wabt 1.0.39 parses and validates them with its `relaxed_simd` feature.
 * - `simd`: the same source with each relaxed multiply-add expanded into plain SIMD,
 *   `(f32x4.relaxed_madd a b c)` into `(f32x4.add (f32x4.mul a b) c)` and
 *   `(f32x4.relaxed_nmadd a b c)` into `(f32x4.sub c (f32x4.mul a b))`: the fallback for engines
 *   without relaxed SIMD (Node 20 without --experimental-wasm-relaxed-simd) and the FMA switch's
 *   "off". The expansion is one of the two results relaxed SIMD itself allows for these
 *   instructions (fused, or a multiply and an add each rounded), so both builds compute the
 *   same function; they differ in the last bits, as tests check (wasmBatchMatMul.test.ts).
 * - each of these importing a plain memory (tfjs-wasm's single-threaded builds) and a shared
 *   memory (its threaded build), since an import must match the memory's sharedness.
 * The kernels' tests rebuild and compare, so the committed bytes cannot drift from the sources.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import wabt from 'wabt';

/** The kernels, by the base name of their .wat file (also the prefix of their exports). */
export const kernelNames = ['batchMatMulKernel', 'elementwiseKernel'] as const;
export type KernelName = (typeof kernelNames)[number];

const modelPath = (file: string) => fileURLToPath(new URL(`../src/core/model/${file}`, import.meta.url));
/** Where a kernel's generated module is written. */
export const generatedPathOf = (kernel: KernelName) => modelPath(`${kernel}.generated.ts`);
/** The batched matMul kernel's generated module (the default of renderKernelModule). */
export const generatedPath = generatedPathOf('batchMatMulKernel');

const plainImport = '(import "env" "memory" (memory 1))';
// tfjs-wasm's threaded build creates its memory with a maximum of 65536 pages (4 GiB), shared.
const sharedImport = '(import "env" "memory" (memory 1 65536 shared))';

/** The index of the first character at or after `from` that is neither whitespace nor in a `;;` comment. */
function skipBlank(source: string, from: number): number {
  let i = from;
  for (;;) {
    while (i < source.length && /\s/.test(source[i])) i++;
    if (!source.startsWith(';;', i)) return i;
    const lineEnd = source.indexOf('\n', i);
    i = lineEnd < 0 ? source.length : lineEnd + 1;
  }
}

/** The s-expression or atom that starts at or after `from` (whitespace and comments skipped): [start, end). */
function operand(source: string, from: number): { start: number; end: number } {
  const start = skipBlank(source, from);
  let i = start;
  if (source[i] !== '(') {
    while (i < source.length && !/[\s()]/.test(source[i])) i++;
    if (i === start) throw new Error(`expected an operand at ${start}`);
    return { start, end: i };
  }
  for (let depth = 0; i < source.length; i++) {
    if (source.startsWith(';;', i)) i = source.indexOf('\n', i);
    if (i < 0) break;
    if (source[i] === '(') depth++;
    else if (source[i] === ')' && --depth === 0) return { start, end: i + 1 };
  }
  throw new Error(`unbalanced parentheses from ${start}`);
}

/**
 * The source with every `(f32x4.relaxed_madd a b c)` written as `(f32x4.add (f32x4.mul a b) c)`
 * and every `(f32x4.relaxed_nmadd a b c)` as `(f32x4.sub c (f32x4.mul a b))` (operands may nest
 * further relaxed multiply-adds). Only the folded form is supported: the kernels write every
 * instruction as an s-expression.
 */
export function expandRelaxedMultiplyAdd(source: string): string {
  const pattern = /\(f32x4\.relaxed_(n?)madd\b/;
  for (let match = pattern.exec(source); match; match = pattern.exec(source)) {
    const open = match.index;
    const fail = () => new Error(`${match![0]}) at ${open} takes three operands`);
    const next = (from: number) => {
      if (source[skipBlank(source, from)] === ')') throw fail();
      return operand(source, from);
    };
    const a = next(open + match[0].length);
    const b = next(a.end);
    const c = next(b.end);
    const close = skipBlank(source, c.end);
    if (source[close] !== ')') throw fail();
    const [sa, sb, sc] = [a, b, c].map((operand) => source.slice(operand.start, operand.end));
    const product = `(f32x4.mul ${sa} ${sb})`;
    const expanded = match[1] ? `(f32x4.sub ${sc} ${product})` : `(f32x4.add ${product} ${sc})`;
    source = source.slice(0, open) + expanded + source.slice(close + 1);
  }
  return source;
}

async function assemble(file: string, source: string): Promise<Uint8Array> {
  const features = { simd: true, threads: true, relaxed_simd: true };
  const module = (await wabt()).parseWat(file, source, features);
  try {
    // wabt's types omit validate's features argument; without it, a shared memory is refused.
    (module.validate as (options: typeof features) => void)(features);
    return module.toBinary({}).buffer;
  } finally {
    module.destroy();
  }
}

/** The four builds of a kernel source: fused (relaxed SIMD) and plain SIMD, each on a plain and a shared memory. */
export async function assembleKernel(file: string, source: string): Promise<{ fma: { plain: Uint8Array; shared: Uint8Array }; simd: { plain: Uint8Array; shared: Uint8Array } }> {
  if (!source.includes(plainImport)) throw new Error(`${file} must import its memory as ${plainImport}`);
  const pair = async (text: string) => ({ plain: await assemble(file, text), shared: await assemble(file, text.replace(plainImport, sharedImport)) });
  const simdSource = expandRelaxedMultiplyAdd(source);
  if (/\.relaxed_/.test(simdSource.replace(/;;.*$/gm, ''))) throw new Error(`${file}: only relaxed_madd and relaxed_nmadd have a plain SIMD expansion`);
  return { fma: await pair(source), simd: await pair(simdSource) };
}

/** A kernel's generated module text, from its .wat source as it is now. */
export async function renderKernelModule(kernel: KernelName = 'batchMatMulKernel'): Promise<string> {
  const file = `${kernel}.wat`;
  const { fma, simd } = await assembleKernel(file, readFileSync(modelPath(file), 'utf8'));
  const base64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64');
  return [
    `// Generated by \`npm run build:kernels\` (scripts/buildKernels.ts) from ${file}: do not edit.`,
    `// WebAssembly, base64: fma ${fma.plain.length} and ${fma.shared.length} bytes, simd ${simd.plain.length} and ${simd.shared.length} bytes.`,
    '',
    '/**',
    ' * fma: as written, with relaxed SIMD fused multiply-adds; simd: each relaxed multiply-add',
    ' * expanded to a multiply and an add (the fallback). plain imports an unshared memory, shared a',
    ' * shared one (tfjs-wasm built with threads).',
    ' */',
    `export const ${kernel} = {`,
    `  fma: {`,
    `    plain: '${base64(fma.plain)}',`,
    `    shared: '${base64(fma.shared)}',`,
    `  },`,
    `  simd: {`,
    `    plain: '${base64(simd.plain)}',`,
    `    shared: '${base64(simd.shared)}',`,
    `  },`,
    `};`,
    '',
  ].join('\n');
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  for (const kernel of kernelNames) {
    writeFileSync(generatedPathOf(kernel), await renderKernelModule(kernel));
    console.log(`wrote ${generatedPathOf(kernel)}`);
  }
}
