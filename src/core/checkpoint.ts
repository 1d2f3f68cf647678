/**
 * The lab's one-file checkpoint (docs/architecture.md, docs/persistence.md): everything needed to resume or evaluate a run.
 *
 *   bytes 0..7    magic "PRLCKPT\0"
 *   bytes 8..11   format version (uint32 LE)
 *   bytes 12..15  header length H (uint32 LE)
 *   H bytes       JSON header: config, vocab, step, RNG state, data cursor, tensor specs
 *   padding       zeros up to a multiple of 8
 *   payload       raw little-endian tensor bytes at the offsets the specs give (8-aligned)
 *   32 bytes      SHA-256 of every byte before it
 *
 * Decoding validates everything before anyone touches a live model: size cap, magic,
 * version, header size, exact total length, the hash, the header's shape, every tensor spec
 * (dtype, dimensions, byte length, offsets in range and not overlapping) and finiteness of
 * every float. Errors are CheckpointError with a message that says what is wrong.
 * Plain typed arrays only: the runner moves tfjs variables in and out.
 */
import type { LabConfig } from './config';
import { parseConfig, parseStoredConfig } from './config';
import type { RngState } from './rng';
import { isSafetensors } from './safetensors';

export const CHECKPOINT_MAGIC = 'PRLCKPT\0';
export const CHECKPOINT_VERSION = 1;
const PREFIX = 16;
const HASH = 32;
const MAX_HEADER = 4 << 20;
export const DEFAULT_MAX_CHECKPOINT_BYTES = 1 << 30;
/** Bounds a real run stays far within: a billion steps, weights of magnitude a million (trained ones are below 100). */
export const MAX_STEP = 1e9;
export const MAX_WEIGHT = 1e6;
/** Adam's second moments are squared gradients and its step count can reach MAX_STEP. */
export const MAX_OPTIMIZER_VALUE = 1e12;

export type TensorGroup = 'weights' | 'optimizer';
export type TensorDtype = 'float32' | 'int32';

export interface NamedTensor {
  name: string;
  group: TensorGroup;
  dtype: TensorDtype;
  shape: number[];
  data: Float32Array | Int32Array;
}

/** The tensors of one group (the policy's weights, or the optimizer's state) as float arrays a model or an optimizer takes. */
export function tensorArrays(tensors: readonly NamedTensor[], group: TensorGroup): { name: string; shape: number[]; data: Float32Array }[] {
  return tensors.filter((t) => t.group === group).map(({ name, shape, data }) => ({ name, shape, data: data as Float32Array }));
}

export interface TensorSpec {
  name: string;
  group: TensorGroup;
  dtype: TensorDtype;
  shape: number[];
  offset: number;
  byteLength: number;
}

export interface CheckpointMeta {
  config: LabConfig;
  step: number;
  rngState: RngState;
  vocab?: { name: string; size: number };
  dataCursor?: { epoch: number; cursor: number };
  /** Algorithm state that is not a tensor (e.g. the reward baseline). */
  extra?: Record<string, unknown>;
}

export interface CheckpointHeader extends CheckpointMeta {
  formatVersion: number;
  createdAt: string;
  tensors: TensorSpec[];
}

export class CheckpointError extends Error {
  override name = 'CheckpointError';
}

const align8 = (n: number) => Math.ceil(n / 8) * 8;

async function sha256(bytes: Uint8Array): Promise<Uint8Array> {
  // Checkpoint bytes never live in a SharedArrayBuffer, which digest() would refuse.
  return new Uint8Array(await crypto.subtle.digest('SHA-256', bytes as Uint8Array<ArrayBuffer>));
}

/** The warm start a checkpoint's run began from, by the sha256 the loop wrote (`extra.warmStartSha256`), or undefined when it names none. */
export function checkpointWarmStart(meta: Pick<CheckpointMeta, 'extra'>): string | undefined {
  const named = meta.extra?.warmStartSha256;
  return typeof named === 'string' ? named : undefined;
}

/** The run's wall time when its checkpoint was saved, in ms (`extra.wallMs`; 0 for a file without one). */
export function checkpointWallMs(meta: Pick<CheckpointMeta, 'extra'>): number {
  const wallMs = meta.extra?.wallMs;
  return typeof wallMs === 'number' && Number.isFinite(wallMs) && wallMs >= 0 ? wallMs : 0;
}

/** The sha256 of some bytes, as hex (Web Crypto: in workers and in Node alike): how a run names the warm start it began from. */
export async function sha256Hex(bytes: Uint8Array): Promise<string> {
  return [...(await sha256(bytes))].map((b) => b.toString(16).padStart(2, '0')).join('');
}

/** Why a float32 tensor's values do not load (NaN, Infinity, or beyond what training reaches), or null. */
function valueProblem(name: string, group: TensorGroup, data: Float32Array | Int32Array): string | null {
  // Finite but absurd values (3e38) would overflow the first forward pass: refused like NaN.
  const limit = group === 'weights' ? MAX_WEIGHT : MAX_OPTIMIZER_VALUE;
  for (let i = 0; i < data.length; i++) {
    if (!Number.isFinite(data[i])) return `tensor ${name} holds a non-finite value (NaN or Infinity) at index ${i}`;
    if (Math.abs(data[i]) > limit) return `tensor ${name} holds ${data[i]} at index ${i}, beyond the ${limit} a trained ${group === 'weights' ? 'weight' : 'optimizer moment'} can reach`;
  }
  return null;
}

export async function encodeCheckpoint(meta: CheckpointMeta, tensors: NamedTensor[]): Promise<Uint8Array> {
  // What the decoder would refuse is never written: a run whose config went past the schema (a
  // mapping set after validation) would otherwise train and leave checkpoints nothing can load.
  try {
    parseConfig(meta.config);
  } catch (error) {
    throw new CheckpointError(`refusing to write a checkpoint whose config would not load back: ${(error as Error).message}`);
  }
  if (!Number.isSafeInteger(meta.step) || meta.step < 0 || meta.step > MAX_STEP) throw new CheckpointError(`refusing to write a checkpoint of step ${meta.step} (a whole number up to ${MAX_STEP} loads)`);
  const specs: TensorSpec[] = [];
  let offset = 0;
  const names = new Set<string>();
  for (const tensor of tensors) {
    // Said when it is written, not when it is loaded back: a run whose values went past what loads has diverged.
    const problem = tensor.dtype === 'float32' ? valueProblem(tensor.name, tensor.group, tensor.data) : null;
    if (problem) throw new CheckpointError(`refusing to write a checkpoint that would not load back: ${problem} (the run has diverged: resume from an earlier checkpoint, with a lower learning rate)`);
    const key = `${tensor.group}/${tensor.name}`;
    if (names.has(key)) throw new CheckpointError(`duplicate tensor ${key}`);
    names.add(key);
    const count = tensor.shape.reduce((a, b) => a * b, 1);
    if (count !== tensor.data.length) throw new CheckpointError(`tensor ${tensor.name}: shape [${tensor.shape}] does not match ${tensor.data.length} values`);
    specs.push({ name: tensor.name, group: tensor.group, dtype: tensor.dtype, shape: [...tensor.shape], offset, byteLength: tensor.data.byteLength });
    offset = align8(offset + tensor.data.byteLength);
  }
  const header: CheckpointHeader = { formatVersion: CHECKPOINT_VERSION, createdAt: new Date().toISOString(), ...meta, tensors: specs };
  const headerBytes = new TextEncoder().encode(JSON.stringify(header));
  const payloadStart = align8(PREFIX + headerBytes.length);
  const total = payloadStart + offset + HASH;
  const out = new Uint8Array(total);
  out.set(new TextEncoder().encode(CHECKPOINT_MAGIC), 0);
  const view = new DataView(out.buffer);
  view.setUint32(8, CHECKPOINT_VERSION, true);
  view.setUint32(12, headerBytes.length, true);
  out.set(headerBytes, PREFIX);
  tensors.forEach((tensor, i) => {
    out.set(new Uint8Array(tensor.data.buffer, tensor.data.byteOffset, tensor.data.byteLength), payloadStart + specs[i].offset);
  });
  out.set(await sha256(out.subarray(0, total - HASH)), total - HASH);
  return out;
}

function fail(message: string): never {
  throw new CheckpointError(message);
}

function checkSpecs(specs: unknown, payloadLength: number): TensorSpec[] {
  if (!Array.isArray(specs)) fail('header has no tensor list');
  const ranges: [number, number, string][] = [];
  const result = specs.map((raw, i): TensorSpec => {
    const spec = raw as Partial<TensorSpec>;
    const label = typeof spec?.name === 'string' ? spec.name : `#${i}`;
    if (typeof spec !== 'object' || spec === null || typeof spec.name !== 'string') fail(`tensor ${label}: malformed spec`);
    if (spec.group !== 'weights' && spec.group !== 'optimizer') fail(`tensor ${label}: unknown group ${String(spec.group)}`);
    if (spec.dtype !== 'float32' && spec.dtype !== 'int32') fail(`tensor ${label}: unknown dtype ${String(spec.dtype)}`);
    if (!Array.isArray(spec.shape) || !spec.shape.every((d) => Number.isSafeInteger(d) && d >= 0)) fail(`tensor ${label}: shape must be non-negative integers`);
    const count = spec.shape.reduce((a: number, b: number) => a * b, 1);
    if (!Number.isSafeInteger(spec.offset) || spec.offset! < 0 || spec.offset! % 4 !== 0) fail(`tensor ${label}: bad offset`);
    if (spec.byteLength !== count * 4) fail(`tensor ${label}: shape [${spec.shape}] needs ${count * 4} bytes, spec says ${spec.byteLength}`);
    if (spec.offset! + spec.byteLength! > payloadLength) fail(`tensor ${label}: bytes ${spec.offset}..${spec.offset! + spec.byteLength!} lie outside the payload`);
    ranges.push([spec.offset!, spec.offset! + spec.byteLength!, label]);
    return spec as TensorSpec;
  });
  ranges.sort((a, b) => a[0] - b[0]);
  for (let i = 1; i < ranges.length; i++) {
    if (ranges[i][0] < ranges[i - 1][1]) fail(`tensors ${ranges[i - 1][2]} and ${ranges[i][2]} overlap`);
  }
  return result;
}

/**
 * The task a checkpoint's header names, read without checking the rest (the page asks before a
 * file of another task switches the lab); null for anything that is not a readable checkpoint
 * header (decodeCheckpoint then says what is wrong with it).
 */
export function checkpointTask(bytes: Uint8Array): string | null {
  const task = unreadHeader(bytes)?.config?.task?.name;
  return typeof task === 'string' ? task : null;
}

/** The step a checkpoint's header names, read as checkpointTask reads the task (the page names a downloaded file after it); null when unreadable. */
export function checkpointStep(bytes: Uint8Array): number | null {
  const step = unreadHeader(bytes)?.step;
  return typeof step === 'number' && Number.isSafeInteger(step) && step >= 0 ? step : null;
}

/** A checkpoint's header as plain data, nothing in it checked; null when the framing is not a checkpoint's. */
function unreadHeader(bytes: Uint8Array): { step?: unknown; config?: { task?: { name?: unknown } } } | null {
  try {
    const headerLength = headerLengthOf(bytes);
    return JSON.parse(new TextDecoder().decode(bytes.subarray(PREFIX, PREFIX + headerLength))) as { step?: unknown; config?: { task?: { name?: unknown } } };
  } catch {
    return null;
  }
}

/** The header's length, once the file's framing (size, magic number, format version, header bounds) is checked. */
function headerLengthOf(bytes: Uint8Array): number {
  if (bytes.length < PREFIX + HASH) fail(`not a checkpoint: only ${bytes.length} bytes`);
  const magic = new TextDecoder().decode(bytes.subarray(0, 8));
  if (magic !== CHECKPOINT_MAGIC) {
    if (isSafetensors(bytes)) fail('not a lab checkpoint but a safetensors file: weights alone, without the config, optimizer and step a checkpoint holds (it loads as a warm start: --init-from, or Load checkpoint in the page)');
    fail('not a checkpoint: wrong magic number (is this a checkpoint file written by the lab?)');
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const version = view.getUint32(8, true);
  if (version > CHECKPOINT_VERSION) fail(`checkpoint format version ${version} is newer than this lab reads (${CHECKPOINT_VERSION}); update the lab`);
  if (version < 1) fail(`unknown checkpoint format version ${version}`);
  const headerLength = view.getUint32(12, true);
  if (headerLength > MAX_HEADER) fail(`header of ${headerLength} bytes is larger than the ${MAX_HEADER}-byte limit`);
  if (PREFIX + headerLength + HASH > bytes.length) fail('file is truncated inside its header');
  return headerLength;
}

export async function decodeCheckpoint(
  bytes: Uint8Array,
  options: { maxBytes?: number } = {},
): Promise<{ meta: CheckpointHeader; tensors: NamedTensor[] }> {
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_CHECKPOINT_BYTES;
  if (bytes.length > maxBytes) fail(`file is ${bytes.length} bytes, more than the ${maxBytes}-byte limit for a checkpoint`);
  const headerLength = headerLengthOf(bytes);
  // The checksum first: a damaged file is said to be damaged, whatever part of it a flipped bit
  // hit (inside the header it would otherwise read as a bad shape or a bad config).
  const expectedHash = bytes.subarray(bytes.length - HASH);
  const actualHash = await sha256(bytes.subarray(0, bytes.length - HASH));
  if (!actualHash.every((b, i) => b === expectedHash[i])) fail('checksum mismatch: the file is damaged, truncated or has bytes appended');
  let header: CheckpointHeader;
  try {
    header = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(PREFIX, PREFIX + headerLength)));
  } catch {
    fail('header is not valid JSON');
  }
  if (typeof header !== 'object' || header === null) fail('header is not an object');
  const payloadStart = align8(PREFIX + headerLength);
  const specs = checkSpecs(header.tensors, Number.MAX_SAFE_INTEGER);
  const payloadLength = specs.reduce((end, spec) => Math.max(end, align8(spec.offset + spec.byteLength)), 0);
  const expectedLength = payloadStart + payloadLength + HASH;
  if (bytes.length < expectedLength) fail(`file is truncated: ${bytes.length} bytes, the header describes ${expectedLength}`);
  if (bytes.length > expectedLength) fail(`file has ${bytes.length - expectedLength} unexpected bytes after its end`);
  checkSpecs(header.tensors, payloadLength);
  if (!Number.isSafeInteger(header.step) || header.step < 0 || header.step > MAX_STEP) fail(`header has no valid step (a whole number up to ${MAX_STEP})`);
  if (!Array.isArray(header.rngState) || header.rngState.length !== 4 || !header.rngState.every((v) => Number.isInteger(v))) fail('header has no valid RNG state');
  let config: LabConfig;
  try {
    config = parseStoredConfig(header.config);
  } catch (error) {
    fail(`header config: ${(error as Error).message}`);
  }

  const tensors = specs.map((spec): NamedTensor => {
    // Copy out so the tensors own aligned buffers independent of the file.
    const start = bytes.byteOffset + payloadStart + spec.offset;
    const raw = bytes.buffer.slice(start, start + spec.byteLength);
    const data = spec.dtype === 'float32' ? new Float32Array(raw) : new Int32Array(raw);
    if (spec.dtype === 'float32') {
      const problem = valueProblem(spec.name, spec.group, data);
      if (problem) fail(problem);
    }
    return { name: spec.name, group: spec.group, dtype: spec.dtype, shape: spec.shape, data };
  });
  return { meta: { ...header, config }, tensors };
}

/** Why a checkpoint cannot load into a model of `config`, or null when it can. */
export function compatibleWith(meta: CheckpointMeta, config: LabConfig): string | null {
  if (meta.config.task.name !== config.task.name) return `checkpoint is for task ${meta.config.task.name}, this run is ${config.task.name}`;
  const different = architectureDifference(meta.config, config);
  return different.length ? `checkpoint architecture differs: ${different.map(([key, was, now]) => `${key} ${was} (this model ${now})`).join(', ')}` : null;
}

/** The fields that shape a policy's weights or what its inputs mean: two configs of one task equal on these hold the same tensors and read them alike (copyResume adds no tensor, it changes what the pointer's rows say). */
const shapeKeys = ['layers', 'dModel', 'heads', 'context', 'previousToken', 'secondPrevious', 'numberCode', 'valueDeltas', 'runLengths', 'strideTwo', 'copyPointer', 'copyResume'] as const;

function architectureDifference(from: LabConfig, to: LabConfig): [key: string, from: unknown, to: unknown][] {
  return shapeKeys.filter((key) => from.model[key] !== to.model[key]).map((key) => [key, from.model[key], to.model[key]]);
}

/**
 * Why the weights of a `from` run cannot serve a `to` run (another task's vocabulary, another
 * architecture), or null when they can: "task kolmogorov -> functions", "dModel 128 -> 64".
 */
export function modelDifference(from: LabConfig, to: LabConfig): string | null {
  if (from.task.name !== to.task.name) return `task ${from.task.name} -> ${to.task.name}`;
  const different = architectureDifference(from, to);
  return different.length ? different.map(([key, was, now]) => `${key} ${was} -> ${now}`).join(', ') : null;
}
