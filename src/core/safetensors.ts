/**
 * The safetensors format (Hugging Face), which PyTorch loads with `safetensors.torch.load_file`
 * or, as the exported `modeling_prl.py` does, with nothing but `struct` and `json`:
 *
 *   8 bytes   little-endian u64 N, the header's length
 *   N bytes   a JSON object: per tensor {dtype, shape, data_offsets: [begin, end]} (offsets
 *             relative to the byte after the header), and an optional "__metadata__" of strings;
 *             padded with spaces so the data starts 8-byte aligned
 *   the data  the tensors' bytes, little-endian, back to back in offset order, no gaps
 *
 * The lab writes F32 only. The reader checks every rule (a header within its cap and within the
 * file, valid JSON, known dtypes, shapes whose size matches the offsets, offsets that tile the
 * data exactly) and refuses a file that breaks one with a message that says which; it reads F32,
 * and F16/BF16 widened to F32, since a PyTorch user may save half precision.
 */

export interface SafeTensor {
  name: string;
  shape: number[];
  data: Float32Array;
}

export class SafetensorsError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SafetensorsError';
  }
}

/** A header larger than this is refused before it is parsed (the Rust reader's own cap). */
export const MAX_HEADER_BYTES = 100 * 1024 * 1024;

const bytesPer: Record<string, number> = { F32: 4, F16: 2, BF16: 2 };

/** The file's bytes: tensors in the given order, `metadata` as `__metadata__` (strings only). */
export function encodeSafetensors(tensors: readonly SafeTensor[], metadata: Record<string, string> = {}): Uint8Array {
  const header: Record<string, unknown> = {};
  if (Object.keys(metadata).length) header.__metadata__ = metadata;
  let offset = 0;
  for (const tensor of tensors) {
    const size = tensor.shape.reduce((a, b) => a * b, 1);
    if (size !== tensor.data.length) throw new SafetensorsError(`tensor ${tensor.name} has ${tensor.data.length} values, its shape [${tensor.shape}] needs ${size}`);
    if (tensor.name in header) throw new SafetensorsError(`tensor ${tensor.name} appears twice`);
    header[tensor.name] = { dtype: 'F32', shape: tensor.shape, data_offsets: [offset, offset + 4 * size] };
    offset += 4 * size;
  }
  let json = new TextEncoder().encode(JSON.stringify(header));
  const padded = Math.ceil(json.length / 8) * 8;
  if (padded !== json.length) {
    const spaced = new Uint8Array(padded).fill(0x20);
    spaced.set(json);
    json = spaced;
  }
  const out = new Uint8Array(8 + json.length + offset);
  const view = new DataView(out.buffer);
  view.setBigUint64(0, BigInt(json.length), true);
  out.set(json, 8);
  let at = 8 + json.length;
  for (const tensor of tensors) {
    const bytes = new DataView(out.buffer, at, tensor.data.length * 4);
    tensor.data.forEach((value, i) => bytes.setFloat32(i * 4, value, true));
    at += tensor.data.length * 4;
  }
  return out;
}

function halfToFloat(bits: number): number {
  const sign = bits & 0x8000 ? -1 : 1;
  const exponent = (bits >> 10) & 0x1f;
  const fraction = bits & 0x3ff;
  if (exponent === 0) return sign * 2 ** -14 * (fraction / 1024);
  if (exponent === 31) return fraction ? NaN : sign * Infinity;
  return sign * 2 ** (exponent - 15) * (1 + fraction / 1024);
}

/** Reads and checks a safetensors file; every tensor comes back as F32. */
export function decodeSafetensors(bytes: Uint8Array): { tensors: SafeTensor[]; metadata: Record<string, string> } {
  if (bytes.length < 8) throw new SafetensorsError(`the file has ${bytes.length} bytes, fewer than the 8 of its header length`);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const length = view.getBigUint64(0, true);
  if (length > BigInt(MAX_HEADER_BYTES)) throw new SafetensorsError(`the header claims ${length} bytes, more than the ${MAX_HEADER_BYTES} allowed`);
  const headerLength = Number(length);
  if (8 + headerLength > bytes.length) throw new SafetensorsError(`the header claims ${headerLength} bytes but the file has ${bytes.length - 8} after its length`);
  let header: unknown;
  try {
    header = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(8, 8 + headerLength)));
  } catch (error) {
    throw new SafetensorsError(`the header is not valid UTF-8 JSON (${(error as Error).message})`);
  }
  if (typeof header !== 'object' || header === null || Array.isArray(header)) throw new SafetensorsError('the header is not a JSON object');
  const dataStart = 8 + headerLength;
  const dataLength = bytes.length - dataStart;
  let metadata: Record<string, string> = {};
  const entries: { name: string; dtype: string; shape: number[]; begin: number; end: number }[] = [];
  for (const [name, value] of Object.entries(header)) {
    if (name === '__metadata__') {
      if (typeof value !== 'object' || value === null || Object.values(value).some((v) => typeof v !== 'string')) throw new SafetensorsError('__metadata__ must map names to strings');
      metadata = value as Record<string, string>;
      continue;
    }
    const entry = value as { dtype?: unknown; shape?: unknown; data_offsets?: unknown };
    if (typeof entry !== 'object' || entry === null) throw new SafetensorsError(`tensor ${name}: its entry is not an object`);
    if (typeof entry.dtype !== 'string' || !(entry.dtype in bytesPer)) throw new SafetensorsError(`tensor ${name}: dtype ${JSON.stringify(entry.dtype)} is not one the lab reads (F32, F16, BF16)`);
    if (!Array.isArray(entry.shape) || !entry.shape.every((d) => Number.isInteger(d) && d >= 0)) throw new SafetensorsError(`tensor ${name}: shape ${JSON.stringify(entry.shape)} is not a list of sizes`);
    const offsets = entry.data_offsets;
    if (!Array.isArray(offsets) || offsets.length !== 2 || !offsets.every((o) => Number.isSafeInteger(o) && o >= 0) || offsets[0] > offsets[1]) {
      throw new SafetensorsError(`tensor ${name}: data_offsets ${JSON.stringify(offsets)} are not [begin, end]`);
    }
    const size = (entry.shape as number[]).reduce((a, b) => a * b, 1);
    if ((offsets[1] - offsets[0]) !== size * bytesPer[entry.dtype]) {
      throw new SafetensorsError(`tensor ${name}: ${offsets[1] - offsets[0]} bytes for shape [${entry.shape}] of ${entry.dtype}, which needs ${size * bytesPer[entry.dtype]}`);
    }
    entries.push({ name, dtype: entry.dtype, shape: entry.shape as number[], begin: offsets[0], end: offsets[1] });
  }
  // The tensors tile the data: sorted by offset, each starts where the last ended, the last ends at the file's end.
  const sorted = [...entries].sort((a, b) => a.begin - b.begin);
  let expected = 0;
  for (const entry of sorted) {
    if (entry.begin !== expected) throw new SafetensorsError(`tensor ${entry.name} starts at byte ${entry.begin} of the data, not ${expected}: a gap or an overlap`);
    expected = entry.end;
  }
  if (expected !== dataLength) throw new SafetensorsError(`the tensors cover ${expected} bytes of data, the file holds ${dataLength}`);
  const tensors = entries.map(({ name, dtype, shape, begin, end }) => {
    const values = new Float32Array((end - begin) / bytesPer[dtype]);
    const data = new DataView(bytes.buffer, bytes.byteOffset + dataStart + begin, end - begin);
    for (let i = 0; i < values.length; i++) {
      values[i] = dtype === 'F32' ? data.getFloat32(i * 4, true) : dtype === 'F16' ? halfToFloat(data.getUint16(i * 2, true)) : new Float32Array(new Uint32Array([data.getUint16(i * 2, true) << 16]).buffer)[0];
    }
    return { name, shape, data: values };
  });
  return { tensors, metadata };
}

/** The lab checkpoint's magic, "PRLCKPT\0" (checkpoint.ts): a file that starts with it is never safetensors. */
const LAB_MAGIC = [0x50, 0x52, 0x4c, 0x43, 0x4b, 0x50, 0x54, 0x00];

/** Whether bytes begin as a lab checkpoint does (its magic number), whatever the file is named. */
export const hasLabCheckpointMagic = (bytes: Uint8Array): boolean => LAB_MAGIC.every((byte, i) => bytes[i] === byte);

/**
 * Whether bytes are meant as a safetensors file rather than a lab checkpoint: not the lab's magic,
 * and a JSON value (or the whitespace JSON allows before it) where the header begins. The header
 * length is not judged here: a file that lies about it, or is cut inside its header, is still a
 * safetensors file, and decodeSafetensors says what is wrong with it instead of "wrong magic".
 */
export function isSafetensors(bytes: Uint8Array): boolean {
  if (bytes.length < 9 || hasLabCheckpointMagic(bytes)) return false;
  return [0x7b, 0x5b, 0x20, 0x09, 0x0a, 0x0d].includes(bytes[8]); // { [ space tab LF CR
}

/**
 * The lab's name of a weight saved from the PyTorch module's own state_dict (`blocks.0.qkv.w` ->
 * `b0/qkv/w`, `head.b` -> `head/b`); the lab's names (what modeling_prl.save writes) pass as they are.
 */
export function labWeightName(name: string): string {
  return name.replace(/^blocks\.(\d+)\./, 'b$1/').replace(/\./g, '/');
}

/**
 * The weights of a safetensors file for a policy (the model checks names and shapes): as with a
 * lab checkpoint, a NaN, an infinity or an absurd value (beyond `maxWeight`) is refused by name.
 */
export function safetensorsWeights(bytes: Uint8Array, maxWeight: number): SafeTensor[] {
  const decoded = decodeSafetensors(bytes).tensors;
  // Two names of one weight (`blocks.0.ln1.g` and `b0/ln1/g`) would load with the later winning, silently.
  const first = new Map<string, string>();
  for (const { name } of decoded) {
    const lab = labWeightName(name);
    if (first.has(lab)) throw new SafetensorsError(`tensors ${first.get(lab)} and ${name} are both the lab weight ${lab}`);
    first.set(lab, name);
  }
  const tensors = decoded.map((tensor) => ({ ...tensor, name: labWeightName(tensor.name) }));
  for (const { name, data } of tensors) {
    for (let i = 0; i < data.length; i++) {
      if (!Number.isFinite(data[i])) throw new SafetensorsError(`tensor ${name} holds a non-finite value (NaN or Infinity) at index ${i}`);
      if (Math.abs(data[i]) > maxWeight) throw new SafetensorsError(`tensor ${name} holds ${data[i]} at index ${i}, beyond the ${maxWeight} a trained weight can reach`);
    }
  }
  return tensors;
}
