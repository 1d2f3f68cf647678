/**
 * Streaming JSONL loading with per-line validation (docs/reliability.md, "Datasets"). Reads any
 * stream of byte chunks (a Node file stream, a browser File.stream()), splits lines on the
 * bytes so a multi-byte character split across chunks is never broken, decodes each line as
 * strict UTF-8, and keeps every good record while reporting each bad line with its number,
 * byte offset, reason and a printable snippet. A UTF-8 BOM is stripped; UTF-16 is refused as
 * a whole. A line longer than `maxLineBytes` is skipped without being buffered, so one giant
 * line cannot exhaust memory. Blank lines and CRLF endings are accepted.
 */

export interface JsonlError {
  /** 1-based line number. */
  line: number;
  /** Byte offset of the line's first byte in the file. */
  byteOffset: number;
  reason: string;
  /** The start of the line, with control and bidi characters escaped. */
  snippet: string;
}

export interface JsonlResult<T> {
  records: T[];
  /** The 1-based line of each record, so that a later check can name where a record came from. */
  recordLines: number[];
  /** The first `maxErrors` bad lines; `errorCount` counts them all. */
  errors: JsonlError[];
  errorCount: number;
  /** Lines seen, blank ones included. */
  lines: number;
  bytes: number;
}

export interface JsonlOptions {
  maxLineBytes?: number;
  /** The most bytes read from the source: a larger (or endless) one stops with a JsonlFileError. */
  maxBytes?: number;
  maxErrors?: number;
  onProgress?: (bytesRead: number) => void;
  signal?: AbortSignal;
}

/** The largest dataset read (the shipped training file is 7 MB). */
export const MAX_DATASET_BYTES = 1 << 30;

export class JsonlFileError extends Error {
  override name = 'JsonlFileError';
}

type ByteSource = AsyncIterable<Uint8Array> | { getReader(): { read(): Promise<{ done: boolean; value?: Uint8Array }>; releaseLock(): void } };

async function* chunksOf(source: ByteSource): AsyncGenerator<Uint8Array> {
  if (Symbol.asyncIterator in source) {
    yield* source as AsyncIterable<Uint8Array>;
    return;
  }
  const reader = source.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      if (value) yield value;
    }
  } finally {
    reader.releaseLock();
  }
}

// Escapes C0/C1 controls and bidi overrides so a hostile snippet renders inertly.
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069\ufeff]/g;
export function printable(text: string, max = 80): string {
  const cut = text.length > max ? `${text.slice(0, max)}…` : text;
  return cut.replace(UNPRINTABLE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

function concat(parts: Uint8Array[], length: number): Uint8Array {
  if (parts.length === 1) return parts[0];
  const out = new Uint8Array(length);
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

/** Whether bytes begin with a UTF-16 byte-order mark (little or big endian). */
const startsUtf16 = (bytes: Uint8Array) => (bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff);

/**
 * A whole text file's bytes as text, as both the CLI and the page read a file that is not
 * streamed: a UTF-8 BOM dropped, UTF-16 refused (by its BOM) as the JSONL loader refuses it,
 * invalid UTF-8 bytes as U+FFFD, for the parser to reject the line that holds them.
 */
export function decodeTextFile(bytes: Uint8Array): string {
  if (startsUtf16(bytes)) throw new JsonlFileError('the file is UTF-16 encoded; save it as UTF-8');
  return new TextDecoder('utf-8').decode(bytes);
}

export async function loadJsonl<T>(source: ByteSource, validate: (value: unknown) => T, options: JsonlOptions = {}): Promise<JsonlResult<T>> {
  const maxLineBytes = options.maxLineBytes ?? 1 << 20;
  const maxBytes = options.maxBytes ?? MAX_DATASET_BYTES;
  const maxErrors = options.maxErrors ?? 1000;
  const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
  const result: JsonlResult<T> = { records: [], recordLines: [], errors: [], errorCount: 0, lines: 0, bytes: 0 };
  let parts: Uint8Array[] = [];
  let partsLength = 0;
  let oversized = false;
  let lineStart = 0;

  const fail = (byteOffset: number, reason: string, snippet: string) => {
    result.errorCount += 1;
    // The reason may quote the line (JSON.parse's message does): printable too.
    if (result.errors.length < maxErrors) result.errors.push({ line: result.lines, byteOffset, reason: printable(reason, 240), snippet: printable(snippet) });
  };

  const finishLine = () => {
    result.lines += 1;
    const byteOffset = lineStart;
    if (oversized) {
      fail(byteOffset, `line longer than ${maxLineBytes} bytes`, '');
      return;
    }
    let bytes = concat(parts, partsLength);
    if (result.lines === 1) {
      // Byte-order marks, looked at on the assembled first line so chunking cannot hide them.
      if (startsUtf16(bytes)) {
        throw new JsonlFileError('the file is UTF-16 encoded; save it as UTF-8 JSONL');
      }
      if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) bytes = bytes.subarray(3);
    }
    if (bytes.length && bytes[bytes.length - 1] === 0x0d) bytes = bytes.subarray(0, bytes.length - 1);
    let text: string;
    try {
      text = decoder.decode(bytes);
    } catch {
      fail(byteOffset, 'invalid UTF-8', new TextDecoder().decode(bytes.subarray(0, 120)));
      return;
    }
    if (text.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      fail(byteOffset, `invalid JSON: ${(error as Error).message}`, text);
      return;
    }
    try {
      result.records.push(validate(value));
      result.recordLines.push(result.lines);
    } catch (error) {
      fail(byteOffset, (error as Error).message, text);
    }
  };

  for await (const chunk of chunksOf(source)) {
    if (options.signal?.aborted) throw new JsonlFileError('loading cancelled');
    let start = 0;
    for (;;) {
      const newline = chunk.indexOf(0x0a, start);
      const end = newline < 0 ? chunk.length : newline;
      if (!oversized) {
        if (partsLength + (end - start) > maxLineBytes) {
          oversized = true;
          parts = [];
          partsLength = 0;
        } else if (end > start) {
          parts.push(chunk.slice(start, end));
          partsLength += end - start;
        }
      }
      if (newline < 0) break;
      finishLine();
      lineStart = result.bytes + newline + 1;
      parts = [];
      partsLength = 0;
      oversized = false;
      start = newline + 1;
    }
    result.bytes += chunk.length;
    options.onProgress?.(result.bytes);
    if (result.bytes > maxBytes) throw new JsonlFileError(`the file is larger than the ${maxBytes} bytes a dataset may have (stopped reading there)`);
  }
  if (partsLength > 0 || oversized) finishLine();
  return result;
}

/** "1 problem", "3 problems": a count with its noun, given in the plural (a task's itemName). */
export function countOf(n: number, plural: string): string {
  return `${n} ${n === 1 ? plural.replace(/s$/, '') : plural}`;
}

/** A one-line summary a person can read: counts of loaded and rejected lines, or why nothing loaded. */
export function summarizeLoad(result: Pick<JsonlResult<unknown>, 'records' | 'errorCount' | 'lines' | 'bytes'>): string {
  if (result.bytes === 0) return 'the file is empty';
  if (result.records.length === 0 && result.errorCount === 0) return 'the file has no records (only blank lines)';
  const rejected = result.errorCount ? `, ${result.errorCount} rejected line${result.errorCount === 1 ? '' : 's'}` : '';
  return `${result.records.length} record${result.records.length === 1 ? '' : 's'} loaded${rejected} (${result.lines} lines, ${result.bytes} bytes)`;
}
