/**
 * The in-thread QuickJS evaluator: one program, one fresh context, hard limits, a typed
 * outcome. It runs inside a sandbox worker (pool.ts keeps the host watchdog that can kill a
 * worker QuickJS itself cannot stop).
 *
 * Isolation contract (RELIABILITY.md): every program gets a fresh context (its own global
 * object and builtins: nothing one run sets is visible to the next), no Date, no I/O (QuickJS
 * has no fetch, require or module loader here), a seeded Math.random, a deadline interrupt that
 * covers compile, run, pending promise jobs and the serialisation of the result, a stack limit,
 * and a memory limit (QuickJS's own, plus a check in the interrupt handler on the growth of the
 * wasm heap, because this build's allocator does not count every byte). The result is validated and serialised *inside* QuickJS by a function
 * captured before the program ran, so a program that replaces builtins cannot fool it, and the
 * host only ever reads one bounded string.
 *
 * Speed: contexts are cheap, runtimes less so, so one runtime serves many contexts and is
 * replaced after any outcome that could leave it damaged (oom, stack overflow, timeout) and
 * every `runtimeReuse` evaluations. The wasm heap never shrinks: when it grows past
 * `recycleHeapBytes` the module is flagged (`needsRecycle`) and its worker replaced.
 */
import releaseSyncVariant from '@jitl/quickjs-wasmfile-release-sync';
import {
  DefaultIntrinsics,
  newQuickJSWASMModuleFromVariant,
  newVariant,
  type QuickJSContext,
  type QuickJSHandle,
  type QuickJSRuntime,
  type QuickJSWASMModule,
} from 'quickjs-emscripten-core';
import type { OutcomeKind, SandboxJob, SandboxLimits, SandboxOutcome } from './outcome';
import { preludeFor, type Prelude } from './prelude';

export interface SandboxOptions {
  limits: SandboxLimits;
  /** Named preludes (JS source) a job may ask to run before its program. */
  preludes?: Record<string, Prelude>;
  /** How to load the QuickJS wasm module (the browser passes its bundled wasm URL). */
  loadModule?: () => Promise<QuickJSWASMModule>;
  /** Replace the runtime after this many evaluations even if nothing went wrong. */
  runtimeReuse?: number;
  /** Flag the module for recycling once the wasm heap exceeds this many bytes. */
  recycleHeapBytes?: number;
}

const MAX_MESSAGE = 300;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * Guest-side setup, evaluated in each fresh context before the program: seeds Math.random and
 * returns the result extractor and error describer, closed over pristine builtins.
 */
const SETUP = String.raw`(function (seed, maxOutput) {
  var isArray = Array.isArray, isSafe = Number.isSafeInteger, gopd = Object.getOwnPropertyDescriptor;
  var toStr = String, slice = String.prototype.slice, join = Array.prototype.join;
  var s = seed >>> 0;
  Math.random = function () {
    s = (s + 0x6D2B79F5) >>> 0;
    var t = Math.imul(s ^ (s >>> 15), 1 | s);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  function extract(value) {
    if (!isArray(value)) return 'E' + (value === undefined ? 'output is not defined' : 'output is not a list');
    var n = value.length;
    if (!(n <= maxOutput)) return 'E' + 'output has more than ' + maxOutput + ' elements';
    var out = [];
    for (var i = 0; i < n; i++) {
      var d = gopd(value, i);
      if (!d || !('value' in d)) return 'E' + 'element ' + i + ' is not a plain value';
      var v = d.value;
      if (typeof v !== 'number' || !isSafe(v)) return 'E' + 'element ' + i + ' is not a safe integer';
      out[i] = v;
    }
    return 'O' + join.call(out, ',');
  }
  function describe(error) {
    try {
      if (error === null || error === undefined) return 'Z' + toStr(error);
      if (typeof error !== 'object' && typeof error !== 'function') return 'V' + slice.call(toStr(error), 0, 300);
      var nameD = gopd(error, 'name'), messageD = gopd(error, 'message');
      var proto = Object.getPrototypeOf(error);
      var name = nameD && 'value' in nameD ? nameD.value : proto && gopd(proto, 'name') && gopd(proto, 'name').value;
      var message = messageD && 'value' in messageD ? messageD.value : '';
      return 'N' + slice.call(toStr(name), 0, 40) + ':' + slice.call(toStr(message), 0, 300);
    } catch (e) {
      return 'Vunprintable error';
    }
  }
  return [extract, describe];
})`;

function byteLength(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    bytes += c < 0x80 ? 1 : c < 0x800 ? 2 : c >= 0xd800 && c < 0xdc00 ? 2 : 3;
  }
  return bytes;
}

/** Rejects sources before any evaluation: the size cap, NUL bytes, lone surrogates. */
export function checkSource(source: string, maxSourceBytes: number): string | null {
  if (typeof source !== 'string' || source.trim() === '') return 'empty program';
  if (source.length > maxSourceBytes || byteLength(source) > maxSourceBytes) return `program larger than ${maxSourceBytes} bytes`;
  if (source.includes('\0')) return 'program contains a NUL character';
  if (LONE_SURROGATE.test(source)) return 'program contains a lone surrogate';
  return null;
}

function arraysEqual(a: readonly number[], b: readonly number[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

const PAGE = 64 * 1024;
/** The QuickJS module's own heap at start (its declared initial memory). */
const INITIAL_HEAP = 16 << 20;

/**
 * Loads the QuickJS module with a wasm memory of bounded size. This build's allocator does
 * not count most bytes against setMemoryLimit, and its interrupt handler is not consulted
 * while builtins allocate, so the hard memory cap is the wasm memory's `maximum`: a memory
 * bomb fails with QuickJS's own "out of memory" once the heap is full, instead of growing
 * the heap to 2 GB. `wasmLocation` is the .wasm URL in the browser (Node finds the file).
 */
export function quickJSLoader(options: { memoryBytes: number; wasmLocation?: string }): () => Promise<QuickJSWASMModule> {
  const maximumBytes = INITIAL_HEAP + options.memoryBytes + (16 << 20);
  return () =>
    newQuickJSWASMModuleFromVariant(
      newVariant(releaseSyncVariant, {
        ...(options.wasmLocation ? { wasmLocation: options.wasmLocation } : {}),
        wasmMemory: new WebAssembly.Memory({ initial: INITIAL_HEAP / PAGE, maximum: Math.ceil(maximumBytes / PAGE) }),
      }),
    );
}

export class Sandbox {
  private runtime: QuickJSRuntime | null = null;
  private runtimeUses = 0;
  private evaluations = 0;
  /** Set when the wasm heap has grown past its threshold: the owner should replace this sandbox. */
  needsRecycle = false;

  private constructor(
    private readonly module: QuickJSWASMModule,
    private readonly options: Required<Omit<SandboxOptions, 'loadModule'>>,
  ) {}

  static async create(options: SandboxOptions): Promise<Sandbox> {
    const module = await (options.loadModule ?? quickJSLoader({ memoryBytes: options.limits.memoryBytes }))();
    const sandbox = new Sandbox(module, {
      limits: options.limits,
      preludes: options.preludes ?? {},
      runtimeReuse: options.runtimeReuse ?? 1000,
      recycleHeapBytes: options.recycleHeapBytes ?? 256 << 20,
    });
    // Warm the wasm code up (V8 compiles it lazily): the first real program must not pay for it
    // against its deadline (a cold first evaluation took 134 ms here, over the 100 ms default).
    sandbox.evaluate({ source: 'output = [0]' });
    sandbox.evaluations = 0;
    return sandbox;
  }

  get evaluationCount(): number {
    return this.evaluations;
  }

  private freshRuntime(): QuickJSRuntime {
    this.runtime?.dispose();
    const runtime = this.module.newRuntime();
    runtime.setMemoryLimit(this.options.limits.memoryBytes);
    runtime.setMaxStackSize(this.options.limits.stackBytes);
    this.runtime = runtime;
    this.runtimeUses = 0;
    return runtime;
  }

  private retireRuntime(): void {
    this.runtime?.dispose();
    this.runtime = null;
  }

  evaluateBatch(jobs: readonly SandboxJob[]): SandboxOutcome[] {
    return jobs.map((job) => this.evaluate(job));
  }

  evaluate(job: SandboxJob): SandboxOutcome {
    const started = performance.now();
    const done = (kind: OutcomeKind, extra: Partial<SandboxOutcome> = {}): SandboxOutcome => ({
      kind,
      ...extra,
      ...(extra.message ? { message: extra.message.slice(0, MAX_MESSAGE) } : {}),
      elapsedMs: performance.now() - started,
    });
    const { limits } = this.options;
    const rejected = checkSource(job.source, limits.maxSourceBytes);
    if (rejected) return done('compile_error', { message: rejected });
    const registered = job.prelude === undefined ? '' : this.options.preludes[job.prelude];
    if (registered === undefined) return done('infra_error', { message: `unknown prelude "${job.prelude}"` });
    const prelude = preludeFor(registered, job.source);

    this.evaluations += 1;
    const runtime = this.runtime && this.runtimeUses < this.options.runtimeReuse ? this.runtime : this.freshRuntime();
    this.runtimeUses += 1;
    const deadline = Date.now() + limits.deadlineMs;
    const memory = this.module.getWasmMemory();
    const heapAtStart = memory.buffer.byteLength;
    const stop: { reason: 'timeout' | 'oom' | null } = { reason: null };
    runtime.setInterruptHandler(() => {
      if (Date.now() >= deadline) stop.reason = 'timeout';
      else if (memory.buffer.byteLength - heapAtStart > limits.memoryBytes) stop.reason = 'oom';
      return stop.reason !== null;
    });
    let context: QuickJSContext | null = null;
    let damaged = false;
    try {
      context = runtime.newContext({ intrinsics: { ...DefaultIntrinsics, Date: false } });
      let outcome = this.run(context, runtime, job, prelude, deadline);
      if (stop.reason === 'oom') outcome = { kind: 'oom', message: `memory limit of ${limits.memoryBytes} bytes exceeded` };
      else if (stop.reason === 'timeout' || (Date.now() >= deadline && ['runtime_error', 'output_invalid', 'infra_error'].includes(outcome.kind))) {
        outcome = { kind: 'timeout', message: `deadline of ${limits.deadlineMs} ms exceeded` };
      }
      if (outcome.kind === 'oom' || outcome.kind === 'stack_overflow' || outcome.kind === 'timeout' || outcome.kind === 'infra_error') {
        damaged = true;
      }
      return done(outcome.kind, outcome);
    } catch (error) {
      damaged = true;
      const message = error instanceof Error ? error.message : String(error);
      // A trap inside the wasm module leaves its state suspect: the owner replaces the worker.
      this.needsRecycle = true;
      // The host stack ran out inside QuickJS (its parser recursing on deeply nested source).
      if (error instanceof RangeError && /call stack/i.test(message)) return done('stack_overflow', { message: 'stack overflow (host stack exhausted)' });
      // The wasm heap could not grow: the program exhausted memory.
      if (/memory|alloc/i.test(message)) return done('oom', { message });
      return done('infra_error', { message: `sandbox failure: ${message}` });
    } finally {
      try {
        context?.dispose();
      } catch {
        damaged = true;
      }
      runtime.removeInterruptHandler();
      if (damaged) this.retireRuntime();
      if (this.module.getWasmMemory().buffer.byteLength > this.options.recycleHeapBytes) this.needsRecycle = true;
    }
  }

  private run(context: QuickJSContext, runtime: QuickJSRuntime, job: SandboxJob, prelude: string, deadline: number): Omit<SandboxOutcome, 'elapsedMs'> {
    const { limits } = this.options;
    const handles: QuickJSHandle[] = [];
    const keep = (handle: QuickJSHandle) => {
      handles.push(handle);
      return handle;
    };
    try {
      const setupResult = context.evalCode(`${SETUP}(${(job.seed ?? 0) >>> 0}, ${limits.maxOutputLength})`, 'setup.js');
      if (setupResult.error) {
        setupResult.error.dispose();
        return { kind: 'infra_error', message: 'sandbox setup failed' };
      }
      const tools = keep(setupResult.value);
      const extract = keep(context.getProp(tools, 0));
      const describe = keep(context.getProp(tools, 1));

      const fail = (errorHandle: QuickJSHandle, phase: 'compile' | 'run'): Omit<SandboxOutcome, 'elapsedMs'> => {
        keep(errorHandle);
        const timedOut = Date.now() >= deadline;
        const described = context.callFunction(describe, context.undefined, errorHandle);
        let text = 'Vunknown error';
        if (described.error) described.error.dispose();
        else {
          text = context.getString(described.value).slice(0, MAX_MESSAGE + 50);
          described.value.dispose();
        }
        const kindTag = text[0];
        const body = text.slice(1);
        const [name, ...rest] = body.split(':');
        const message = kindTag === 'N' ? `${name}: ${rest.join(':')}` : body;
        if (kindTag === 'N' && name === 'InternalError' && /interrupted/.test(body)) return { kind: 'timeout', message: `deadline of ${limits.deadlineMs} ms exceeded` };
        if (timedOut && kindTag !== 'N') return { kind: 'timeout', message: `deadline of ${limits.deadlineMs} ms exceeded` };
        if (/stack overflow|too much recursion/i.test(body)) return { kind: 'stack_overflow', message };
        if (/out of memory/i.test(body)) return { kind: 'oom', message };
        if (kindTag === 'Z' && this.nearMemoryLimit(runtime)) return { kind: 'oom', message: 'out of memory' };
        if (phase === 'compile') return { kind: 'compile_error', message };
        if (timedOut && name === 'InternalError') return { kind: 'timeout', message: `deadline of ${limits.deadlineMs} ms exceeded` };
        return { kind: 'runtime_error', message: kindTag === 'Z' || kindTag === 'V' ? `uncaught throw: ${body}` : message };
      };

      if (prelude) {
        const preludeResult = context.evalCode(prelude, 'prelude.js');
        if (preludeResult.error) return { ...fail(preludeResult.error, 'run'), kind: 'infra_error' };
        preludeResult.value.dispose();
      }
      // Compile first, so that syntax errors are told apart from errors the program throws.
      const compiled = context.evalCode(job.source, 'program.js', { compileOnly: true });
      if (compiled.error) return fail(compiled.error, 'compile');
      compiled.value.dispose();
      const result = context.evalCode(job.source, 'program.js');
      if (result.error) return fail(result.error, 'run');
      result.value.dispose();
      // Promise jobs (a loop or throw after `await`) run under the same deadline.
      const jobs = runtime.executePendingJobs();
      if (jobs.error) return fail(jobs.error, 'run');
      
      if (Date.now() >= deadline) return { kind: 'timeout', message: `deadline of ${limits.deadlineMs} ms exceeded` };
      let outputHandle = keep(context.getProp(context.global, 'output'));
      // An output that is a promise counts by its settled value; a rejection is the program's error.
      const promiseState = context.typeof(outputHandle) === 'object' ? context.getPromiseState(outputHandle) : null;
      if (promiseState?.type === 'rejected') return fail(promiseState.error, 'run');
      if (promiseState?.type === 'pending') return { kind: 'output_invalid', message: 'output is a promise that never settled' };
      if (promiseState?.type === 'fulfilled' && !promiseState.notAPromise) outputHandle = keep(promiseState.value);
      const extracted = context.callFunction(extract, context.undefined, outputHandle);
      if (extracted.error) {
        const failure = fail(extracted.error, 'run');
        return failure.kind === 'runtime_error' ? { kind: 'output_invalid', message: `reading the output failed: ${failure.message}` } : failure;
      }
      keep(extracted.value);
      if (context.typeof(extracted.value) !== 'string') return { kind: 'output_invalid', message: 'output could not be serialised' };
      const text = context.getString(extracted.value);
      if (text[0] === 'E') return { kind: 'output_invalid', message: text.slice(1) };
      const output = text.length > 1 ? text.slice(1).split(',').map(Number) : [];
      if (job.expected === undefined) return { kind: 'ok', output };
      return arraysEqual(output, job.expected) ? { kind: 'ok', output } : { kind: 'wrong', output };
    } finally {
      for (const handle of handles.reverse()) if (handle.alive) handle.dispose();
    }
  }

  private nearMemoryLimit(runtime: QuickJSRuntime): boolean {
    try {
      const usage = runtime.dumpMemoryUsage();
      const match = /malloc_size\D*(\d+)|memory used\D*(\d+)/i.exec(usage);
      const used = match ? Number(match[1] ?? match[2]) : 0;
      return used > this.options.limits.memoryBytes * 0.5;
    } catch {
      return true;
    }
  }

  dispose(): void {
    this.retireRuntime();
  }
}
