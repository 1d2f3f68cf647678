import { describe, expect, it } from 'vitest';
import { SafetensorsError, decodeSafetensors, encodeSafetensors, isSafetensors, labWeightName, safetensorsWeights } from './safetensors';

/** A file from its header object and data bytes, as the format lays them out (header padded to 8 with spaces). */
function file(header: object, data: number[] = [], pad = true): Uint8Array {
  let json = new TextEncoder().encode(JSON.stringify(header));
  if (pad && json.length % 8) json = new Uint8Array([...json, ...new Array(8 - (json.length % 8)).fill(0x20)]);
  const out = new Uint8Array(8 + json.length + data.length);
  new DataView(out.buffer).setBigUint64(0, BigInt(json.length), true);
  out.set(json, 8);
  out.set(data, 8 + json.length);
  return out;
}

describe('safetensors', () => {
  it('writes the format byte for byte: u64 header length, JSON header padded with spaces to 8 bytes, little-endian F32 data in order', () => {
    const bytes = encodeSafetensors([{ name: 'a', shape: [2], data: new Float32Array([1, -2]) }, { name: 'b', shape: [1, 1], data: new Float32Array([0.5]) }], { format: 'pt' });
    const header = '{"__metadata__":{"format":"pt"},"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"b":{"dtype":"F32","shape":[1,1],"data_offsets":[8,12]}}';
    const padded = header + ' '.repeat((8 - (header.length % 8)) % 8);
    const expected = new Uint8Array([
      ...new Uint8Array(new BigUint64Array([BigInt(padded.length)]).buffer),
      ...new TextEncoder().encode(padded),
      0x00, 0x00, 0x80, 0x3f, // 1
      0x00, 0x00, 0x00, 0xc0, // -2
      0x00, 0x00, 0x00, 0x3f, // 0.5
    ]);
    expect([...bytes]).toEqual([...expected]);
    expect((8 + padded.length) % 8).toBe(0); // the data starts 8-byte aligned
  });

  it('reads back what it wrote, bit for bit, with the metadata', () => {
    const data = new Float32Array([Math.PI, -0, 1e-40, 3.4e38, -1.5]);
    const { tensors, metadata } = decodeSafetensors(encodeSafetensors([{ name: 'w', shape: [5], data }], { step: '3' }));
    expect(metadata).toEqual({ step: '3' });
    expect(tensors[0].shape).toEqual([5]);
    expect(new Uint32Array(tensors[0].data.buffer)).toEqual(new Uint32Array(data.buffer));
  });

  it('reads F16 and BF16 (a PyTorch user may save half precision) as F32', () => {
    const half = file({ h: { dtype: 'F16', shape: [2], data_offsets: [0, 4] }, g: { dtype: 'BF16', shape: [1], data_offsets: [4, 6] } }, [0x00, 0x3c, 0x00, 0xc0, 0x80, 0x3f]);
    const { tensors } = decodeSafetensors(half);
    expect([...tensors[0].data]).toEqual([1, -2]);
    expect([...tensors[1].data]).toEqual([1]);
  });

  it('refuses every broken rule, saying which', () => {
    const ok = { dtype: 'F32', shape: [1], data_offsets: [0, 4] };
    const four = [0, 0, 0, 0];
    const refused = (bytes: Uint8Array, message: RegExp) => expect(() => decodeSafetensors(bytes)).toThrow(message);
    refused(new Uint8Array(4), /fewer than the 8/);
    const huge = new Uint8Array(16);
    new DataView(huge.buffer).setBigUint64(0, 200n * 1024n * 1024n, true);
    refused(huge, /more than the 104857600 allowed/);
    const short = file({ a: ok }, four);
    refused(short.subarray(0, 12), /the header claims \d+ bytes but the file has/);
    const notJson = file({ a: ok }, four);
    notJson[8] = 0x5b; // '[' makes it invalid JSON
    refused(notJson, /not valid UTF-8 JSON/);
    refused(file({ a: { ...ok, dtype: 'I64' } }, four), /dtype "I64" is not one the lab reads/);
    refused(file({ a: { ...ok, shape: [-1] } }, four), /shape \[-1\] is not a list of sizes/);
    refused(file({ a: { ...ok, shape: [2] } }, four), /4 bytes for shape \[2\] of F32, which needs 8/);
    refused(file({ a: ok, b: { ...ok, data_offsets: [8, 12] } }, [...four, ...four, ...four]), /tensor b starts at byte 8 of the data, not 4: a gap or an overlap/);
    refused(file({ a: ok, b: ok }, four), /starts at byte 0 of the data, not 4/);
    refused(file({ a: ok }, [...four, 0]), /cover 4 bytes of data, the file holds 5/);
    refused(file({ __metadata__: { step: 3 } }), /__metadata__ must map names to strings/);
    expect(() => decodeSafetensors(new Uint8Array(4))).toThrow(SafetensorsError);
  });

  it('a lab checkpoint is not mistaken for safetensors, and a safetensors file is told apart', async () => {
    expect(isSafetensors(encodeSafetensors([{ name: 'a', shape: [1], data: new Float32Array([1]) }]))).toBe(true);
    const { encodeCheckpoint } = await import('./checkpoint');
    const { defaultConfig } = await import('./config');
    const prl = await encodeCheckpoint({ config: defaultConfig(), step: 0, rngState: [1, 2, 3, 4] }, [{ name: 'a', group: 'weights', dtype: 'float32', shape: [1], data: new Float32Array([1]) }]);
    expect(isSafetensors(prl)).toBe(false);
  });

  it('weights with a NaN, an infinity or an absurd value are refused by tensor and index, as in a lab checkpoint', () => {
    const weights = (values: number[]) => encodeSafetensors([{ name: 'head/b', shape: [values.length], data: new Float32Array(values) }]);
    expect(safetensorsWeights(weights([0.5, -2]), 1e6)[0].data).toEqual(new Float32Array([0.5, -2]));
    expect(() => safetensorsWeights(weights([0, NaN]), 1e6)).toThrow('tensor head/b holds a non-finite value (NaN or Infinity) at index 1');
    expect(() => safetensorsWeights(weights([-Infinity]), 1e6)).toThrow(/non-finite value/);
    expect(() => safetensorsWeights(weights([1, 2, 3e38]), 1e6)).toThrow(/tensor head\/b holds 3\.0000000\d+e\+38 at index 2, beyond the 1000000/);
  });

  it('reads the names of the PyTorch module\'s own state_dict as the lab\'s', () => {
    expect(['blocks.0.qkv.w', 'blocks.11.ln2.g', 'head.b', 'tok', 'b0/qkv/w', 'lnf/g'].map(labWeightName)).toEqual(['b0/qkv/w', 'b11/ln2/g', 'head/b', 'tok', 'b0/qkv/w', 'lnf/g']);
    const saved = encodeSafetensors([{ name: 'blocks.1.fc2.b', shape: [1], data: new Float32Array([1]) }]);
    expect(safetensorsWeights(saved, 1e6)[0].name).toBe('b1/fc2/b');
  });
});

describe('safetensors files the sniffing used to call "not a checkpoint" (issue 29)', () => {
  /** A file whose u64 length says `length` whatever follows: a header `text`, then `data`. */
  const lying = (length: bigint, text: string, data = 0): Uint8Array => {
    const json = new TextEncoder().encode(text);
    const out = new Uint8Array(8 + json.length + data);
    new DataView(out.buffer).setBigUint64(0, length, true);
    out.set(json, 8);
    return out;
  };
  const header = '{"head/b":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}}';
  const weightsOf = async (bytes: Uint8Array) => {
    const { checkpointWeights } = await import('./loop');
    const { defaultConfig } = await import('./config');
    return checkpointWeights(bytes, defaultConfig(), { size: 1 });
  };

  it('a lying header length, a truncated header, a JSON array or a header after whitespace reach the reader, whose message says what is wrong', async () => {
    await expect(weightsOf(lying(2n ** 64n - 1n, header, 4))).rejects.toThrow('the safetensors file is malformed: the header claims 18446744073709551615 bytes, more than the 104857600 allowed');
    await expect(weightsOf(lying(2n ** 53n + 1n, header, 4))).rejects.toThrow('the header claims 9007199254740993 bytes, more than the 104857600 allowed');
    await expect(weightsOf(lying(100n * 1024n * 1024n, header, 4))).rejects.toThrow(/the header claims 104857600 bytes but the file has \d+ after its length/);
    await expect(weightsOf(lying(BigInt(header.length), header.slice(0, 20)))).rejects.toThrow(/the header claims \d+ bytes but the file has 20/);
    await expect(weightsOf(lying(2n, '[]'))).rejects.toThrow('the header is not a JSON object');
    for (const bytes of [lying(2n ** 64n - 1n, header), lying(2n, '[]'), lying(BigInt(header.length + 1), ` ${header}`, 4)]) expect(isSafetensors(bytes)).toBe(true);
    // JSON allows whitespace before the object: such a header is read like any other.
    expect(decodeSafetensors(lying(BigInt(header.length + 1), ` ${header}`, 4)).tensors[0].name).toBe('head/b');
    // Where a lab checkpoint is needed (eval, resume), a safetensors file is called one.
    const { decodeCheckpoint } = await import('./checkpoint');
    await expect(decodeCheckpoint(lying(2n ** 64n - 1n, header, 64))).rejects.toThrow('not a lab checkpoint but a safetensors file');
    // Neither format: still the checkpoint reader's word.
    expect(isSafetensors(new TextEncoder().encode('hello, this is a text file'))).toBe(false);
  });

  it('a file that names one lab weight twice (the PyTorch name and the lab\'s) is refused, not loaded with the later one winning', () => {
    const both = encodeSafetensors([
      { name: 'blocks.0.ln1.g', shape: [1], data: new Float32Array([1]) },
      { name: 'b0/ln1/g', shape: [1], data: new Float32Array([2]) },
    ]);
    expect(() => safetensorsWeights(both, 1e6)).toThrow('tensors blocks.0.ln1.g and b0/ln1/g are both the lab weight b0/ln1/g');
  });
});
