import { describe, expect, it } from 'vitest';
import { JsonlFileError, decodeTextFile, loadJsonl, summarizeLoad } from './jsonl';
import { parseKolmogorovRecord } from './records';

const encoder = new TextEncoder();
async function* chunks(bytes: Uint8Array, size: number) {
  for (let i = 0; i < bytes.length; i += size) yield bytes.slice(i, i + size);
}
const load = (text: string | Uint8Array, size = 7, options = {}) =>
  loadJsonl(chunks(typeof text === 'string' ? encoder.encode(text) : text, size), parseKolmogorovRecord, options);

describe('JSONL loading', () => {
  it('keeps good lines and reports a bad one with line number, byte offset, reason and snippet', async () => {
    const text = '{"sequence":[1,2,3]}\n{"sequence":[1,2,\n{"sequence":[4],"program":"x"}\n';
    const result = await load(text);
    expect(result.records).toEqual([{ sequence: [1, 2, 3] }, { sequence: [4], program: 'x' }]);
    expect(result.errors).toHaveLength(1);
    expect(result.errors[0]).toMatchObject({ line: 2, byteOffset: 21, snippet: '{"sequence":[1,2,' });
    expect(result.errors[0].reason).toMatch(/invalid JSON/);
    expect(summarizeLoad(result)).toMatch(/2 records loaded, 1 rejected line/);
  });

  it('reads CRLF, blank lines, no final newline and multi-byte characters split across chunks identically', async () => {
    const lf = '{"sequence":[1],"program":"é€😀"}\n\n{"sequence":[2]}\n';
    const crlfNoFinal = '{"sequence":[1],"program":"é€😀"}\r\n\r\n{"sequence":[2]}';
    for (const size of [1, 2, 3, 5, 64]) {
      expect((await load(lf, size)).records).toEqual((await load(crlfNoFinal, size)).records);
    }
    expect((await load(lf, 1)).records[0].program).toBe('é€😀');
  });

  it('strips a UTF-8 BOM, refuses UTF-16, and reports invalid UTF-8 per line', async () => {
    const bom = new Uint8Array([0xef, 0xbb, 0xbf, ...encoder.encode('{"sequence":[9]}\n')]);
    expect((await load(bom, 2)).records).toEqual([{ sequence: [9] }]);
    await expect(load(new Uint8Array([0xff, 0xfe, 0x7b, 0x00]))).rejects.toThrow(JsonlFileError);
    const bad = new Uint8Array([...encoder.encode('{"sequence":[1]}\n{"program":"'), 0xc3, 0x28, ...encoder.encode('"}\n{"sequence":[2]}\n')]);
    const result = await load(bad, 4);
    expect(result.records).toHaveLength(2);
    expect(result.errors[0]).toMatchObject({ line: 2, reason: 'invalid UTF-8' });
  });

  it('skips a giant line by the per-line cap without buffering it', async () => {
    const giant = `{"sequence":[${'1,'.repeat(200_000)}1]}`;
    const result = await load(`{"sequence":[5]}\n${giant}\n{"sequence":[6]}\n`, 4096, { maxLineBytes: 1000 });
    expect(result.records).toEqual([{ sequence: [5] }, { sequence: [6] }]);
    expect(result.errors[0]).toMatchObject({ line: 2, reason: 'line longer than 1000 bytes' });
  });

  it('gives schema errors per line: missing fields, strings for numbers, arrays, out-of-range values', async () => {
    const lines = [
      '{"program":"x"}',
      '{"sequence":["1",2]}',
      '[1,2,3]',
      '{"sequence":[1e400]}',
      '{"sequence":[256]}',
      '{"sequence":[9007199254740993]}',
      '{"sequence":[1.5]}',
      '{"sequence":[]}',
      '{"sequence":[1],"program":7}',
      '{"sequence":[-0],"__proto__":{"polluted":true},"constructor":1}',
    ];
    const result = await load(lines.join('\n'));
    expect(result.errors.map((e) => [e.line, e.reason])).toEqual([
      [1, 'missing field "sequence"'],
      [2, '"sequence"[0] must be a number, got string'],
      [3, 'expected an object {"sequence": [...]}, got an array'],
      [4, '"sequence"[0] = Infinity is not an integer in 0..255'],
      [5, '"sequence"[0] = 256 is not an integer in 0..255'],
      [6, '"sequence"[0] = 9007199254740992 is not an integer in 0..255'],
      [7, '"sequence"[0] = 1.5 is not an integer in 0..255'],
      [8, '"sequence" is empty'],
      [9, '"program" must be a string, got number'],
    ]);
    expect(result.records).toEqual([{ sequence: [0] }]);
    expect(Object.is(result.records[0].sequence[0], -0)).toBe(false);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('renders control and bidi characters in snippets inertly', async () => {
    const result = await load('{"sequence": "\u202e\u0007evil"}\n');
    expect(result.errors[0].snippet).toBe('{"sequence": "\\u202e\\u0007evil"}');
  });

  it('says clearly when a file is empty or blank, and can be cancelled', async () => {
    expect(summarizeLoad(await load(''))).toBe('the file is empty');
    expect(summarizeLoad(await load('  \n\n'))).toBe('the file has no records (only blank lines)');
    const controller = new AbortController();
    controller.abort();
    await expect(load('{"sequence":[1]}\n', 4, { signal: controller.signal })).rejects.toThrow(/cancelled/);
  });

  it('streams many lines with bounded buffering and reports progress', async () => {
    let progress = 0;
    const line = encoder.encode('{"sequence":[1,2,3]}\n');
    async function* many() {
      for (let i = 0; i < 2000; i++) {
        const block = new Uint8Array(line.length * 50);
        for (let j = 0; j < 50; j++) block.set(line, j * line.length);
        yield block;
      }
    }
    const result = await loadJsonl(many(), parseKolmogorovRecord, { onProgress: (bytes) => (progress = bytes) });
    expect(result.records).toHaveLength(100_000);
    expect(progress).toBe(line.length * 100_000);
  });

  it('decodes a whole text file as the loaders read it: UTF-8 BOM dropped, UTF-16 refused, invalid bytes as U+FFFD', () => {
    expect(decodeTextFile(new Uint8Array([0xef, 0xbb, 0xbf, 0x7b, 0x7d]))).toBe('{}');
    expect(() => decodeTextFile(new Uint8Array([0xff, 0xfe, 0x7b, 0x00]))).toThrow('the file is UTF-16 encoded; save it as UTF-8');
    expect(() => decodeTextFile(new Uint8Array([0xfe, 0xff, 0x00, 0x7b]))).toThrow(/UTF-16/);
    expect(decodeTextFile(new Uint8Array([0x61, 0xff, 0x62]))).toBe('a\uFFFDb');
  });
});
