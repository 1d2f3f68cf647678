import { describe, expect, it } from 'vitest';
import { CheckpointError, checkpointStep, checkpointTask, compatibleWith, decodeCheckpoint, encodeCheckpoint, type NamedTensor } from './checkpoint';
import { defaultConfig } from './config';

const meta = { config: defaultConfig(), step: 12, rngState: [1, 2, 3, 4] as [number, number, number, number], extra: { baseline: 0.5 } };
const tensors = (): NamedTensor[] => [
  { name: 'embedding', group: 'weights', dtype: 'float32', shape: [3, 2], data: new Float32Array([0.1, -2, 3.5, 1e-8, -0, 7]) },
  { name: 'bias', group: 'weights', dtype: 'float32', shape: [3], data: new Float32Array([1, 2, 3]) },
  { name: 'adam/step', group: 'optimizer', dtype: 'int32', shape: [1], data: new Int32Array([12]) },
];

async function rejects(bytes: Uint8Array, pattern: RegExp) {
  await expect(decodeCheckpoint(bytes)).rejects.toThrow(CheckpointError);
  await expect(decodeCheckpoint(bytes)).rejects.toThrow(pattern);
}

/** Rewrites the JSON header of a valid file and rebuilds it with a correct hash: a forgery that passes the checksum. */
async function forge(edit: (header: any) => void, editPayload?: (payload: DataView, header: any) => void): Promise<Uint8Array> {
  const bytes = await encodeCheckpoint(meta, tensors());
  const length = new DataView(bytes.buffer).getUint32(12, true);
  const header = JSON.parse(new TextDecoder().decode(bytes.subarray(16, 16 + length)));
  const payload = bytes.subarray(Math.ceil((16 + length) / 8) * 8, bytes.length - 32);
  editPayload?.(new DataView(payload.buffer, payload.byteOffset, payload.byteLength), header);
  edit(header);
  const headerBytes = new TextEncoder().encode(JSON.stringify(header));
  const start = Math.ceil((16 + headerBytes.length) / 8) * 8;
  const out = new Uint8Array(start + payload.length + 32);
  out.set(bytes.subarray(0, 12));
  new DataView(out.buffer).setUint32(12, headerBytes.length, true);
  out.set(headerBytes, 16);
  out.set(payload, start);
  out.set(new Uint8Array(await crypto.subtle.digest('SHA-256', out.subarray(0, out.length - 32))), out.length - 32);
  return out;
}

describe('checkpoint format', () => {
  it('round-trips bit-exactly', async () => {
    const bytes = await encodeCheckpoint(meta, tensors());
    const { meta: back, tensors: loaded } = await decodeCheckpoint(bytes);
    expect(back.step).toBe(12);
    expect(back.rngState).toEqual([1, 2, 3, 4]);
    expect(back.config).toEqual(meta.config);
    expect(back.extra).toEqual({ baseline: 0.5 });
    for (const [i, tensor] of tensors().entries()) {
      expect(loaded[i].shape).toEqual(tensor.shape);
      expect(new Uint8Array(loaded[i].data.buffer)).toEqual(new Uint8Array(tensor.data.buffer));
    }
    // Re-encoding what was decoded gives the same payload bytes.
    const again = await encodeCheckpoint(back, loaded);
    expect(again.length).toBe(bytes.length);
  });

  it('rejects a file truncated at any byte or with bytes appended', async () => {
    const bytes = await encodeCheckpoint(meta, tensors());
    for (let cut = 0; cut < bytes.length; cut += 7) {
      await expect(decodeCheckpoint(bytes.subarray(0, cut))).rejects.toThrow(CheckpointError);
    }
    await rejects(new Uint8Array([...bytes, 0]), /unexpected bytes|checksum/);
  });

  it('rejects one flipped bit anywhere', async () => {
    const bytes = await encodeCheckpoint(meta, tensors());
    for (let position = 0; position < bytes.length; position += 5) {
      const damaged = bytes.slice();
      damaged[position] ^= 1 << position % 8;
      await expect(decodeCheckpoint(damaged)).rejects.toThrow(CheckpointError);
    }
  });

  it('rejects forged headers that pass the checksum', async () => {
    await rejects(await forge((h) => (h.tensors[0].shape = [4, 2])), /needs 32 bytes/);
    await rejects(await forge((h) => (h.tensors[0].shape = [-3, -2])), /non-negative/);
    await rejects(await forge((h) => (h.tensors[1].offset = 0)), /overlap/);
    await rejects(await forge((h) => (h.tensors[0].dtype = 'float16')), /unknown dtype/);
    await rejects(await forge((h) => (h.tensors[2].offset = 4096)), /truncated|outside/);
    await rejects(await forge((h) => (h.config.model.layers = 'two')), /header config/);
  });

  it('rejects an oversized header, a newer version and non-checkpoints by magic and size', async () => {
    const bytes = await encodeCheckpoint(meta, tensors());
    const huge = bytes.slice();
    new DataView(huge.buffer).setUint32(12, 64 << 20, true);
    await rejects(huge, /larger than/);
    const newer = bytes.slice();
    new DataView(newer.buffer).setUint32(8, 99, true);
    await rejects(newer, /newer than this lab reads/);
    const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, ...new Uint8Array(64)]);
    await rejects(png, /wrong magic/);
    await rejects(new Uint8Array([0x50, 0x4b, 0x03, 0x04, ...new Uint8Array(60)]), /wrong magic/);
    await rejects(new Uint8Array(0), /only 0 bytes/);
    await expect(decodeCheckpoint(bytes, { maxBytes: 100 })).rejects.toThrow(/limit/);
  });

  it('says a bit flipped inside the header is damage (the checksum is checked first), and refuses absurd steps and weights', async () => {
    const bytes = await encodeCheckpoint(meta, tensors());
    const headerLength = new DataView(bytes.buffer).getUint32(12, true);
    const flipped = bytes.slice();
    const at = 16 + headerLength - 40; // inside the header JSON, in the tensor specs near its end
    flipped[at] ^= 0x01;
    await rejects(flipped, /checksum mismatch/);
    await rejects(await forge((h) => (h.step = 1e12)), /no valid step/);
    const value = (tensor: number, index: number, x: number) => forge(() => {}, (payload, header) => payload.setFloat32(header.tensors[tensor].offset + 4 * index, x, true));
    await rejects(await value(0, 0, 3e38), /beyond the 1000000 a trained weight can reach/);
  });

  it('rejects NaN or Infinity in the weights', async () => {
    const value = (x: number) => forge(() => {}, (payload, header) => payload.setFloat32(header.tensors[1].offset + 8, x, true));
    await rejects(await value(Number.NaN), /non-finite/);
    await rejects(await value(Number.POSITIVE_INFINITY), /non-finite/);
  });

  it('refuses to write what it would refuse to read: values of a run that diverged are said at the save', async () => {
    const absurd = tensors().map((t, i) => (i === 0 ? { ...t, data: new Float32Array(t.data.length).fill(3e38) } : t));
    await expect(encodeCheckpoint(meta, absurd)).rejects.toThrow(/refusing to write a checkpoint that would not load back: tensor .* beyond the 1000000/);
    const bad = tensors();
    bad[1].data[2] = Number.NaN;
    await expect(encodeCheckpoint(meta, bad)).rejects.toThrow(/would not load back: .*non-finite/);
  });

  it('reads a checkpoint written before the Kolmogorov task\'s newer inputs as without them, not with today\'s defaults', async () => {
    // A header of before 2026-11-28: its model section has no secondPrevious, runLengths, strideTwo, copyPointer or copyResume (the default now turns the first four on).
    const old = await forge((header) => {
      for (const key of ['secondPrevious', 'runLengths', 'strideTwo', 'copyPointer', 'copyResume']) delete header.config.model[key];
    });
    expect(defaultConfig().model).toMatchObject({ secondPrevious: true, runLengths: true, strideTwo: true, copyPointer: true });
    const { meta: read } = await decodeCheckpoint(old);
    expect(read.config.model).toMatchObject({ secondPrevious: false, runLengths: false, strideTwo: false, copyPointer: false, copyResume: false, valueDeltas: true });
    // Against a run of today's defaults it is another architecture, said as such (not "weights lack prev2").
    expect(compatibleWith(read, defaultConfig())).toMatch(/secondPrevious false \(this model true\)/);
    // A header that has them keeps them.
    expect((await decodeCheckpoint(await encodeCheckpoint(meta, tensors()))).meta.config.model.runLengths).toBe(true);
  });

  it('says when a checkpoint comes from another architecture', () => {
    const other = defaultConfig();
    other.model.layers = 4;
    expect(compatibleWith(meta, other)).toMatch(/layers 2 \(this model 4\)/);
    expect(compatibleWith(meta, defaultConfig())).toBeNull();
  });
});

describe('a checkpoint is never written that would not load (issue 29)', () => {
  it('a config past the schema (maxSteps 12,500,000, as num_episodes once made it) is refused at encoding, with the field named', async () => {
    const config = { ...defaultConfig(), run: { ...defaultConfig().run, maxSteps: 12_500_000 } };
    await expect(encodeCheckpoint({ ...meta, config }, tensors())).rejects.toThrow(/a checkpoint whose config would not load back: invalid config: run\.maxSteps/);
    await expect(encodeCheckpoint({ ...meta, step: -1 }, tensors())).rejects.toThrow(/step -1/);
  });
});

describe('checkpointTask', () => {
  it('reads the task from a checkpoint\'s header, and null from anything that is not one', async () => {
    const bytes = await encodeCheckpoint({ ...meta, config: defaultConfig('functions') }, tensors());
    expect(checkpointTask(bytes)).toBe('functions');
    expect(checkpointTask(await encodeCheckpoint(meta, tensors()))).toBe('kolmogorov');
    expect(checkpointTask(bytes.subarray(0, 40))).toBeNull(); // truncated inside its header
    expect(checkpointTask(new TextEncoder().encode('{"not": "a checkpoint"} and some more bytes to be long enough'))).toBeNull();
  });

  it('checkpointStep reads the step the same way (the page names a downloaded file after it)', async () => {
    expect(checkpointStep(await encodeCheckpoint({ ...meta, step: 42 }, tensors()))).toBe(42);
    expect(checkpointStep(new Uint8Array(10))).toBeNull();
  });
});
