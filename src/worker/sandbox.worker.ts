/// <reference lib="webworker" />
/** Browser entry of a sandbox worker (see src/core/sandbox/sandboxWorker.ts). */
import quickjsWasm from '@jitl/quickjs-wasmfile-release-sync/wasm?url';
import type { SandboxRequest } from '../core/sandbox/pool';
import { serveSandbox } from '../core/sandbox/sandboxWorker';

serveSandbox(
  {
    postMessage: (message) => self.postMessage(message),
    onMessage: (listener) => self.addEventListener('message', (event: MessageEvent<SandboxRequest>) => listener(event.data)),
  },
  quickjsWasm,
);
