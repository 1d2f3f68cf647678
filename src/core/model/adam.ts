/**
 * Adam (Kingma & Ba) with its whole state explicit: first and second moments per variable and
 * the step count. tfjs's own Adam keeps its bias-correction powers as running products that a
 * restored optimizer recomputes with pow(), so a resumed run drifts from a straight one, and
 * its getWeights() allocates a tensor per call. Here the correction is computed on the host
 * from the step count, so save -> load -> step equals step bit for bit.
 */
import * as tf from '@tensorflow/tfjs-core';
import { variableFrom } from './variable';
import { fusedAdamStep } from './wasmElementwise';
import type { WeightArray } from './transformer';

export interface AdamConfig {
  learningRate: number;
  beta1?: number;
  beta2?: number;
  epsilon?: number;
}

export class Adam {
  private readonly first: tf.Variable[];
  private readonly second: tf.Variable[];
  private steps = 0;
  /** The step size; a schedule may change it between steps (it is not part of the saved state). */
  learningRate: number;
  private readonly beta1: number;
  private readonly beta2: number;
  private readonly epsilon: number;

  constructor(
    private readonly variables: readonly tf.Variable[],
    private readonly config: AdamConfig,
  ) {
    this.beta1 = config.beta1 ?? 0.9;
    this.beta2 = config.beta2 ?? 0.999;
    this.epsilon = config.epsilon ?? 1e-8;
    this.learningRate = config.learningRate;
    this.first = variables.map((v) => variableFrom(tf.zerosLike(v), false));
    this.second = variables.map((v) => variableFrom(tf.zerosLike(v), false));
  }

  get stepCount(): number {
    return this.steps;
  }

  /** Applies gradients given in the order of the variables (scaled by `scale`, for clipping). */
  apply(gradients: readonly tf.Tensor[], scale = 1): void {
    this.steps += 1;
    const correction1 = 1 - this.beta1 ** this.steps;
    const correction2 = 1 - this.beta2 ** this.steps;
    const stepSize = this.learningRate / correction1;
    tf.tidy(() => {
      this.variables.forEach((variable, i) => {
        // On wasm one fused kernel per variable (wasmElementwise.ts): ~12 tfjs ops of a pass each
        // cost 5-6 ms a step of the reference policy, mostly the ops' own overhead.
        const fused = fusedAdamStep(variable, this.first[i], this.second[i], gradients[i], {
          beta1: this.beta1, beta2: this.beta2, stepSize, invCorrection2: 1 / correction2, epsilon: this.epsilon, scale,
        });
        if (fused) {
          this.first[i].assign(fused[1]);
          this.second[i].assign(fused[2]);
          variable.assign(fused[0]);
          return;
        }
        const g = scale === 1 ? gradients[i] : gradients[i].mul(scale);
        const m = this.first[i].mul(this.beta1).add(g.mul(1 - this.beta1));
        const v = this.second[i].mul(this.beta2).add(g.square().mul(1 - this.beta2));
        this.first[i].assign(m);
        this.second[i].assign(v);
        variable.assign(variable.sub(m.mul(stepSize).div(v.div(correction2).sqrt().add(this.epsilon))));
      });
    });
  }

  /** The state as named arrays; `names` are the variables' checkpoint names. */
  getState(names: readonly string[]): WeightArray[] {
    return [
      { name: 'adam/steps', shape: [1], data: new Float32Array([this.steps]) },
      ...this.first.map((m, i) => ({ name: `adam/m/${names[i]}`, shape: [...m.shape], data: m.dataSync() as Float32Array })),
      ...this.second.map((v, i) => ({ name: `adam/v/${names[i]}`, shape: [...v.shape], data: v.dataSync() as Float32Array })),
    ];
  }

  /** Restores the state; every moment must be present with the right shape (checked first). */
  setState(state: readonly WeightArray[], names: readonly string[]): void {
    const byName = new Map(state.map((s) => [s.name, s]));
    const steps = byName.get('adam/steps');
    if (!steps || !Number.isInteger(steps.data[0]) || steps.data[0] < 0) throw new Error('optimizer state lacks a valid step count');
    const pick = (prefix: string, i: number) => {
      const entry = byName.get(`adam/${prefix}/${names[i]}`);
      if (!entry) throw new Error(`optimizer state lacks adam/${prefix}/${names[i]}`);
      if (entry.shape.join(',') !== this.variables[i].shape.join(',')) throw new Error(`optimizer state adam/${prefix}/${names[i]} has the wrong shape`);
      return entry;
    };
    const firsts = this.variables.map((_, i) => pick('m', i));
    const seconds = this.variables.map((_, i) => pick('v', i));
    this.steps = steps.data[0];
    tf.tidy(() => {
      firsts.forEach((entry, i) => this.first[i].assign(tf.tensor(entry.data, entry.shape)));
      seconds.forEach((entry, i) => this.second[i].assign(tf.tensor(entry.data, entry.shape)));
    });
  }

  dispose(): void {
    tf.dispose([...this.first, ...this.second]);
  }
}
