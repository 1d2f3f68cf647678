/**
 * A downloaded run file (`.run.json`) as the page imports it (issue 29): every field is checked
 * before anything is stored, so no record reaches IndexedDB that the page cannot draw, and a file
 * the browser's storage cannot hold is refused before the write with a message that says so.
 */
import 'fake-indexeddb/auto';
import { afterEach, describe, expect, it } from 'vitest';
import { encodeCheckpoint } from '../core/checkpoint';
import { defaultConfig } from '../core/config';
import { RunStore } from './runStore';
import { RUN_FORMAT, parseRunFile, validMetricName } from './runFile';
import { SavedRuns } from './savedRuns';

const row = { label: 'greedy @ step 2', step: 2, task: 'kolmogorov', search: 'greedy', k: 1, n: 3, score: 0.5, metrics: { accuracy: 0.5, compression_rate: 0.4 } };
/** A row as files written before the registries hold it. */
const oldRow = { label: 'greedy @ step 2', step: 2, k: 1, n: 3, accuracy: 0.5, accAtPrefix: { 16: 0.5, 32: 0.5, 64: 0.5, 128: 0.5 }, compressionRate: 0.4, precision: 1, gzipRate: 0.6, lzmaRate: 0.5 };
const valid = () => ({
  format: RUN_FORMAT,
  version: 1,
  run: { name: 'a run', best: 0.5, createdAt: 1_700_000_000_000 },
  metrics: [{ step: 1, name: 'avg_reward', value: 0.25, wallMs: 10 }, { step: 2, name: 'rewards/margins', value: -1, wallMs: 20 }],
  evaluations: [row],
  checkpoint: 'AAAA',
  reference: null,
});
const text = (edit: (file: ReturnType<typeof valid>) => void) => {
  const file = valid();
  edit(file);
  return JSON.stringify(file);
};

describe('run file fields', () => {
  it('a well-formed file reads back as it was; a row of the shape before the registries is read into today\'s, a digit row\'s NaN figures (null in JSON) left out', () => {
    expect(parseRunFile(JSON.stringify(valid()), 'r.json').metrics).toEqual(valid().metrics);
    expect(parseRunFile(JSON.stringify(valid()), 'r.json').evaluations).toEqual([row]);
    const digit = parseRunFile(text((f) => (f.evaluations = [{ ...oldRow, compressionRate: null, formatCompliance: 0.9 } as never])), 'r.json');
    expect(digit.evaluations[0]).toMatchObject({ search: 'greedy', score: 0.5, metrics: { accuracy: 0.5, format_compliance: 0.9, precision: 1 } });
    expect(digit.evaluations[0].metrics.compression_rate).toBeUndefined();
    // A metric reported without a value (NaN, written as null by a lab that kept it) is left out, not a reason to refuse the run.
    const unvalued = parseRunFile(text((f) => f.metrics.push({ step: 3, name: 'program_bits', value: null as never, wallMs: 30 })), 'r.json');
    expect(unvalued.metrics).toEqual(valid().metrics);
  });

  it('run.best, run.createdAt and run.name that the page cannot show are refused, naming the field', () => {
    expect(() => parseRunFile(text((f) => (f.run.best = 'oops' as never)), 'r.json')).toThrow('r.json: run.best must be a finite number or null');
    expect(() => parseRunFile(text((f) => (f.run.best = {} as never)), 'r.json')).toThrow('run.best must be a finite number or null');
    expect(() => parseRunFile(text((f) => (f.run.createdAt = 'yesterday' as never)), 'r.json')).toThrow('run.createdAt must be a time in milliseconds');
    expect(() => parseRunFile(text((f) => (f.run.createdAt = 1e20)), 'r.json')).toThrow('run.createdAt must be a time in milliseconds');
    expect(() => parseRunFile(text((f) => (f.run.name = 'x'.repeat(1000))), 'r.json')).toThrow('run.name must be a name of 1 to 200 characters');
  });

  it('the run\'s record (its code, backend and files with their sha256) reads back; a malformed one is refused, naming the field', () => {
    const provenance = { code: { version: '0.1.0', build: 'abc123' }, backend: 'wasm', files: [{ role: 'train', name: 'train.jsonl', sha256: 'a'.repeat(64), bytes: 10, loaded: 2, rejected: 1 }] };
    expect(parseRunFile(text((f) => Object.assign(f.run, { provenance })), 'r.run.json').run.provenance).toEqual(provenance);
    expect(() => parseRunFile(text((f) => Object.assign(f.run, { provenance: { ...provenance, files: [{ ...provenance.files[0], sha256: 'xyz' }] } })), 'r.run.json')).toThrow('r.run.json: run.provenance.files[0].sha256 must be 64 hex digits');
    expect(() => parseRunFile(text((f) => Object.assign(f.run, { provenance: { ...provenance, code: 'v1' } })), 'r.run.json')).toThrow('run.provenance.code must hold a version and a build');
  });

  it('evaluation rows that are not rows, and metric steps that are not steps, are refused', () => {
    expect(() => parseRunFile(text((f) => (f.evaluations = [1, null, 'x'] as never)), 'r.json')).toThrow('r.json: evaluations[0] is not an evaluation row');
    expect(() => parseRunFile(text((f) => (f.evaluations = [{ ...oldRow, accuracy: 'high' }] as never)), 'r.json')).toThrow('evaluations[0].accuracy must be a number');
    expect(() => parseRunFile(text((f) => (f.evaluations = [{ ...row, metrics: { accuracy: 'high' } }] as never)), 'r.json')).toThrow('evaluations[0].metrics.accuracy must be a number');
    expect(() => parseRunFile(text((f) => (f.evaluations = [{ ...row, metrics: { __proto__x: 1, 'no spaces': 2 } }] as never)), 'r.json')).toThrow('evaluations[0].metrics has a name that is no metric name');
    expect(() => parseRunFile(text((f) => (f.evaluations = [{ ...row, items: [null] }] as never)), 'r.json')).toThrow('evaluations[0].items[0] is not an evaluated item');
    expect(() => parseRunFile(text((f) => (f.metrics[1].step = -5)), 'r.json')).toThrow('metrics[1].step must be a whole number of at least 0');
    expect(() => parseRunFile(text((f) => (f.metrics[0].step = 1.5)), 'r.json')).toThrow('metrics[0].step must be a whole number of at least 0');
    expect(() => parseRunFile(text((f) => (f.metrics[0].wallMs = -1)), 'r.json')).toThrow('metrics[0].wallMs');
  });

  it('metric names are names: never __proto__, constructor or another member of every object', () => {
    for (const name of ['__proto__', 'constructor', 'toString', 'hasOwnProperty', '', 'x'.repeat(200), 'a b']) {
      expect(validMetricName(name), name).toBe(false);
      expect(() => parseRunFile(text((f) => (f.metrics[0].name = name)), 'r.json'), name).toThrow('metrics[0].name');
    }
    for (const name of ['avg_reward', 'rewards/margins', 'losses/td_loss', 'charts/epsilon', 'eval_pass@1']) expect(validMetricName(name), name).toBe(true);
  });
});

describe('importing checks what the browser can hold first', () => {
  const DB = 'run-file-test';
  afterEach(() => Reflect.deleteProperty(globalThis, 'navigator'));

  it('a run that would not fit in the storage is refused before the write, saying so; one that fits is stored', async () => {
    const checkpoint = await encodeCheckpoint({ config: defaultConfig(), step: 2, rngState: [1, 2, 3, 4] }, [{ name: 'w', group: 'weights', dtype: 'float32', shape: [4096], data: new Float32Array(4096) }]);
    const body = JSON.stringify({ ...valid(), checkpoint: Buffer.from(checkpoint).toString('base64') });
    const estimate = { usage: 1_000_000, quota: 1_010_000 };
    Object.defineProperty(globalThis, 'navigator', { value: { storage: { estimate: async () => estimate } }, configurable: true });
    const runs = new SavedRuns({ send: () => undefined, dbName: DB });
    await expect(runs.import(body, 'big.run.json')).rejects.toThrow(/big\.run\.json needs [\d.]+ MB of this browser's storage, which has [\d.]+ MB free/);
    const store = await RunStore.open(DB);
    expect(await store.list()).toEqual([]);
    estimate.quota = 1e12;
    const stored = await runs.import(body, 'big.run.json');
    expect(stored.step).toBe(2);
    expect((await store.list()).map((run) => run.id)).toEqual([stored.id]);
    store.close();
  });
});
