import { afterAll, describe, expect, it } from 'vitest';
import { kolmogorovPreludeModules } from '../core/kolmogorov/prelude';
import type { SandboxJob, SandboxLimits, SandboxOutcome } from '../core/sandbox/outcome';
import { Sandbox } from '../core/sandbox/sandbox';
import { SandboxPool, type SandboxReply } from '../core/sandbox/pool';
import { createNodeSandboxPool } from './sandboxHost';

const limits: SandboxLimits = { deadlineMs: 100, watchdogMs: 1500, memoryBytes: 32 << 20, stackBytes: 128 << 10, maxSourceBytes: 64 << 10, maxOutputLength: 4096 };
const preludes = { kolmogorov: kolmogorovPreludeModules };
const pool = createNodeSandboxPool({ size: 2, limits, preludes, chunkSize: 4 });
afterAll(() => pool.close());

const good = (n: number): SandboxJob => ({ source: `sequence_1 = range_func_up(${n}, ${n + 3})\noutput = sequence_1`, prelude: 'kolmogorov', expected: [n, n + 1, n + 2, n + 3] });

describe('sandbox pool over worker_threads', () => {
  it('returns outcomes in input order, identical to one-by-one evaluation', async () => {
    const jobs: SandboxJob[] = [good(1), { source: 'output = [' }, good(2), { source: 'throw null' }, good(3), { source: 'output = [1]', expected: [2] }, good(4)];
    const batched = await pool.evaluateBatch(jobs);
    const single = await Sandbox.create({ limits, preludes });
    const oneByOne = jobs.map((job) => single.evaluate(job));
    single.dispose();
    expect(batched.map((o) => [o.kind, o.output])).toEqual(oneByOne.map((o) => [o.kind, o.output]));
  });

  it('gives the same outcomes batched (chunks of 64, one message each) as one by one, for generated and hostile programs', async () => {
    const { generateDataset } = await import('../core/kolmogorov/generator');
    const generated = generateDataset(60, 11).map((e): SandboxJob => ({ source: e.program, expected: e.sequence, prelude: 'kolmogorov', seed: 3 }));
    const hostile: SandboxJob[] = [
      { source: 'Object.prototype.p = 1; Math.random = () => 0; globalThis.leak = 1; output = [1]' },
      { source: 'output = [typeof leak === "undefined" ? 0 : 1, ({}).p === undefined ? 0 : 1, Math.random() === 0 ? 1 : 0]' },
      { source: 'while (1) {}' },
      { source: "a = []; for (;;) a.push('x'.repeat(1 << 20))" },
      { source: 'function f() { f() } f()' },
      { source: 'output = [Math.floor(Math.random() * 1e6)]', seed: 9 },
      { source: 'output = (async () => { await 0; throw new Error("late") })()' },
      { source: 'output = [1]; Object.defineProperty(output, 0, { get() { return 1 } })' },
      { source: '' },
    ];
    const jobs = generated.flatMap((job, i) => (i % 7 === 0 ? [job, hostile[(i / 7) % hostile.length]] : [job]));
    const big = createNodeSandboxPool({ size: 2, limits, preludes, chunkSize: 64 });
    const batched = await big.evaluateBatch(jobs);
    await big.close();
    const single = await Sandbox.create({ limits, preludes });
    const oneByOne = jobs.map((job) => single.evaluate(job));
    single.dispose();
    const view = (o: { kind: string; output?: number[]; message?: string }) => [o.kind, o.output, o.message];
    expect(batched.map(view)).toEqual(oneByOne.map(view));
    expect(batched.filter((o) => o.kind === 'ok').length).toBeGreaterThanOrEqual(generated.length);
  });

  it('keeps programs of one chunk apart: pollution by one is invisible to the next in the same message', async () => {
    const probe: SandboxJob = { source: 'output = [typeof leak === "undefined" ? 0 : 1, ({}).p === undefined ? 0 : 1, [].map === undefined ? 1 : 0, Math.random() === 0 ? 1 : 0, typeof range_func_up === "function" ? 0 : 1]', prelude: 'kolmogorov' };
    const polluters: SandboxJob[] = [
      { source: 'globalThis.leak = 1; Object.prototype.p = 1; Array.prototype.map = undefined; Math.random = () => 0; range_func_up = 1; output = [1]', prelude: 'kolmogorov' },
      { source: 'Object.prototype.p = 1; throw new Error("after polluting")', prelude: 'kolmogorov' },
      { source: 'Object.prototype.p = 1; while (1) {}', prelude: 'kolmogorov' },
      { source: '(async () => { await 0; while (1) {} })(); Promise.resolve().then(() => { Object.prototype.p = 1 }); output = [1]', prelude: 'kolmogorov' },
    ];
    const one = createNodeSandboxPool({ size: 1, limits, preludes, chunkSize: 64 });
    const outcomes = await one.evaluateBatch(polluters.flatMap((polluter) => [polluter, probe]));
    await one.close();
    const probes = outcomes.filter((_, i) => i % 2 === 1);
    expect(probes.map((o) => o.output)).toEqual(polluters.map(() => [0, 0, 0, 0, 0]));
  });

  for (const sharedProgress of [true, false]) {
    it(`kills only the stuck program in the middle of a chunk; the rest of the chunk gets its own results (${sharedProgress ? 'progress in a SharedArrayBuffer' : 'one message per outcome'})`, async () => {
      const one = createNodeSandboxPool({ size: 1, limits, preludes, chunkSize: 64, sharedProgress });
      const stuck: SandboxJob = { source: 'Array.prototype.indexOf.call({ length: 2 ** 32 - 1 }, 1); output = [1]' };
      const jobs = [good(1), good(2), { source: 'output = [1]', expected: [2] }, stuck, good(3), { source: 'throw null' }, good(4)];
      const outcomes = await one.evaluateBatch(jobs);
      expect(outcomes.map((o) => o.kind)).toEqual(['ok', 'ok', 'wrong', 'timeout', 'ok', 'runtime_error', 'ok']);
      expect(outcomes[3].message).toMatch(/watchdog/);
      expect(outcomes.map((o) => o.output)).toEqual([[1, 2, 3, 4], [2, 3, 4, 5], [1], undefined, [3, 4, 5, 6], undefined, [4, 5, 6, 7]]);
      expect(one.stats()).toMatchObject({ watchdogKills: 1, infraErrors: 0 });
      await one.close();
    });
  }

  it('terminates a worker stuck in a builtin that ignores the interrupt, and training goes on', async () => {
    const jobs: SandboxJob[] = [good(1), { source: 'Array.prototype.indexOf.call({ length: 2 ** 32 - 1 }, 1); output = [1]' }, good(2), good(3), good(4), good(5)];
    const before = pool.stats();
    const outcomes = await pool.evaluateBatch(jobs);
    expect(outcomes.map((o) => o.kind)).toEqual(['ok', 'timeout', 'ok', 'ok', 'ok', 'ok']);
    expect(outcomes[1].message).toMatch(/watchdog/);
    expect(pool.stats().watchdogKills).toBe(before.watchdogKills + 1);
    expect(pool.stats().respawns).toBeGreaterThan(before.respawns);
  });

  it('the other builtins that ignore the interrupt (a giant array join, a huge BigInt power, a catastrophic regex) end as timeouts, and the next program runs right', async () => {
    const hostile = ["x = new Array(1e9) + ''; output = [1]", 'x = 7n ** 10000000n; output = [1]', "x = /^(a+)+$/.test('a'.repeat(40) + 'b'); output = [1]"];
    const outcomes = await pool.evaluateBatch([...hostile.map((source) => ({ source })), good(9)]);
    expect(outcomes.map((o) => o.kind)).toEqual(['timeout', 'timeout', 'timeout', 'ok']);
  });

  it('recursion that catches its own stack overflow stops at the deadline in the sandbox: a batch of them costs about the deadline each, no watchdog kill (issue 29)', async () => {
    const catching = [
      'function r(n) { try { return r(n + 1) } catch (e) { return r(n + 1) } } r(0)',
      // Cheap work first, then the storm: the poll interval must not have grown in between.
      'for (var i = 0; i < 1e6; i++); function r(n) { try { return r(n + 1) } catch (e) { return r(n + 1) } } r(0)',
      'function r(n) { try { r(n + 1) } catch (e) {} try { r(n + 1) } catch (e) {} } r(0); output = [1]',
      '(async () => { await 0; function r(n) { try { return r(n + 1) } catch (e) { return r(n + 1) } } r(0) })(); output = [1]',
    ];
    await pool.evaluateBatch([good(1), good(2), good(3), good(4)]); // both workers up: their start is not timed
    const before = pool.stats();
    const started = performance.now();
    const outcomes = await pool.evaluateBatch([...catching.map((source) => ({ source })), good(11)]);
    const elapsed = performance.now() - started;
    expect(outcomes.map((o) => o.kind)).toEqual(['timeout', 'timeout', 'timeout', 'timeout', 'ok']);
    for (const outcome of outcomes.slice(0, 4)) {
      expect(outcome.message).toMatch(/deadline of 100 ms/); // the sandbox's own deadline, not the watchdog
      // The deadline plus one short poll interval; the slack is for a loaded machine (the whole
      // suite at once on two cores measured 187 ms). Before the fix each ran 1.2 s or more.
      expect(outcome.elapsedMs).toBeLessThan(limits.deadlineMs + 150);
    }
    expect(pool.stats().watchdogKills).toBe(before.watchdogKills);
    // Two workers, four such programs: about two deadlines of wall time, far below one watchdog kill (1.5 s).
    expect(elapsed).toBeLessThan(4 * (limits.deadlineMs + 150));
  });

  it('a memory bomb inside a promise job ends, and the next program runs right', async () => {
    const outcomes = await pool.evaluateBatch([{ source: 'output = (async () => { await 0; const a = []; for (;;) a.push("x".repeat(1 << 20)); })()' }, good(10)]);
    expect(['oom', 'timeout']).toContain(outcomes[0].kind);
    expect(outcomes[1].kind).toBe('ok');
  });

  it('an output that is a Proxy is refused even when its traps behave', async () => {
    const outcomes = await pool.evaluateBatch([
      { source: 'output = new Proxy([1, 2, 3], {})', expected: [1, 2, 3] },
      { source: 'output = Proxy.revocable([1], {}).proxy', expected: [1] },
      { source: 'output = [1, 2, 3]', expected: [1, 2, 3] },
    ]);
    expect(outcomes.map((o) => o.kind)).toEqual(['output_invalid', 'output_invalid', 'ok']);
    expect(outcomes[0].message).toBe('output is a Proxy');
  });

  it('turns a memory bomb into oom and keeps evaluating correctly', async () => {
    const outcomes = await pool.evaluateBatch([{ source: 'a = []; for (;;) a.push(new ArrayBuffer(1 << 20))' }, good(7), { source: "a = []; for (;;) a.push('x'.repeat(1 << 20))" }, good(8)]);
    expect(outcomes.map((o) => o.kind)).toEqual(['oom', 'ok', expect.stringMatching(/^(oom|timeout)$/), 'ok']);
  });

  it('judges a program\'s memory the same after a bomb grew a worker\'s heap', async () => {
    // 45 MB of 1 MB buffers, past the 32 MB limit: oom on a fresh heap, and on the heap a bomb left (which never shrinks).
    const heavy = { source: 'var a = []; for (var i = 0; i < 45; i++) { a.push(new ArrayBuffer(1 << 20)); for (var j = 0; j < 2000; j++); } output = [a.length]' };
    const bomb = { source: 'a = []; for (;;) a.push(new ArrayBuffer(1 << 20))' };
    expect((await pool.evaluateBatch([heavy])).map((o) => o.kind)).toEqual(['oom']);
    expect((await pool.evaluateBatch([bomb, heavy, good(7)])).map((o) => o.kind)).toEqual(['oom', 'oom', 'ok']);
  });

  it('counts a worker that dies as infra_error, apart from program failures, and respawns it', async () => {
    let spawned = 0;
    // A worker whose host dies on the second job: the pool must report infra_error for it only.
    const dying = new SandboxPool({
      size: 1,
      limits,
      spawn: () => {
        spawned += 1;
        let onMessage: (m: any) => void = () => {};
        let onError: (m: string) => void = () => {};
        let alive = true;
        return {
          postMessage: (message) => {
            if (!alive) return;
            if (message.type === 'init') queueMicrotask(() => onMessage({ type: 'ready' }));
            else
              queueMicrotask(() => {
                message.jobs.forEach((job, index) => {
                  if (!alive) return;
                  if (job.source === 'die') {
                    alive = false;
                    onError('exited with code 1');
                    return;
                  }
                  onMessage({ type: 'outcome', chunk: message.chunk, index, outcome: { kind: 'ok', output: [1], elapsedMs: 0 } });
                });
                if (alive) onMessage({ type: 'done', chunk: message.chunk, recycle: false });
              });
          },
          onMessage: (listener) => (onMessage = listener),
          onError: (listener) => (onError = listener),
          terminate: () => (alive = false),
        };
      },
    });
    const outcomes = await dying.evaluateBatch([{ source: 'a' }, { source: 'die' }, { source: 'b' }]);
    expect(outcomes.map((o) => o.kind)).toEqual(['ok', 'infra_error', 'ok']);
    expect(dying.stats().infraErrors).toBe(1);
    expect(spawned).toBe(2);
    await dying.close();
  });

  it('with the progress buffer, a worker that dies mid-chunk gives infra_error to the job it was running only; finished but unsent jobs run again', async () => {
    const { PROGRESS_CHUNK, PROGRESS_INDEX, PROGRESS_STARTED } = await import('../core/sandbox/pool');
    let spawned = 0;
    const ran: string[] = [];
    const dying = new SandboxPool({
      size: 1,
      limits,
      chunkSize: 64,
      spawn: () => {
        spawned += 1;
        let onMessage: (m: SandboxReply) => void = () => {};
        let onError: (m: string) => void = () => {};
        let progress: Int32Array | null = null;
        return {
          postMessage: (message) => {
            if (message.type === 'init') {
              progress = new Int32Array(message.progress!);
              queueMicrotask(() => onMessage({ type: 'ready' }));
              return;
            }
            queueMicrotask(() => {
              const outcomes: SandboxOutcome[] = [];
              for (const [index, job] of message.jobs.entries()) {
                Atomics.store(progress!, PROGRESS_STARTED, 0);
                Atomics.store(progress!, PROGRESS_INDEX, index);
                Atomics.store(progress!, PROGRESS_CHUNK, message.chunk);
                ran.push(job.source);
                // Dies once, the first time it meets 'die'; its replacement gets past it.
                if (job.source === 'die' && spawned === 1) return onError('exited with code 1');
                outcomes.push({ kind: 'ok', output: [index], elapsedMs: 0 });
              }
              onMessage({ type: 'done', chunk: message.chunk, recycle: false, outcomes });
            });
          },
          onMessage: (listener) => (onMessage = listener),
          onError: (listener) => (onError = listener),
          terminate: () => {},
        };
      },
    });
    const outcomes = await dying.evaluateBatch([{ source: 'a' }, { source: 'b' }, { source: 'die' }, { source: 'c' }]);
    expect(outcomes.map((o) => o.kind)).toEqual(['ok', 'ok', 'infra_error', 'ok']);
    expect(ran).toEqual(['a', 'b', 'die', 'a', 'b', 'c']);
    expect(dying.stats()).toMatchObject({ infraErrors: 1, respawns: 1 });
    await dying.close();
  });
});
