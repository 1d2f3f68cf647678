/**
 * Record schemas of the datasets (documented in datasets/SCHEMA.md). A validator takes the
 * parsed JSON of one line and returns a clean record or throws a reason naming the field.
 * Only the known fields are read, so `__proto__` or `constructor` keys change nothing.
 */

export interface KolmogorovRecord {
  sequence: number[];
  /** A reference program in the DSL's text format, when the dataset has one. */
  program?: string;
  id?: string;
}

export const MAX_SEQUENCE_LENGTH = 10_000;
export const MAX_PROGRAM_CHARS = 64 * 1024;

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** What a JSON value is, for a message: null and arrays by name (typeof says "object" for both). */
const kindOf = (value: unknown): string => (value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value);

function own(value: Record<string, unknown>, key: string): unknown {
  return Object.prototype.hasOwnProperty.call(value, key) ? value[key] : undefined;
}

export function parseKolmogorovRecord(value: unknown): KolmogorovRecord {
  if (!isPlainObject(value)) throw new Error(`expected an object {"sequence": [...]}, got ${kindOf(value)}`);
  const sequence = own(value, 'sequence');
  if (sequence === undefined) throw new Error('missing field "sequence"');
  if (!Array.isArray(sequence)) throw new Error(`"sequence" must be a list of integers, got ${kindOf(sequence)}`);
  if (sequence.length === 0) throw new Error('"sequence" is empty');
  if (sequence.length > MAX_SEQUENCE_LENGTH) throw new Error(`"sequence" has ${sequence.length} values, more than ${MAX_SEQUENCE_LENGTH}`);
  const clean = sequence.map((v, i) => {
    if (typeof v !== 'number') throw new Error(`"sequence"[${i}] must be a number, got ${kindOf(v)}`);
    if (!Number.isInteger(v) || v < 0 || v > 255) throw new Error(`"sequence"[${i}] = ${v} is not an integer in 0..255`);
    return v === 0 ? 0 : v; // -0 becomes 0
  });
  const record: KolmogorovRecord = { sequence: clean };
  const program = own(value, 'program');
  if (program !== undefined) {
    if (typeof program !== 'string') throw new Error(`"program" must be a string, got ${kindOf(program)}`);
    if (program.length > MAX_PROGRAM_CHARS) throw new Error(`"program" is longer than ${MAX_PROGRAM_CHARS} characters`);
    record.program = program;
  }
  const id = own(value, 'id');
  if (id !== undefined) {
    if (typeof id !== 'string' && typeof id !== 'number') throw new Error('"id" must be a string or a number');
    record.id = String(id);
  }
  return record;
}

/** A preference pair in a task's text form (TRL's DPO and reward-trainer format). */
export interface PreferenceRecord {
  prompt: string;
  chosen: string;
  rejected: string;
}

export function parsePreferenceRecord(value: unknown): PreferenceRecord {
  if (!isPlainObject(value)) throw new Error(`expected an object {"prompt", "chosen", "rejected"}, got ${kindOf(value)}`);
  const field = (key: keyof PreferenceRecord): string => {
    const text = own(value, key);
    if (text === undefined) throw new Error(`missing field "${key}"`);
    if (typeof text !== 'string') throw new Error(`"${key}" must be a string, got ${kindOf(text)}`);
    if (text.length > MAX_PROGRAM_CHARS) throw new Error(`"${key}" is longer than ${MAX_PROGRAM_CHARS} characters`);
    return text;
  };
  const pair = { prompt: field('prompt'), chosen: field('chosen'), rejected: field('rejected') };
  // A pair of one program has a margin of zero whatever the policy: it teaches nothing.
  if (pair.chosen === pair.rejected) throw new Error('"chosen" and "rejected" are the same program');
  return pair;
}
