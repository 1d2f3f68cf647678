/**
 * The in-thread QuickJS evaluator: one program, a fresh QuickJS state, hard limits, a typed
 * outcome. It runs inside a sandbox worker (pool.ts keeps the host watchdog that can kill a
 * worker QuickJS itself cannot stop).
 *
 * Isolation contract (docs/reliability.md): every program starts from the same pristine state: its
 * own global object and builtins (nothing one run sets is visible to the next), no Date, no I/O
 * (QuickJS has no fetch, require or module loader here), a seeded Math.random, a deadline
 * interrupt that covers compile, run, pending promise jobs and the serialisation of the result,
 * a stack limit, and a memory limit (QuickJS's own, plus a check in the interrupt handler on the
 * growth of the wasm heap, because this build's allocator does not count every byte). The result
 * is validated and serialised *inside* QuickJS by a function captured before the program ran, so
 * a program that replaces builtins cannot fool it, and the host only ever reads one bounded string.
 *
 * The result channel of a test harness (issue 29): a prelude may take, while it runs, the one
 * `report` function through which its result reaches the host (`__takeReport()`, removed from the
 * global object before any snapshot is taken, so no program ever sees it). From then on, jobs of
 * that prelude are read from what the harness reported, never from `output`: a program that
 * replaces the harness, sets or locks `output`, replaces builtins or skips the harness's call has
 * no way to write a result (docs/reliability.md).
 *
 * How the state is made fresh: not by building a new context per program (~0.3-0.6 ms here, the
 * whole budget), but by restoring memory. QuickJS keeps all of its state (runtime, context,
 * objects, atoms, allocator) in the wasm linear memory. After one runtime and context are set up
 * (limits, interrupt handler, the SETUP tools, and for each prelude its full text evaluated), the
 * live parts of that memory are copied: the static data, and the heap up to its last used byte
 * (~0.2 MB). Before every program those bytes are written back, so each program starts from a
 * byte-identical QuickJS heap: a stronger reset than a fresh context in a reused runtime, where
 * the runtime's atoms, shapes and job queue carry over. What is not copied is the unused part of
 * the C stack (dead between calls) and free heap above the snapshot's top (the restored allocator
 * treats it as free; QuickJS never reads memory it has not initialised). Host-side handles that
 * must survive (context, global object, the SETUP tools) are created before the snapshot; every
 * handle made during a run is disposed before the next restore.
 *
 * The deadline is checked when QuickJS polls its interrupt handler, which it does every 10,000
 * ticks (calls and backward jumps) on its own. A tick can be dear: a program that catches its own
 * stack overflow and recurses again (`function r(n) { try { return r(n + 1) } catch (e) { return
 * r(n + 1) } }`) throws an error with a backtrace of the whole stack at every tick, ~120 us at the
 * default stack, and 10,000 of them ran 1.2 s past a 100 ms deadline, until the host watchdog
 * killed the worker. So the sandbox sets QuickJS's poll counter itself (JSContext's
 * interrupt_counter, found in the wasm memory and checked when the state is built: findPollCounter)
 * to a count that keeps the dearest interval a few milliseconds: stack bytes x ticks stays under
 * TICKS_X_STACK_BYTES. Without the counter (another QuickJS layout) it falls back to QuickJS's own.
 *
 * A wasm trap or host exception (the host stack running out inside the parser) can leave the
 * module's C stack pointer, which lives outside linear memory, displaced: then the runtime,
 * context and snapshots are rebuilt on the module, and `needsRecycle` asks the owner to replace
 * the worker. A program's memory is how far the allocator's break moves while it runs (found in the
 * static data when the state is built: findHeapTop), which the restore puts back before every
 * program; the wasm memory itself never shrinks, so its growth, the fallback measure, would let a
 * program use unseen what an earlier one had grown (then the module is flagged for recycling as
 * soon as it grows, `recycleHeapBytes`).
 */
import {
  DefaultIntrinsics,
  type QuickJSContext,
  type QuickJSHandle,
  type QuickJSRuntime,
  type QuickJSWASMModule,
} from 'quickjs-emscripten-core';
import type { OutcomeKind, SandboxJob, SandboxLimits, SandboxOutcome } from './outcome';
import { fullPrelude, type Prelude } from './prelude';
import { SETUP, checkSource } from './guest';
import { findHeapTop, quickJSLoader, takeSnapshot, type Snapshot } from './snapshot';

export { checkSource } from './guest';
export { quickJSLoader, takeSnapshot, type QuickJSWasmModuleSource } from './snapshot';

export interface SandboxOptions {
  limits: SandboxLimits;
  /** Named preludes (JS source) a job may ask to run before its program. */
  preludes?: Record<string, Prelude>;
  /** How to load the QuickJS wasm module (the browser passes its bundled wasm URL). */
  loadModule?: () => Promise<QuickJSWASMModule>;
  /** Accepted for compatibility and ignored: the state is restored before every program. */
  runtimeReuse?: number;
  /**
   * Flag the module for recycling once the wasm heap exceeds this many bytes. Only where the
   * allocator's break was not found (`findHeapTop`) does the default recycle on any growth: a
   * program's memory is then the heap's growth, which an earlier program's growth would hide.
   */
  recycleHeapBytes?: number;
}

const MAX_MESSAGE = 300;

/** QuickJS's own ticks between two polls of the interrupt handler (JS_INTERRUPT_COUNTER_INIT). */
const QUICKJS_POLL_TICKS = 10_000;
/**
 * Ticks between polls times the stack's bytes: the dearest tick is an error whose backtrace walks
 * the whole stack (~1 ns a byte here), so 100 ticks at the default 128 KiB keep an interval near
 * 12 ms. Polling every 100 ticks cost a tight loop about 4% of its speed.
 */
const TICKS_X_STACK_BYTES = 100 * (128 << 10);
function arraysEqual(a: readonly number[], b: readonly number[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** The QuickJS state every program starts from: one runtime and context and their snapshots. */
interface Prepared {
  runtime: QuickJSRuntime;
  context: QuickJSContext;
  extract: QuickJSHandle;
  describe: QuickJSHandle;
  seed: QuickJSHandle;
  finish: QuickJSHandle;
  /** By prelude name ('' for none): the snapshot, or why the prelude failed to evaluate. */
  snapshots: Map<string, Snapshot | string>;
}

export class Sandbox {
  private evaluations = 0;
  private state: Prepared | null = null;
  /** Set after a trap: the state must be rebuilt before the next program. */
  private broken = false;
  private view: Uint8Array;
  private readonly memory: WebAssembly.Memory;
  /** Read by the interrupt handler: the running program's absolute deadline and starting heap size. */
  private deadline = 0;
  private heapAtStart = 0;
  private stop: 'timeout' | 'oom' | null = null;
  /** Index (in 32-bit words of the wasm memory) of QuickJS's poll counter, when it was found; and the ticks it is set to. */
  private pollCounter: number | null = null;
  private readonly pollTicks: number;
  /** Stands in for the interrupt handler while findPollCounter probes. */
  private probe: (() => boolean) | null = null;
  /** Set when the wasm heap has grown past `recycleAbove` or the module trapped: the owner should replace this sandbox. */
  needsRecycle = false;
  /** The heap size past which the sandbox asks to be replaced (`recycleHeapBytes`). */
  private recycleAbove = Number.POSITIVE_INFINITY;
  /** Index (in 32-bit words) of the allocator's break in the static data, when it was found: a program's memory is how far it moves. */
  private heapTop: number | null = null;

  private constructor(
    private readonly module: QuickJSWASMModule,
    private readonly options: Required<Omit<SandboxOptions, 'loadModule' | 'recycleHeapBytes'>>,
  ) {
    this.memory = module.getWasmMemory();
    this.view = new Uint8Array(this.memory.buffer);
    this.pollTicks = Math.max(10, Math.min(QUICKJS_POLL_TICKS, Math.round(TICKS_X_STACK_BYTES / options.limits.stackBytes)));
  }

  /** The wasm memory as 32-bit words (a fresh view after the memory grew). */
  private words(): Int32Array {
    return new Int32Array(this.memory.buffer);
  }

  static async create(options: SandboxOptions): Promise<Sandbox> {
    const module = await (options.loadModule ?? quickJSLoader({ memoryBytes: options.limits.memoryBytes }))();
    const sandbox = new Sandbox(module, {
      limits: options.limits,
      preludes: options.preludes ?? {},
      runtimeReuse: options.runtimeReuse ?? 0,
    });
    sandbox.state = sandbox.prepare();
    // Warm the wasm code up (V8 compiles it lazily): the first real program must not pay for it
    // against its deadline (a cold first evaluation took 134 ms here, over the 100 ms default).
    // Every path a program takes: run, compile error, throw, promise jobs, each prelude.
    const warmups = ['output = [0].map(function (x) { return x + 1 })', 'output = [', 'throw new Error("x")', 'output = (async () => { await 0; return [1] })()', 'output = {}'];
    for (let i = 0; i < 3; i++) {
      for (const source of warmups) sandbox.evaluate({ source });
      for (const prelude of Object.keys(sandbox.options.preludes)) sandbox.evaluate({ source: 'output = [1, 2, 3]', prelude });
    }
    sandbox.evaluations = 0;
    sandbox.recycleAbove = options.recycleHeapBytes ?? (sandbox.heapTop === null ? sandbox.memory.buffer.byteLength : 256 << 20);
    return sandbox;
  }

  get evaluationCount(): number {
    return this.evaluations;
  }

  /** The interrupt handler, installed once: stops the program at its deadline or when the wasm heap grew too much. */
  private readonly interrupt = (): boolean => {
    if (this.probe) return this.probe();
    // QuickJS has just reset its counter to 10,000 ticks: the next poll comes after pollTicks.
    if (this.pollCounter !== null) this.words()[this.pollCounter] = this.pollTicks;
    if (Date.now() >= this.deadline) this.stop = 'timeout';
    else if (this.heapGrowth() > this.options.limits.memoryBytes) this.stop = 'oom';
    return this.stop !== null;
  };

  /** The heap's level now: the allocator's break where it was found, else the wasm memory's size (which never shrinks). */
  private heapLevel(): number {
    return this.heapTop === null ? this.memory.buffer.byteLength : this.words()[this.heapTop];
  }

  /** How much the running program has allocated from the system: how far the heap's level moved since it began. */
  private heapGrowth(): number {
    return this.heapLevel() - this.heapAtStart;
  }

  /** Builds the runtime, context and tools, evaluates each prelude and snapshots the memory after each. */
  private prepare(): Prepared {
    const { limits } = this.options;
    this.deadline = Number.POSITIVE_INFINITY;
    this.heapTop = null; // the buffer's size measures the setup
    this.heapAtStart = this.heapLevel();
    this.stop = null;
    const runtime = this.module.newRuntime();
    runtime.setMemoryLimit(limits.memoryBytes);
    runtime.setMaxStackSize(limits.stackBytes);
    runtime.setInterruptHandler(this.interrupt);
    const context = runtime.newContext({ intrinsics: { ...DefaultIntrinsics, Date: false } });
    this.pollCounter = this.findPollCounter(context);
    // Handles the host keeps across programs must exist in the snapshot.
    void context.global;
    void context.undefined;
    const tools = context.evalCode(`${SETUP}(${limits.maxOutputLength})`, 'setup.js').unwrap();
    const extract = context.getProp(tools, 0);
    const describe = context.getProp(tools, 1);
    const seed = context.getProp(tools, 2);
    const finish = context.getProp(tools, 3);
    tools.dispose();
    // Every prelude starts from the state with __takeReport; no snapshot a program starts from has it.
    const setup = takeSnapshot(this.memory);
    const hideReport = () => context.evalCode('delete globalThis.__takeReport', 'setup.js').dispose();
    const snapshots = new Map<string, Snapshot | string>();
    for (const [name, prelude] of Object.entries(this.options.preludes)) {
      this.restore(setup);
      const result = context.evalCode(fullPrelude(prelude), 'prelude.js');
      if (result.error) {
        const text = this.describeHandle(context, describe, result.error);
        result.error.dispose();
        snapshots.set(name, `prelude "${name}" failed: ${text.slice(1)}`);
        continue;
      }
      result.value.dispose();
      hideReport();
      snapshots.set(name, takeSnapshot(this.memory));
    }
    this.restore(setup);
    hideReport();
    const base = takeSnapshot(this.memory);
    snapshots.set('', base);
    this.heapTop = findHeapTop(this.memory, context, base, (snapshot) => this.restore(snapshot));
    this.restore(base);
    return { runtime, context, extract, describe, seed, finish, snapshots };
  }

  /**
   * Finds QuickJS's poll counter (JSContext.interrupt_counter) in the wasm memory, or null. While
   * the handler runs, the counter has just been reset to 10,000, and it falls as the program
   * ticks: candidates are the words of the context's struct that read 10,000 in the handler and
   * less after a few more ticks. A candidate is taken only if setting it makes QuickJS poll that
   * often: 20,000 loop iterations with the counter set to 5 poll thousands of times, not twice.
   */
  private findPollCounter(context: QuickJSContext): number | null {
    const pointer = (context as unknown as { ctx?: { value?: unknown } }).ctx?.value;
    if (typeof pointer !== 'number' || pointer % 4 !== 0) return null;
    const first = pointer >> 2;
    const span = 256; // words: JSContext is about 1 KB; the counter sits near its start
    let candidates: number[] = [];
    try {
      this.probe = () => {
        const words = this.words();
        for (let i = first; i < first + span; i++) if (words[i] === QUICKJS_POLL_TICKS) candidates.push(i);
        return true; // ends the probe
      };
      context.evalCode('for (;;) {}', 'probe.js').dispose();
      this.probe = () => false;
      context.evalCode('(function () { for (var i = 0; i < 100; i++); })()', 'probe.js').dispose();
      const words = this.words();
      candidates = candidates.filter((i) => words[i] > 0 && words[i] < QUICKJS_POLL_TICKS);
      for (const candidate of candidates) {
        let polls = 0;
        this.probe = () => {
          this.words()[candidate] = 5;
          polls++;
          return false;
        };
        context.evalCode('(function () { for (var i = 0; i < 20000; i++); })()', 'probe.js').dispose();
        if (polls > 1000) return candidate;
      }
      return null;
    } finally {
      this.probe = null;
    }
  }

  /** After a trap: the heap is put back to a consistent state, the old runtime freed, and everything built again. */
  private rebuild(): void {
    const old = this.state;
    this.state = null;
    this.broken = false;
    if (old) {
      const base = old.snapshots.get('');
      try {
        if (base && typeof base !== 'string') this.restore(base);
        for (const handle of [old.extract, old.describe, old.seed, old.finish]) handle.dispose();
        old.context.dispose();
        old.runtime.dispose();
      } catch {
        // The old state is abandoned; the module is flagged for recycling anyway.
      }
      // Zero what is dead between calls (the C stack, free heap above the old top) so that the
      // new snapshots find the live bytes again instead of the debris of the failed program.
      if (base && typeof base !== 'string') {
        if (base.gap) this.view.fill(0, base.gap[0], base.gap[1]);
        this.view.fill(0, base.top);
      }
    }
    this.state = this.prepare();
  }

  private restore(snapshot: Snapshot): void {
    if (this.view.buffer !== this.memory.buffer) this.view = new Uint8Array(this.memory.buffer);
    for (const range of snapshot.ranges) this.view.set(range.bytes, range.start);
  }

  private describeHandle(context: QuickJSContext, describe: QuickJSHandle, errorHandle: QuickJSHandle): string {
    const described = context.callFunction(describe, context.undefined, errorHandle);
    if (described.error) {
      described.error.dispose();
      return 'Vunknown error';
    }
    const text = context.typeof(described.value) === 'string' ? context.getString(described.value).slice(0, MAX_MESSAGE + 50) : 'Vunknown error';
    described.value.dispose();
    return text;
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
    if (job.prelude !== undefined && !Object.hasOwn(this.options.preludes, job.prelude)) return done('infra_error', { message: `unknown prelude "${job.prelude}"` });

    try {
      if (!this.state || this.broken) this.rebuild();
    } catch (error) {
      this.needsRecycle = true;
      return done('infra_error', { message: `sandbox failure: ${error instanceof Error ? error.message : String(error)}` });
    }
    const state = this.state!;
    const snapshot = state.snapshots.get(job.prelude ?? '');
    if (snapshot === undefined) return done('infra_error', { message: `unknown prelude "${job.prelude}"` });
    if (typeof snapshot === 'string') return done('infra_error', { message: snapshot });

    this.evaluations += 1;
    this.restore(snapshot);
    // The first interval of the program is a short one too (the snapshot holds whatever count was left).
    if (this.pollCounter !== null) this.words()[this.pollCounter] = this.pollTicks;
    this.heapAtStart = this.heapLevel();
    this.stop = null;
    this.deadline = Date.now() + limits.deadlineMs;
    try {
      let outcome = this.run(state, job);
      if (this.stop === 'oom') outcome = { kind: 'oom', message: `memory limit of ${limits.memoryBytes} bytes exceeded` };
      else if (this.stop === 'timeout' || (Date.now() >= this.deadline && ['runtime_error', 'output_invalid', 'infra_error'].includes(outcome.kind))) {
        outcome = { kind: 'timeout', message: `deadline of ${limits.deadlineMs} ms exceeded` };
      }
      return done(outcome.kind, outcome);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      // A trap inside the wasm module leaves its C stack pointer suspect: rebuild the QuickJS
      // state before the next program, and ask the owner to replace the worker.
      this.broken = true;
      this.needsRecycle = true;
      // The host stack ran out inside QuickJS (its parser recursing on deeply nested source).
      if (error instanceof RangeError && /call stack/i.test(message)) return done('stack_overflow', { message: 'stack overflow (host stack exhausted)' });
      // The wasm heap could not grow: the program exhausted memory.
      if (/memory|alloc/i.test(message)) return done('oom', { message });
      return done('infra_error', { message: `sandbox failure: ${message}` });
    } finally {
      this.deadline = Number.POSITIVE_INFINITY;
      if (this.memory.buffer.byteLength > this.recycleAbove) this.needsRecycle = true;
    }
  }

  private run(state: Prepared, job: SandboxJob): Omit<SandboxOutcome, 'elapsedMs'> {
    const { limits } = this.options;
    const { context, runtime, describe, extract } = state;
    const handles: QuickJSHandle[] = [];
    const keep = (handle: QuickJSHandle) => {
      handles.push(handle);
      return handle;
    };
    try {
      const timeout = { kind: 'timeout' as const, message: `deadline of ${limits.deadlineMs} ms exceeded` };
      const fail = (errorHandle: QuickJSHandle, phase: 'compile' | 'run'): Omit<SandboxOutcome, 'elapsedMs'> => {
        keep(errorHandle);
        const timedOut = Date.now() >= this.deadline;
        const text = this.describeHandle(context, describe, errorHandle);
        const kindTag = text[0];
        const body = text.slice(1);
        const [name, ...rest] = body.split(':');
        const message = kindTag === 'N' ? `${name}: ${rest.join(':')}` : body;
        if (kindTag === 'N' && name === 'InternalError' && /interrupted/.test(body)) return timeout;
        if (timedOut && kindTag !== 'N') return timeout;
        if (/stack overflow|too much recursion/i.test(body)) return { kind: 'stack_overflow', message };
        if (/out of memory/i.test(body)) return { kind: 'oom', message };
        if (kindTag === 'Z' && this.nearMemoryLimit(runtime)) return { kind: 'oom', message: 'out of memory' };
        if (phase === 'compile') return { kind: 'compile_error', message };
        if (timedOut && name === 'InternalError') return timeout;
        return { kind: 'runtime_error', message: kindTag === 'Z' || kindTag === 'V' ? `uncaught throw: ${body}` : message };
      };

      if (job.seed !== undefined && job.seed >>> 0 !== 0) {
        const seeded = context.callFunction(state.seed, context.undefined, keep(context.newNumber(job.seed >>> 0)));
        if (seeded.error) return { ...fail(seeded.error, 'run'), kind: 'infra_error' };
        seeded.value.dispose();
      }
      // Compile and run in one step; only when it fails, compile alone to tell syntax errors
      // apart from errors the program throws (the restore before the next program undoes the run).
      // A global script, as the compile check below (no module detection: `import` is a syntax error).
      const result = context.evalCode(job.source, 'program.js', { type: 'global' });
      if (result.error) {
        const compiled = context.evalCode(job.source, 'program.js', { type: 'global', compileOnly: true });
        if (compiled.error) {
          keep(result.error);
          return fail(compiled.error, 'compile');
        }
        compiled.value.dispose();
        return fail(result.error, 'run');
      }
      result.value.dispose();
      // Promise jobs (a loop or throw after `await`) run under the same deadline.
      const jobs = runtime.executePendingJobs();
      if (jobs.error) return fail(jobs.error, 'run');

      if (Date.now() >= this.deadline) return timeout;
      const readFailed = (errorHandle: QuickJSHandle): Omit<SandboxOutcome, 'elapsedMs'> => {
        const failure = fail(errorHandle, 'run');
        return failure.kind === 'runtime_error' ? { kind: 'output_invalid', message: `reading the output failed: ${failure.message}` } : failure;
      };
      // Arrays and non-objects in one call; objects (maybe promises) by the longer way below.
      const read = (handle: QuickJSHandle) => (context.typeof(keep(handle)) === 'string' ? context.getString(handle) : null);
      const finished = context.callFunction(state.finish, context.undefined);
      if (finished.error) return readFailed(finished.error);
      let text = read(finished.value);
      if (text === 'P') {
        let outputHandle = keep(context.getProp(context.global, 'output'));
        // An output that is a promise counts by its settled value; a rejection is the program's error.
        const promiseState = context.typeof(outputHandle) === 'object' ? context.getPromiseState(outputHandle) : null;
        if (promiseState?.type === 'rejected') return fail(promiseState.error, 'run');
        if (promiseState?.type === 'pending') return { kind: 'output_invalid', message: 'output is a promise that never settled' };
        if (promiseState?.type === 'fulfilled' && !promiseState.notAPromise) outputHandle = keep(promiseState.value);
        const extracted = context.callFunction(extract, context.undefined, outputHandle);
        if (extracted.error) return readFailed(extracted.error);
        text = read(extracted.value);
      }
      if (text === null) return { kind: 'output_invalid', message: 'output could not be serialised' };
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
    const state = this.state;
    this.state = null;
    if (!state) return;
    try {
      const base = state.snapshots.get('');
      if (base && typeof base !== 'string') this.restore(base);
      for (const handle of [state.extract, state.describe, state.seed, state.finish]) handle.dispose();
      state.context.dispose();
      state.runtime.dispose();
    } catch {
      // Nothing to recover: the module goes with this sandbox.
    }
  }
}
