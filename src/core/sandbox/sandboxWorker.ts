/**
 * The body of a sandbox worker, the same for Node worker_threads and browser Web Workers:
 * it receives `init` (limits, preludes and the progress buffer) and `run` (a chunk of jobs),
 * evaluates each job from the sandbox's pristine state, and answers with all outcomes of the
 * chunk in one message. Before each job it writes the job's index and start time into the
 * progress buffer, so the host watchdog knows which program is running. Without a progress
 * buffer it reports each outcome as soon as it has it instead. It stops a chunk early when the
 * sandbox asks to be recycled (the host runs the rest elsewhere). The hosts are
 * src/cli/sandbox.worker.ts and src/worker/sandbox.worker.ts.
 */
import type { QuickJSWASMModule } from 'quickjs-emscripten-core';
import type { SandboxOutcome } from './outcome';
import { PROGRESS_CHUNK, PROGRESS_INDEX, PROGRESS_STARTED, type SandboxReply, type SandboxRequest } from './pool';
import { Sandbox, quickJSLoader } from './sandbox';

export interface WorkerPort {
  postMessage(message: SandboxReply): void;
  onMessage(listener: (message: SandboxRequest) => void): void;
}

export function serveSandbox(port: WorkerPort, wasmLocation?: string): void {
  let sandbox: Promise<Sandbox> | null = null;
  let progress: Int32Array | null = null;
  port.onMessage((message) => {
    if (message.type === 'init') {
      progress = message.progress ? new Int32Array(message.progress) : null;
      const loadModule: () => Promise<QuickJSWASMModule> = quickJSLoader({ memoryBytes: message.limits.memoryBytes, wasmLocation, wasmModule: message.wasmModule });
      sandbox = Sandbox.create({ limits: message.limits, preludes: message.preludes, loadModule });
      sandbox.then(
        () => port.postMessage({ type: 'ready' }),
        (error: unknown) => port.postMessage({ type: 'fatal', message: `QuickJS failed to load: ${String(error)}` }),
      );
      return;
    }
    if (!sandbox) {
      port.postMessage({ type: 'fatal', message: 'run before init' });
      return;
    }
    void sandbox.then((box) => {
      const { chunk, epoch, jobs } = message;
      const outcomes: SandboxOutcome[] = [];
      for (let index = 0; index < jobs.length && !box.needsRecycle; index++) {
        if (progress) {
          Atomics.store(progress, PROGRESS_STARTED, Date.now() - epoch);
          Atomics.store(progress, PROGRESS_INDEX, index);
          Atomics.store(progress, PROGRESS_CHUNK, chunk);
        }
        const outcome = box.evaluate(jobs[index]);
        if (progress) outcomes.push(outcome);
        else port.postMessage({ type: 'outcome', chunk, index, outcome });
      }
      if (progress) {
        Atomics.store(progress, PROGRESS_STARTED, Date.now() - epoch);
        Atomics.store(progress, PROGRESS_INDEX, jobs.length); // nothing running: the reply is on its way
        port.postMessage({ type: 'done', chunk, recycle: box.needsRecycle, outcomes });
      } else {
        port.postMessage({ type: 'done', chunk, recycle: box.needsRecycle });
      }
    });
  });
}
