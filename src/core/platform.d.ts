/**
 * The few platform APIs that core may use: those that Node 20, Web Workers and browsers all
 * provide as globals. core compiles without the DOM library and without @types/node, so using
 * anything else (document, fs, Buffer) is a type error. The checks in the main tsconfig, with
 * the full DOM and Node types, keep these declarations honest.
 */
declare global {
  interface Console {
    log(...data: unknown[]): void;
    warn(...data: unknown[]): void;
    error(...data: unknown[]): void;
  }
  const console: Console;

  function setTimeout(handler: (...args: unknown[]) => void, timeout?: number): unknown;
  function clearTimeout(id: unknown): void;
  function queueMicrotask(callback: () => void): void;
  function structuredClone<T>(value: T): T;
  function atob(data: string): string;

  const performance: { now(): number };

  class TextEncoder {
    encode(input?: string): Uint8Array;
  }
  class TextDecoder {
    constructor(label?: string, options?: { fatal?: boolean; ignoreBOM?: boolean });
    decode(input?: ArrayBufferView | ArrayBuffer, options?: { stream?: boolean }): string;
  }

  class URLSearchParams {
    constructor(init?: string | Record<string, string>);
    set(name: string, value: string): void;
    get(name: string): string | null;
    toString(): string;
    [Symbol.iterator](): IterableIterator<[string, string]>;
  }

  namespace WebAssembly {
    class Memory {
      constructor(descriptor: { initial: number; maximum?: number; shared?: boolean });
      readonly buffer: ArrayBuffer;
      grow(delta: number): number;
    }
    class Module {
      constructor(bytes: Uint8Array);
    }
    class Instance {
      constructor(module: Module, imports?: Record<string, Record<string, unknown>>);
      readonly exports: Record<string, unknown>;
    }
    function validate(bytes: Uint8Array): boolean;
  }

  class AbortSignal {
    readonly aborted: boolean;
  }

  const crypto: {
    getRandomValues<T extends ArrayBufferView>(array: T): T;
    subtle: { digest(algorithm: 'SHA-256', data: ArrayBufferView | ArrayBuffer): Promise<ArrayBuffer> };
  };
}
export {};
