/**
 * Parallel generators with versioned weight sync (the Monarch RL example's generator actors), a
 * property of the one training loop (loop.ts) available to every task, platform-neutral: the
 * same code runs in Node worker_threads (src/cli/digitGenerator.worker.ts) and Web Workers (src/worker/generator.worker.ts). Each
 * generator holds its own copy of the policy and samples programs for the prompts the trainer
 * sends, under the task's grammar (named by a serialisable spec, `grammarOf`); the trainer
 * updates and broadcasts the new weights tagged with a version, packed into one ArrayBuffer per
 * generator and transferred (not copied). A generator applies a sync only if its version is
 * newer than the one it holds and reports which version produced each batch.
 *
 * Messages to a generator are handled strictly in order (one at a time), so a sync posted
 * before a generate request is in place before that request samples. Items and rewards stay
 * with the trainer: a generator only writes programs.
 */
import type { Grammar } from './grammar';
import { sampleBatch } from './model/sampler';
import { TransformerPolicy, type PolicyConfig, type WeightArray } from './model/transformer';
import { taskDefinition } from './registry';
import { Rng } from './rng';
import type { GeneratorStatus } from './runnerTypes';
import type { GrammarSpec } from './grammar';
import { packWeights, unpackWeights, type WeightsMessage } from './model/packedWeights';

export { packWeights, unpackWeights, type WeightsMessage } from './model/packedWeights';

export type { GeneratorStatus };

/** The grammar a spec names, made by its task (registry.ts). */
export function grammarOf(spec: GrammarSpec): Grammar<unknown> {
  return taskDefinition(spec.task).grammarFromSpec(spec);
}

export interface GeneratorInit {
  type: 'init';
  id: number;
  policy: PolicyConfig;
  grammar: GrammarSpec;
  maxTokens: number;
  temperature: number;
  seed: number;
  padToken?: number;
}


export interface GenerateMessage {
  type: 'generate';
  requestId: number;
  prompts: number[][];
  /** Seeds this request's sampling (the trainer draws it from its checkpointed RNG, so a resumed run samples as the straight one); else the generator's own stream. */
  seed?: number;
}

export type ToGenerator = GeneratorInit | WeightsMessage | GenerateMessage;

/** One sampled program, as the sampler returns it (sampler.ts), with the log-probability of each token. */
export interface Generated {
  tokens: number[];
  logProbs: number[];
  lineEnds: number[];
  complete: boolean;
}

export type FromGenerator =
  | { type: 'ready'; id: number }
  | { type: 'synced'; id: number; version: number; applied: boolean }
  | { type: 'samples'; id: number; requestId: number; version: number; samples: Generated[]; ms: number }
  | { type: 'error'; id: number; message: string };

/** One generator: a policy copy, the version it holds, its grammar and its own RNG. */
export class Generator {
  version = 0;
  private readonly policy: TransformerPolicy;
  private readonly grammar: Grammar<unknown>;
  private readonly rng: Rng;

  constructor(readonly init: GeneratorInit) {
    this.policy = new TransformerPolicy(init.policy, init.seed);
    this.grammar = grammarOf(init.grammar);
    this.rng = new Rng(init.seed * 7919 + init.id);
  }

  /** Applies a sync if it is newer than the weights held; returns whether it did. */
  applyWeights(message: WeightsMessage): boolean {
    if (message.version <= this.version) return false;
    this.policy.setWeights(unpackWeights(message));
    this.version = message.version;
    return true;
  }

  /** One program per prompt, sampled with the weights held. */
  async generate(prompts: readonly number[][], seed?: number): Promise<{ samples: Generated[]; version: number; ms: number }> {
    const started = performance.now();
    const version = this.version;
    const sampled = await sampleBatch(this.policy, this.grammar, prompts, {
      maxTokens: this.init.maxTokens,
      temperature: this.init.temperature,
      rng: seed === undefined ? this.rng : new Rng(seed),
      padToken: this.init.padToken,
    });
    const samples = sampled.map(({ tokens, logProbs, lineEnds, complete }) => ({ tokens, logProbs, lineEnds, complete }));
    return { samples, version, ms: performance.now() - started };
  }

  dispose(): void {
    this.policy.dispose();
  }
}

export interface GeneratorPort {
  postMessage(message: FromGenerator): void;
  onMessage(listener: (message: ToGenerator) => void): void;
}

/** The body of a generator worker: handles messages one at a time, in order. */
export function serveGenerator(port: GeneratorPort): void {
  let generator: Generator | undefined;
  let queue: Promise<void> = Promise.resolve();
  const handle = async (message: ToGenerator): Promise<void> => {
    const id = generator?.init.id ?? (message.type === 'init' ? message.id : -1);
    try {
      if (message.type === 'init') {
        generator?.dispose();
        generator = new Generator(message);
        port.postMessage({ type: 'ready', id });
        return;
      }
      if (!generator) throw new Error(`${message.type} before init`);
      if (message.type === 'weights') {
        const applied = generator.applyWeights(message);
        port.postMessage({ type: 'synced', id, version: generator.version, applied });
      } else {
        const result = await generator.generate(message.prompts, message.seed);
        port.postMessage({ type: 'samples', id, requestId: message.requestId, ...result });
      }
    } catch (error) {
      port.postMessage({ type: 'error', id, message: error instanceof Error ? error.message : String(error) });
    }
  };
  port.onMessage((message) => {
    queue = queue.then(() => handle(message));
  });
}

/** The trainer's side of one generator (a worker_thread, a Web Worker, or in-process). */
export interface GeneratorHandle {
  postMessage(message: ToGenerator, transfer: ArrayBuffer[]): void;
  onMessage(listener: (message: FromGenerator) => void): void;
  onError(listener: (message: string) => void): void;
  terminate(): void;
}

/** A generator in the trainer's own thread (tests, or a page without workers). */
export function inProcessGenerator(): GeneratorHandle {
  const toGenerator: ((message: ToGenerator) => void)[] = [];
  const toTrainer: ((message: FromGenerator) => void)[] = [];
  serveGenerator({
    postMessage: (message) => queueMicrotask(() => toTrainer.forEach((l) => l(message))),
    onMessage: (listener) => toGenerator.push(listener),
  });
  return {
    postMessage: (message) => queueMicrotask(() => toGenerator.forEach((l) => l(message))),
    onMessage: (listener) => toTrainer.push(listener),
    onError: () => undefined,
    terminate: () => undefined,
  };
}


export interface GeneratedBatch {
  samples: Generated[];
  /** Version each sample was written with. */
  versions: number[];
  /** Wall-clock generations per second of the whole batch, all generators together. */
  generationsPerSecond: number;
}

/** The trainer's view of N generators: broadcast versioned weights, gather trajectories. */
export class GeneratorPool {
  private readonly status: GeneratorStatus[];
  private readonly waiting = new Map<string, (message: FromGenerator) => void>();
  private failure: string | undefined;
  private nextRequest = 1;

  constructor(private readonly handles: readonly GeneratorHandle[]) {
    if (handles.length === 0) throw new Error('a generator pool needs at least one generator');
    this.status = handles.map((_, id) => ({ id, version: 0, generatedWith: 0, skippedSyncs: 0, generated: 0, generationsPerSecond: 0 }));
    handles.forEach((handle, index) => {
      handle.onMessage((message) => this.receive(index, message));
      handle.onError((message) => this.fail(`generator ${index}: ${message}`));
    });
  }

  get size(): number {
    return this.handles.length;
  }

  private fail(message: string): void {
    this.failure ??= message;
    for (const resolve of this.waiting.values()) resolve({ type: 'error', id: -1, message });
    this.waiting.clear();
  }

  private receive(index: number, message: FromGenerator): void {
    const status = this.status[index];
    if (message.type === 'synced') {
      status.version = message.version;
      if (!message.applied) status.skippedSyncs += 1;
      return;
    }
    const key = message.type === 'samples' ? `${index}:${message.requestId}` : message.type === 'ready' ? `${index}:ready` : '';
    if (message.type === 'error') return this.fail(`generator ${index}: ${message.message}`);
    const resolve = this.waiting.get(key);
    this.waiting.delete(key);
    resolve?.(message);
  }

  private expect(key: string): Promise<FromGenerator> {
    if (this.failure) return Promise.reject(new Error(this.failure));
    return new Promise((resolve, reject) => {
      this.waiting.set(key, (message) => (message.type === 'error' ? reject(new Error(message.message)) : resolve(message)));
    });
  }

  async start(init: Omit<GeneratorInit, 'type' | 'id'>): Promise<void> {
    const ready = this.handles.map((_, index) => this.expect(`${index}:ready`));
    this.handles.forEach((handle, id) => handle.postMessage({ ...init, type: 'init', id, seed: init.seed + id }, []));
    await Promise.all(ready);
  }

  /** Sends `weights` tagged `version` to every generator, one transferred buffer each. */
  sync(weights: readonly WeightArray[], version: number): void {
    for (const handle of this.handles) {
      const message = packWeights(weights, version);
      handle.postMessage(message, [message.buffer]);
    }
  }

  /** Sends an already packed sync to one generator (tests of stale syncs). */
  syncOne(index: number, message: WeightsMessage): void {
    this.handles[index].postMessage(message, [message.buffer]);
  }

  /**
   * One program per prompt, the prompts split across the generators in whole groups of
   * `groupSize` (a group's prompts, consecutive, never span two generators), sampled in parallel;
   * the samples come back in the prompts' order. With `seed`, the sampling is a function of it
   * (and of the weights), whichever generator and whenever.
   */
  async generate(prompts: readonly number[][], groupSize = 1, seed?: number): Promise<GeneratedBatch> {
    if (prompts.length % groupSize !== 0) throw new Error(`a batch of ${prompts.length} cannot form groups of ${groupSize}`);
    const started = performance.now();
    const n = this.handles.length;
    const groups = prompts.length / groupSize;
    const counts = this.handles.map((_, i) => (Math.floor(groups / n) + (i < groups % n ? 1 : 0)) * groupSize);
    let from = 0;
    const replies = counts.map((count, index) => {
      const part = prompts.slice(from, (from += count));
      if (count === 0) return Promise.resolve(undefined);
      const requestId = this.nextRequest++;
      const reply = this.expect(`${index}:${requestId}`);
      // Each generator's share seeded apart: the same seed on two generators would draw the same stream.
      const ownSeed = seed === undefined ? {} : { seed: (seed + Math.imul(index, 0x9e3779b9)) >>> 0 };
      this.handles[index].postMessage({ type: 'generate', requestId, prompts: part.map((p) => [...p]), ...ownSeed }, []);
      return reply;
    });
    const samples: Generated[] = [];
    const versions: number[] = [];
    (await Promise.all(replies)).forEach((message, index) => {
      if (!message || message.type !== 'samples') return;
      const status = this.status[index];
      status.generatedWith = message.version;
      status.generated += message.samples.length;
      status.generationsPerSecond = message.samples.length / Math.max(1e-3, message.ms / 1000);
      samples.push(...message.samples);
      versions.push(...message.samples.map(() => message.version));
    });
    return { samples, versions, generationsPerSecond: samples.length / Math.max(1e-3, (performance.now() - started) / 1000) };
  }

  statuses(): GeneratorStatus[] {
    return this.status.map((s) => ({ ...s }));
  }

  close(): void {
    for (const handle of this.handles) handle.terminate();
  }
}
