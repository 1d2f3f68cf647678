/**
 * Every task and every algorithm of the lab, by name: the one place that lists them
 * (Gymnasium's `register(id, ...)` / `make(id)`). Generic code (the loop's callers, the worker,
 * the page, the CLI, export) looks a task or an algorithm up here and imports no task folder or
 * algorithm file itself. A task or an algorithm defined elsewhere (a test's toy) joins with
 * `registerTask` / `registerAlgorithm`, using the config's existing fields.
 *
 * The config's schema is assembled here from the shared sections (configSections.ts) and each
 * task's and algorithm's own fields, so that each field is declared once, by its owner, and the
 * owner decides where it applies (config.ts: `fieldApplies`).
 */
import { z } from 'zod';
import type { AlgorithmDefinition } from './algorithm';
import { dpo, dpoFields } from './algorithms/dpo';
import { dqn, dqnFields } from './algorithms/dqn';
import { expertIteration, expertIterationFields } from './algorithms/expertIteration';
import { grpo, grpoFields } from './algorithms/grpo';
import { reinforce, reinforceFields } from './algorithms/reinforce';
import { rloo } from './algorithms/rloo';
import { reinforceMonarch } from './algorithms/tokenMeanReinforce';
import { algorithmCommonFields, algorithmSharedFields, modelFields, runFields, sandboxFields, taskCommonFields } from './configSections';
import { digitsFields } from './digits/config';
import { reverseDigits, sumDigits } from './digits/definition';
import { functionsFields } from './functions/config';
import { functions } from './functions/definition';
import { kolmogorovFields } from './kolmogorov/config';
import { kolmogorov } from './kolmogorov/definition';
import type { TaskDefinition } from './task';

const tasks = new Map<string, TaskDefinition>([kolmogorov, functions, sumDigits, reverseDigits].map((task) => [task.name, task as TaskDefinition]));
const algorithms = new Map<string, AlgorithmDefinition>(
  [reinforce, reinforceMonarch, grpo, rloo, dpo, dqn, expertIteration].map((algorithm) => [algorithm.name, algorithm as AlgorithmDefinition]),
);

/** The whole config: every section, with every task's and algorithm's own fields. */
export const sectionSchemas = {
  task: z.object({ ...taskCommonFields, ...kolmogorovFields.task }),
  model: z.object(modelFields),
  algorithm: z.object({
    ...algorithmCommonFields,
    ...algorithmSharedFields,
    ...kolmogorovFields.algorithm,
    ...reinforceFields,
    ...grpoFields,
    ...dpoFields,
    ...dqnFields,
    ...expertIterationFields,
  }),
  sandbox: z.object(sandboxFields),
  run: z.object(runFields),
  digits: z.object(digitsFields),
  functions: z.object(functionsFields),
};

export const configSchema = z.object({
  task: sectionSchemas.task.prefault({}),
  model: sectionSchemas.model.prefault({}),
  algorithm: sectionSchemas.algorithm.prefault({}),
  sandbox: sectionSchemas.sandbox.prefault({}),
  run: sectionSchemas.run.prefault({}),
  digits: sectionSchemas.digits.prefault({}),
  functions: sectionSchemas.functions.prefault({}),
});

export type LabConfig = z.infer<typeof configSchema>;
export type SectionName = keyof LabConfig;

function lookup<T>(kind: string, table: Map<string, T>, name: string): T {
  const found = table.get(name);
  if (!found) throw new Error(`unknown ${kind} "${name}" (known: ${[...table.keys()].join(', ')})`);
  return found;
}

export const taskDefinition = (name: string): TaskDefinition => lookup('task', tasks, name);
export const algorithmDefinition = (name: string): AlgorithmDefinition => lookup('algorithm', algorithms, name);
export const taskNames = (): string[] => [...tasks.keys()];
export const algorithmNames = (): string[] => [...algorithms.keys()];
export const allTasks = (): TaskDefinition[] => [...tasks.values()];

/** The task that reads files whose first bytes (as text) look like `head`, other than `except`: what a file holds, by its look. */
export function taskOfFileHead(head: string, except?: string): TaskDefinition | undefined {
  return allTasks().find((task) => task.name !== except && task.data.kind === 'file' && task.data.sniff(head));
}
export const allAlgorithms = (): AlgorithmDefinition[] => [...algorithms.values()];

/** Adds a definition made outside registry.ts; returns what takes it out again (tests clean up after themselves). */
function register<T extends { name: string; fields?: unknown }>(kind: string, table: Map<string, T>, definition: T): () => void {
  if (table.has(definition.name)) throw new Error(`a ${kind} named "${definition.name}" is already registered`);
  if (definition.fields && Object.keys(definition.fields).length) {
    throw new Error(`${kind} "${definition.name}": a ${kind} registered at run time uses the config's existing fields (its own fields join the schema in registry.ts)`);
  }
  table.set(definition.name, definition);
  owners = null;
  return () => {
    table.delete(definition.name);
    owners = null;
  };
}

/** Adds a task defined elsewhere (a test's toy task); it may use the config's existing fields only. */
export const registerTask = (definition: TaskDefinition): (() => void) => register('task', tasks, definition);
export const registerAlgorithm = (definition: AlgorithmDefinition): (() => void) => register('algorithm', algorithms, definition);

type Owners = Map<string, { tasks?: string[]; algorithms?: string[] }>;
/** Made once per state of the registry (a registration clears it). */
let owners: Owners | null = null;

/** The task and algorithm that own each field (`section.key`), when one does; the rest are shared by all. */
export function fieldOwners(): Owners {
  owners ??= ownersNow();
  return owners;
}

function ownersNow(): Owners {
  const owners: Owners = new Map();
  const add = (path: string, kind: 'tasks' | 'algorithms', name: string) => {
    const entry = owners.get(path) ?? {};
    entry[kind] = [...(entry[kind] ?? []), name];
    owners.set(path, entry);
  };
  for (const task of tasks.values()) {
    const { fields } = task;
    for (const section of ['task', 'model', 'algorithm'] as const) for (const key of Object.keys(fields?.[section] ?? {})) add(`${section}.${key}`, 'tasks', task.name);
    if (fields?.section) for (const key of Object.keys(fields.section.shape)) add(`${fields.section.name}.${key}`, 'tasks', task.name);
    if (!task.sandboxed) continue;
    for (const key of Object.keys(sandboxFields)) add(`sandbox.${key}`, 'tasks', task.name);
  }
  for (const algorithm of algorithms.values()) {
    for (const key of [...Object.keys(algorithm.fields ?? {}), ...(algorithm.reads ?? [])]) add(`algorithm.${key}`, 'algorithms', algorithm.name);
  }
  // A shared option no algorithm reads still belongs to none (never shown).
  for (const key of Object.keys(algorithmSharedFields)) if (!owners.has(`algorithm.${key}`)) owners.set(`algorithm.${key}`, { algorithms: [] });
  return owners;
}
