/**
 * Fused ops for tfjs-backend-wasm: GELU (tanh approximation) and LayerNorm over the last axis, and
 * their gradients, each one SIMD kernel (elementwiseKernel.wat) instead of 6-9 tfjs ops; and
 * Adam's update of a variable (PrlAdam, `fusedAdamStep`), one kernel instead of ~12 ops.
 *
 * On the reference policy (hidden [2016, 512]) tfjs's composite GELU cost ~100 ms of a ~490 ms
 * training step: tfjs-wasm's Tanh is a scalar libm loop, and the other multiplies and adds and
 * their gradients are a pass each over 4 MB; its five LayerNorms another 30-40 ms.
 * installWasmElementwise() registers new kernels on the wasm backend (PrlGelu, PrlGeluGrad,
 * PrlLayerNorm, PrlLayerNormGrad), and gelu() and layerNorm() below use them (through
 * tf.customGrad, so they are differentiable) when they are active on the current backend; on any
 * other backend, for other dtypes, or when they could not be installed, they are the composites
 * (compositeGelu, compositeLayerNorm: transformer.ts's formulas).
 *
 * As in wasmBatchMatMul.ts, the kernels come in a fused multiply-add build (relaxed SIMD) and a
 * plain SIMD one (wasmKernelModule.ts), and the kernel module imports tfjs-wasm's own WebAssembly.Memory and works
 * on tensor data in place: inputs at their memoryOffset, the output from backend.makeOutput. If
 * that memory cannot be found (another tfjs build), or this engine lacks WebAssembly SIMD, nothing
 * is registered and the returned status says why.
 */
import * as tf from '@tensorflow/tfjs-core';
import { elementwiseKernel } from './elementwiseKernel.generated';
import { instantiateOnTfjsMemory, multiplyAddVersion, type MultiplyAdd, type TfjsWasmModule } from './wasmKernelModule';

export interface WasmElementwiseStatus {
  /** True when gelu() and layerNorm() run on the SIMD kernels (while wasm is the active backend). */
  active: boolean;
  /** What is used and, when inactive, why. */
  reason: string;
  /** Kernel runs (forward and gradient) since the process started (tests check it moves). */
  calls: number;
  /** The build the kernels last ran on (fused multiply-add or plain SIMD), null before the first. */
  build: MultiplyAdd | null;
}

/** The parts of tfjs-wasm's BackendWasm this file uses (they are not in its public types). */
interface WasmBackend {
  wasm: TfjsWasmModule;
  dataIdMap: { get(dataId: object): { memoryOffset: number } | undefined };
  makeOutput(shape: number[], dtype: 'float32'): tf.TensorInfo;
}

interface Kernels {
  gelu(x: number, y: number, n: number): void;
  geluGrad(x: number, dy: number, dx: number, n: number): void;
  layerNorm(x: number, gamma: number, beta: number, y: number, mean: number, rstd: number, rows: number, d: number, eps: number): void;
  layerNormGrad(x: number, gamma: number, mean: number, rstd: number, dy: number, dx: number, dgamma: number, dbeta: number, rows: number, d: number): void;
  adam(w: number, m: number, v: number, g: number, wOut: number, mOut: number, vOut: number, n: number,
    beta1: number, beta2: number, oneMinusBeta1: number, oneMinusBeta2: number, stepSize: number, invCorrection2: number, epsilon: number, scale: number): void;
}

/** The kernels instantiated on one backend instance's memory. */
interface Binding {
  backend: WasmBackend;
  kernels: Kernels;
  build: MultiplyAdd;
  /** multiplyAddVersion() when it was made: the FMA switch changed since when they differ. */
  version: number;
}

const geluKernel = 'PrlGelu';
const geluGradKernel = 'PrlGeluGrad';
const layerNormKernel = 'PrlLayerNorm';
const layerNormGradKernel = 'PrlLayerNormGrad';
const adamKernel = 'PrlAdam';
/** LayerNorm's epsilon (added to the variance), as in transformer.ts. */
export const layerNormEpsilon = 1e-5;

let installed: { reason: string; active: boolean } | null = null;
let binding: Binding | null = null;
let calls = 0;

/** Instantiates the kernels on a backend's memory, or says why it cannot. */
function bind(backend: WasmBackend): Binding | string {
  const made = instantiateOnTfjsMemory(backend.wasm, elementwiseKernel);
  return typeof made === 'string' ? made : { backend, kernels: made.exports as unknown as Kernels, build: made.build, version: made.version };
}

/**
 * The kernels bound to this backend instance (a new one after tf.removeBackend: a new memory)
 * under the current FMA choice, or null.
 */
function bindingFor(backend: WasmBackend): Binding | null {
  if (binding?.backend !== backend || binding.version !== multiplyAddVersion()) {
    const bound = bind(backend);
    if (typeof bound === 'string') return null;
    binding = bound;
  }
  return binding;
}

/**
 * Runs one kernel: makes float32 outputs of the given shapes, then calls the kernel with the
 * inputs' offsets, the outputs' offsets and the inputs' shapes.
 */
function runFused(args: { inputs: tf.NamedTensorInfoMap; backend: unknown }, names: string[],
  outputShapes: (shapes: number[][]) => number[][],
  call: (kernels: Kernels, offsets: number[], shapes: number[][]) => void): tf.TensorInfo[] {
  const backend = args.backend as WasmBackend;
  const bound = bindingFor(backend);
  if (!bound) throw new Error('wasmElementwise: the kernels cannot run on this backend instance');
  const inputs = names.map((name) => args.inputs[name] as tf.TensorInfo);
  const shapes = inputs.map((t) => t.shape);
  const outputs = outputShapes(shapes).map((shape) => backend.makeOutput(shape, 'float32'));
  const offset = (t: tf.TensorInfo) => backend.dataIdMap.get(t.dataId)!.memoryOffset;
  call(bound.kernels, [...inputs, ...outputs].map(offset), shapes);
  calls++;
  return outputs;
}

const size = (shape: number[]) => tf.util.sizeFromShape(shape);
/** [rows, d] of a LayerNorm input: d its last dimension, rows the product of the others. */
const rowsAndDepth = (shape: number[]): [number, number] => [size(shape.slice(0, -1)), shape[shape.length - 1]];

const kernelConfigs: tf.KernelConfig[] = [
  {
    kernelName: geluKernel, backendName: 'wasm',
    kernelFunc: (args) => runFused(args, ['x'], ([x]) => [x], (k, [x, y], [shape]) => k.gelu(x, y, size(shape)))[0],
  },
  {
    kernelName: geluGradKernel, backendName: 'wasm',
    kernelFunc: (args) => runFused(args, ['x', 'dy'], ([x]) => [x], (k, [x, dy, dx], [shape]) => k.geluGrad(x, dy, dx, size(shape)))[0],
  },
  {
    // Outputs y, and the per-row mean and rstd = 1 / sqrt(var + epsilon) for the gradient.
    kernelName: layerNormKernel, backendName: 'wasm',
    kernelFunc: (args) => runFused(args, ['x', 'gamma', 'beta'], ([x]) => [x, [rowsAndDepth(x)[0]], [rowsAndDepth(x)[0]]],
      (k, [x, gamma, beta, y, mean, rstd], [shape]) => k.layerNorm(x, gamma, beta, y, mean, rstd, ...rowsAndDepth(shape), layerNormEpsilon)),
  },
  {
    // Outputs dx, dgamma and dbeta.
    kernelName: layerNormGradKernel, backendName: 'wasm',
    kernelFunc: (args) => runFused(args, ['x', 'gamma', 'mean', 'rstd', 'dy'], ([x, gamma]) => [x, gamma, gamma],
      (k, [x, gamma, mean, rstd, dy, dx, dgamma, dbeta], [shape]) =>
        k.layerNormGrad(x, gamma, mean, rstd, dy, dx, dgamma, dbeta, ...rowsAndDepth(shape))),
  },
  {
    // Outputs the variable, the first and the second moment after one step (AdamAttrs).
    kernelName: adamKernel, backendName: 'wasm',
    kernelFunc: (args) => {
      const a = args.attrs as unknown as AdamAttrs;
      return runFused(args, ['w', 'm', 'v', 'g'], ([w]) => [w, w, w], (k, [w, m, v, g, wOut, mOut, vOut], [shape]) =>
        k.adam(w, m, v, g, wOut, mOut, vOut, size(shape), a.beta1, a.beta2, 1 - a.beta1, 1 - a.beta2, a.stepSize, a.invCorrection2, a.epsilon, a.scale));
    },
  },
];

/**
 * Registers the fused kernels on the wasm backend (idempotent). Call once tf.setBackend('wasm')
 * has resolved (wasm the active backend), so that the kernels can be checked against the
 * backend's memory; returns whether they are active and why not (then nothing was registered,
 * and a later call may try again).
 */
export function installWasmElementwise(): WasmElementwiseStatus {
  if (installed?.active) return wasmElementwiseStatus();
  const refuse = (reason: string) => {
    installed = { active: false, reason: `tfjs's composite ops: ${reason}` };
    return wasmElementwiseStatus();
  };
  if (!tf.getKernel('Tanh', 'wasm')) return refuse('the wasm backend is not registered');
  // Not tf.findBackend('wasm'): on a backend not yet started, that starts it.
  if (tf.getBackend() !== 'wasm') return refuse(`the active backend is ${tf.getBackend()}, not wasm`);
  const bound = bind(tf.backend() as unknown as WasmBackend);
  if (typeof bound === 'string') return refuse(bound);
  binding = bound;
  for (const config of kernelConfigs) {
    if (!tf.getKernel(config.kernelName, config.backendName)) tf.registerKernel(config);
  }
  installed = { active: true, reason: 'fused SIMD kernels for float32 values and gradients' };
  return wasmElementwiseStatus();
}

export function wasmElementwiseStatus(): WasmElementwiseStatus {
  return { active: installed?.active ?? false, reason: installed?.reason ?? 'not installed', calls, build: binding?.build ?? null };
}

/** True when the fused kernels can run on the current backend. */
function kernelsReady(): boolean {
  return installed?.active === true && tf.getBackend() === 'wasm' && bindingFor(tf.backend() as unknown as WasmBackend) !== null;
}

/** GELU (tanh approximation) from tfjs ops: 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))). */
export function compositeGelu(x: tf.Tensor): tf.Tensor {
  const cube = x.mul(x).mul(x);
  return x.mul(0.5).mul(tf.tanh(x.add(cube.mul(0.044715)).mul(Math.sqrt(2 / Math.PI))).add(1));
}

// tf.customGrad passes the inputs and then the save function, all typed as one union.
const fusedGelu = tf.customGrad((...args: (tf.Tensor | tf.GradSaveFunc)[]) => {
  const [x, save] = args as [tf.Tensor, tf.GradSaveFunc];
  save([x]);
  return {
    value: tf.engine().runKernel<tf.Tensor>(geluKernel, { x }),
    gradFunc: (dy: tf.Tensor, saved: tf.Tensor[]) => tf.engine().runKernel<tf.Tensor>(geluGradKernel, { x: saved[0], dy }),
  };
});

/**
 * GELU (tanh approximation), differentiable: the fused kernels for float32 on wasm once
 * installWasmElementwise() succeeded, compositeGelu otherwise. The two agree to ~1e-6.
 */
export function gelu(x: tf.Tensor): tf.Tensor {
  return x.dtype === 'float32' && kernelsReady() ? fusedGelu(x) : compositeGelu(x);
}

/** One Adam step's constants (adam.ts): the gradient is scaled by `scale` (clipping) first. */
export interface AdamAttrs {
  beta1: number;
  beta2: number;
  /** learningRate / (1 - beta1^t). */
  stepSize: number;
  /** 1 / (1 - beta2^t). */
  invCorrection2: number;
  epsilon: number;
  scale: number;
}

/**
 * One Adam step of a float32 variable on the fused kernel: the new variable, first and second
 * moment, or null where the kernel cannot run (another backend or dtype; adam.ts then composes it
 * from tfjs ops). Agrees with the composite to a few float32 roundings (a product by 1 / (1 - beta2^t)
 * where the composite divides, and fused multiply-adds).
 */
export function fusedAdamStep(w: tf.Tensor, m: tf.Tensor, v: tf.Tensor, g: tf.Tensor, attrs: AdamAttrs): [tf.Tensor, tf.Tensor, tf.Tensor] | null {
  if (![w, m, v, g].every((t) => t.dtype === 'float32' && t.size === w.size) || !kernelsReady()) return null;
  return tf.engine().runKernel<tf.Tensor[]>(adamKernel, { w, m, v, g }, attrs as unknown as tf.NamedAttrMap) as [tf.Tensor, tf.Tensor, tf.Tensor];
}

/** LayerNorm over the last axis from tfjs ops (tf.moments), epsilon layerNormEpsilon. */
export function compositeLayerNorm(x: tf.Tensor, gamma: tf.Tensor, beta: tf.Tensor): tf.Tensor {
  const { mean, variance } = tf.moments(x, -1, true);
  return x.sub(mean).mul(tf.rsqrt(variance.add(layerNormEpsilon))).mul(gamma).add(beta);
}

const fusedLayerNorm = tf.customGrad((...args: (tf.Tensor | tf.GradSaveFunc)[]) => {
  const [x, gamma, beta, save] = args as [tf.Tensor, tf.Tensor, tf.Tensor, tf.GradSaveFunc];
  const [y, mean, rstd] = tf.engine().runKernel<tf.Tensor[]>(layerNormKernel, { x, gamma, beta });
  save([x, gamma, mean, rstd]); // mean and rstd themselves are disposed when the forward returns
  return {
    value: y,
    gradFunc: (dy: tf.Tensor, saved: tf.Tensor[]) => {
      const [sx, sgamma, smean, srstd] = saved;
      return tf.engine().runKernel<tf.Tensor[]>(layerNormGradKernel, { x: sx, gamma: sgamma, mean: smean, rstd: srstd, dy });
    },
  };
});

/**
 * LayerNorm over the last axis, (x - mean) / sqrt(var + 1e-5) gamma + beta, differentiable in x,
 * gamma and beta: the fused kernels for float32 on wasm when gamma and beta are vectors of x's
 * last dimension, compositeLayerNorm otherwise. The two agree to ~1e-6.
 */
export function layerNorm(x: tf.Tensor, gamma: tf.Tensor, beta: tf.Tensor): tf.Tensor {
  const d = x.shape[x.rank - 1];
  const fits = x.rank >= 1 && d > 0 && [gamma, beta].every((t) => t.rank === 1 && t.shape[0] === d);
  const float32 = [x, gamma, beta].every((t) => t.dtype === 'float32');
  return fits && float32 && kernelsReady() ? fusedLayerNorm(x, gamma, beta) : compositeLayerNorm(x, gamma, beta);
}
