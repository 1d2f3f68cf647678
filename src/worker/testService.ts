/**
 * The page's trainer service as tests run it in Node: the wasm backend, the Node sandbox pool,
 * its own IndexedDB (fake-indexeddb, imported by the test), and the events it sends collected.
 */
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { createNodeSandboxPool } from '../cli/sandboxHost';
import type { TrainerEvent } from './protocol';
import { createTrainerService } from './trainerService';

/** A service on database `db`, initialised (saving as `autosave` says), with the events it sent so far. */
export async function serviceInNode(db: string, { autosave }: { autosave: boolean }) {
  const api = createTrainerService({
    initBackend: async () => {
      await tf.setBackend('wasm');
      return { backend: 'wasm', skipped: [] };
    },
    createPool: createNodeSandboxPool,
    transfer: (bytes) => bytes,
  }, { dbName: db });
  const events: TrainerEvent[] = [];
  await api.init((batch) => void events.push(...batch), { autosave });
  return { api, events };
}
