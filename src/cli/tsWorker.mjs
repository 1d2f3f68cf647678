// Entry of every Node worker thread of the CLI and tests: loads the TypeScript module named in
// workerData.entry through tsx (Node 20 does not apply --import loader hooks to a worker's entry).
import { workerData } from 'node:worker_threads';
import { tsImport } from 'tsx/esm/api';

await tsImport(workerData.entry, import.meta.url);
