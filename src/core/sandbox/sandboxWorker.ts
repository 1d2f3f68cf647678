/**
 * The body of a sandbox worker, the same for Node worker_threads and browser Web Workers:
 * it receives `init` (limits and preludes) and `run` (a chunk of jobs), evaluates each job in
 * a fresh QuickJS context, and reports each outcome as soon as it has it, so the host
 * watchdog always knows which program is running. The hosts are src/cli/sandboxHost.node.ts
 * and src/worker/sandbox.worker.ts.
 */
import type { QuickJSWASMModule } from 'quickjs-emscripten-core';
import type { SandboxReply, SandboxRequest } from './pool';
import { Sandbox, quickJSLoader } from './sandbox';

export interface WorkerPort {
  postMessage(message: SandboxReply): void;
  onMessage(listener: (message: SandboxRequest) => void): void;
}

export function serveSandbox(port: WorkerPort, wasmLocation?: string): void {
  let sandbox: Promise<Sandbox> | null = null;
  port.onMessage((message) => {
    if (message.type === 'init') {
      const loadModule: () => Promise<QuickJSWASMModule> = quickJSLoader({ memoryBytes: message.limits.memoryBytes, wasmLocation });
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
      message.jobs.forEach((job, index) => {
        port.postMessage({ type: 'outcome', chunk: message.chunk, index, outcome: box.evaluate(job) });
      });
      port.postMessage({ type: 'done', chunk: message.chunk, recycle: box.needsRecycle });
    });
  });
}
