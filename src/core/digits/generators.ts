/**
 * Parallel generators with versioned weight sync (the Monarch RL example's generator actors),
 * platform-neutral: the same code runs in Node worker_threads (src/cli/digitGenerator.worker.ts)
 * and Web Workers. Each generator holds its own copy of the policy and samples trajectories;
 * the trainer updates and broadcasts the new weights tagged with a version, packed into one
 * ArrayBuffer per generator and transferred (not copied). A generator applies a sync only if
 * its version is newer than the one it holds and reports which version produced each batch.
 *
 * Messages to a generator are handled strictly in order (one at a time), so a sync posted
 * before a generate request is in place before that request samples. Rewards are computed by
 * the trainer, so generators know nothing about `requireTag`.
 */
import { sampleBatch } from '../model/sampler';
import { TransformerPolicy, type PolicyConfig, type WeightArray } from '../model/transformer';
import { Rng } from '../rng';
import { sampleTrainingItem, type DigitTaskName } from './tasks';
import { DigitGrammar, SPECIAL, decodeText, digitPromptLength, promptTokens } from './vocab';

export interface GeneratorInit {
  type: 'init';
  id: number;
  policy: PolicyConfig;
  task: DigitTaskName;
  maxResponseTokens: number;
  temperature: number;
  seed: number;
  /** Held-out questions the generator must never train on. */
  excluded: string[];
}

export interface WeightsMessage {
  type: 'weights';
  version: number;
  specs: { name: string; shape: number[] }[];
  buffer: ArrayBuffer;
}

export interface GenerateMessage {
  type: 'generate';
  requestId: number;
  count: number;
  /** Answers sampled per question, consecutive (a group); `count` is a multiple of it. */
  groupSize?: number;
}

export type ToGenerator = GeneratorInit | WeightsMessage | GenerateMessage;

export interface Trajectory {
  question: string;
  answer: number;
  prompt: number[];
  tokens: number[];
  /** Log-probability of each token under the weights that sampled it (for importance weights). */
  logProbs: number[];
  text: string;
}

export type FromGenerator =
  | { type: 'ready'; id: number }
  | { type: 'synced'; id: number; version: number; applied: boolean }
  | { type: 'trajectories'; id: number; requestId: number; version: number; trajectories: Trajectory[]; ms: number }
  | { type: 'error'; id: number; message: string };

/** Packs weights into one buffer (to transfer) plus their names and shapes. */
export function packWeights(weights: readonly WeightArray[], version: number): WeightsMessage {
  const total = weights.reduce((sum, w) => sum + w.data.length, 0);
  const data = new Float32Array(total);
  let offset = 0;
  for (const w of weights) {
    data.set(w.data, offset);
    offset += w.data.length;
  }
  return { type: 'weights', version, specs: weights.map((w) => ({ name: w.name, shape: [...w.shape] })), buffer: data.buffer };
}

export function unpackWeights(message: WeightsMessage): WeightArray[] {
  const data = new Float32Array(message.buffer);
  let offset = 0;
  return message.specs.map((spec) => {
    const size = spec.shape.reduce((a, b) => a * b, 1);
    const view = data.subarray(offset, offset + size);
    offset += size;
    return { name: spec.name, shape: spec.shape, data: view };
  });
}

/** One generator: a policy copy, the version it holds, and its own RNG. */
export class DigitGenerator {
  version = 0;
  private readonly policy: TransformerPolicy;
  private readonly grammar: DigitGrammar;
  private readonly rng: Rng;
  private readonly excluded: Set<string>;

  constructor(readonly init: GeneratorInit) {
    this.policy = new TransformerPolicy(init.policy, init.seed);
    this.grammar = new DigitGrammar(init.maxResponseTokens);
    this.rng = new Rng(init.seed * 7919 + init.id);
    this.excluded = new Set(init.excluded);
  }

  /** Applies a sync if it is newer than the weights held; returns whether it did. */
  applyWeights(message: WeightsMessage): boolean {
    if (message.version <= this.version) return false;
    this.policy.setWeights(unpackWeights(message));
    this.version = message.version;
    return true;
  }

  /** `count` answers: `count / groupSize` questions, each asked `groupSize` times in a row. */
  async generate(count: number, groupSize = 1): Promise<{ trajectories: Trajectory[]; version: number; ms: number }> {
    if (!Number.isInteger(groupSize) || groupSize < 1 || count % groupSize !== 0) throw new Error(`generate: ${count} answers cannot form groups of ${groupSize}`);
    const started = performance.now();
    const version = this.version;
    const questions = Array.from({ length: count / groupSize }, () => sampleTrainingItem(this.init.task, this.rng, this.excluded));
    const items = questions.flatMap((item) => new Array<typeof item>(groupSize).fill(item));
    const prompts = items.map((item) => promptTokens(item.question, digitPromptLength[item.task]));
    const samples = await sampleBatch(this.policy, this.grammar, prompts, {
      maxTokens: this.init.maxResponseTokens,
      temperature: this.init.temperature,
      rng: this.rng,
      padToken: SPECIAL.PAD,
    });
    const trajectories = items.map((item, i) => ({ question: item.question, answer: item.answer, prompt: prompts[i], tokens: samples[i].tokens, logProbs: samples[i].logProbs, text: decodeText(samples[i].tokens) }));
    return { trajectories, version, ms: performance.now() - started };
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
export function serveDigitGenerator(port: GeneratorPort): void {
  let generator: DigitGenerator | undefined;
  let queue: Promise<void> = Promise.resolve();
  const handle = async (message: ToGenerator): Promise<void> => {
    const id = generator?.init.id ?? (message.type === 'init' ? message.id : -1);
    try {
      if (message.type === 'init') {
        generator?.dispose();
        generator = new DigitGenerator(message);
        port.postMessage({ type: 'ready', id });
        return;
      }
      if (!generator) throw new Error(`${message.type} before init`);
      if (message.type === 'weights') {
        const applied = generator.applyWeights(message);
        port.postMessage({ type: 'synced', id, version: generator.version, applied });
      } else {
        const result = await generator.generate(message.count, message.groupSize);
        port.postMessage({ type: 'trajectories', id, requestId: message.requestId, ...result });
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
  serveDigitGenerator({
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

export interface GeneratorStatus {
  id: number;
  /** Version the generator holds (its last sync acknowledgement). */
  version: number;
  /** Version that produced its last batch. */
  generatedWith: number;
  skippedSyncs: number;
  generated: number;
  /** Generations per second of its last batch, measured inside the generator. */
  generationsPerSecond: number;
}

export interface GeneratedBatch {
  trajectories: Trajectory[];
  /** Version each trajectory was sampled with. */
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
    const key = message.type === 'trajectories' ? `${index}:${message.requestId}` : message.type === 'ready' ? `${index}:ready` : '';
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
   * `total` trajectories split across the generators, sampled in parallel. With `groupSize` > 1
   * each question is answered `groupSize` times, its answers consecutive in the batch (a group
   * never spans two generators).
   */
  async generate(total: number, groupSize = 1): Promise<GeneratedBatch> {
    if (total % groupSize !== 0) throw new Error(`a batch of ${total} cannot form groups of ${groupSize}`);
    const started = performance.now();
    const n = this.handles.length;
    const groups = total / groupSize;
    const counts = this.handles.map((_, i) => (Math.floor(groups / n) + (i < groups % n ? 1 : 0)) * groupSize);
    const replies = counts.map((count, index) => {
      if (count === 0) return Promise.resolve(undefined);
      const requestId = this.nextRequest++;
      const reply = this.expect(`${index}:${requestId}`);
      this.handles[index].postMessage({ type: 'generate', requestId, count, groupSize }, []);
      return reply;
    });
    const trajectories: Trajectory[] = [];
    const versions: number[] = [];
    (await Promise.all(replies)).forEach((message, index) => {
      if (!message || message.type !== 'trajectories') return;
      const status = this.status[index];
      status.generatedWith = message.version;
      status.generated += message.trajectories.length;
      status.generationsPerSecond = message.trajectories.length / Math.max(1e-3, message.ms / 1000);
      trajectories.push(...message.trajectories);
      versions.push(...message.trajectories.map(() => message.version));
    });
    return { trajectories, versions, generationsPerSecond: trajectories.length / Math.max(1e-3, (performance.now() - started) / 1000) };
  }

  statuses(): GeneratorStatus[] {
    return this.status.map((s) => ({ ...s }));
  }

  close(): void {
    for (const handle of this.handles) handle.terminate();
  }
}
