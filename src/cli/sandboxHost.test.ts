import { afterAll, describe, expect, it } from 'vitest';
import { kolmogorovPreludeModules } from '../core/kolmogorov/prelude';
import type { SandboxJob, SandboxLimits } from '../core/sandbox/outcome';
import { Sandbox } from '../core/sandbox/sandbox';
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

  it('terminates a worker stuck in a builtin that ignores the interrupt, and training goes on', async () => {
    const jobs: SandboxJob[] = [good(1), { source: 'Array.prototype.indexOf.call({ length: 2 ** 32 - 1 }, 1); output = [1]' }, good(2), good(3), good(4), good(5)];
    const before = pool.stats();
    const outcomes = await pool.evaluateBatch(jobs);
    expect(outcomes.map((o) => o.kind)).toEqual(['ok', 'timeout', 'ok', 'ok', 'ok', 'ok']);
    expect(outcomes[1].message).toMatch(/watchdog/);
    expect(pool.stats().watchdogKills).toBe(before.watchdogKills + 1);
    expect(pool.stats().respawns).toBeGreaterThan(before.respawns);
  });

  it('turns a memory bomb into oom and keeps evaluating correctly', async () => {
    const outcomes = await pool.evaluateBatch([{ source: "a = []; for (;;) a.push('x'.repeat(1 << 20))" }, good(7), good(8)]);
    expect(outcomes.map((o) => o.kind)).toEqual(['oom', 'ok', 'ok']);
  });

  it('counts a worker that dies as infra_error, apart from program failures, and respawns it', async () => {
    let spawned = 0;
    const { SandboxPool } = await import('../core/sandbox/pool');
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
});
