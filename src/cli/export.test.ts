/**
 * Export to the Python stack: the folder a PyTorch user loads, the round trip lab ->
 * safetensors -> lab, the logits of modeling_prl.py against the lab's (Debian's python3-torch,
 * which .ci/run installs), weights PyTorch wrote back as a warm start, and rollouts and pairs in
 * TRL's formats.
 */
import * as tf from '@tensorflow/tfjs';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { decodeCheckpoint } from '../core/checkpoint';
import { configFromSearchParams } from '../core/config';
import { generateDataset } from '../core/kolmogorov/generator';
import { createKolmogorovRunner as createRunner } from '../core/kolmogorov/runner';
import { decodeSafetensors } from '../core/safetensors';
import { nextTokenLogits } from './export';
import { policyConfigOf } from '../core/export';
import { preferencePairs, problemPrompt, type Rollout } from './rollouts';
import { loadProblemsFile } from './data';
import { createNodeSandboxPool } from './sandboxHost';
import { taskPreludes } from '../core/runner';

const tsx = ['--import', 'tsx'];
/** Debian's python3, where python3-torch installs (the PATH's python3 may be another). */
const python = '/usr/bin/python3';

beforeAll(async () => {
  await tf.setBackend('cpu');
});

/** A small trained-looking checkpoint: a tiny Kolmogorov run after one step, the inputs of the policy shipped before 2026-11-28 on (or others: `more`). */
async function tinyCheckpoint(more = '&second-previous=false&run-lengths=false&stride-two=false&copy-pointer=false'): Promise<Uint8Array> {
  const config = configFromSearchParams(`layers=1&d-model=16&heads=2&context=96&max-program-tokens=40&max-sequence-length=32&batch-size=4&workers=1&value-deltas=true${more}`);
  const pool = createNodeSandboxPool({ size: 1, limits: { deadlineMs: 100, watchdogMs: 1000, memoryBytes: 32 << 20, stackBytes: 128 << 10, maxSourceBytes: 1 << 16, maxOutputLength: 4096 }, preludes: taskPreludes() });
  const runner = await createRunner(config, { train: generateDataset(1, 8), heldout: [] }, { pool });
  try {
    await runner.step();
    return await runner.saveCheckpoint();
  } finally {
    runner.dispose();
    await pool.close();
  }
}

describe('export to the Python stack', () => {
  let dir: string;
  let checkpoint: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'prl-export-'));
    checkpoint = join(dir, 'run.prl');
    writeFileSync(checkpoint, await tinyCheckpoint());
  });

  it('writes model.safetensors with every weight bit for bit, config.json, vocab.json and modeling_prl.py', async () => {
    const out = join(dir, 'exported');
    const done = spawnSync(process.execPath, [...tsx, 'src/cli/export.ts', '--checkpoint', checkpoint, '--out', out], { encoding: 'utf8' });
    expect(done.status, done.stderr).toBe(0);
    const { meta, tensors } = await decodeCheckpoint(new Uint8Array(readFileSync(checkpoint)));
    const exported = decodeSafetensors(new Uint8Array(readFileSync(join(out, 'model.safetensors'))));
    const weights = tensors.filter((t) => t.group === 'weights');
    expect(exported.tensors.map((t) => t.name)).toEqual(weights.map((t) => t.name));
    exported.tensors.forEach((t, i) => {
      expect(t.shape).toEqual(weights[i].shape);
      expect(new Uint32Array(t.data.buffer)).toEqual(new Uint32Array((weights[i].data as Float32Array).buffer));
    });
    expect(exported.metadata).toMatchObject({ task: 'kolmogorov', step: '1' });
    const config = JSON.parse(readFileSync(join(out, 'config.json'), 'utf8'));
    expect(config.policy).toEqual(policyConfigOf(meta.config));
    expect(config.lab).toEqual(meta.config);
    const vocab = JSON.parse(readFileSync(join(out, 'vocab.json'), 'utf8')) as { id: number; text: string }[];
    expect(vocab).toHaveLength(config.policy.vocabSize);
    expect(vocab.slice(0, 2)).toEqual([{ id: 0, text: '<pad>' }, { id: 1, text: '<bos>' }]);
    expect(readFileSync(join(out, 'modeling_prl.py'), 'utf8')).toContain('class ProgramPolicy');
  });

  it('refuses ids outside the vocabulary, naming the id', () => {
    const done = spawnSync(process.execPath, [...tsx, 'src/cli/export.ts', '--checkpoint', checkpoint, '--ids', '1,99999'], { encoding: 'utf8' });
    expect(done.status).toBe(1);
    expect(done.stderr).toMatch(/--ids: "99999" is not a token id of this vocabulary/);
  });

  it('modeling_prl.py (PyTorch) gives the lab\'s next-token logits to 1e-4, and weights it saves start a lab run that gives them too', async () => {
    const out = join(dir, 'exported');
    const probe = spawnSync(python, ['-c', 'import torch'], { encoding: 'utf8' });
    expect(probe.status, `Debian's python3-torch is needed (apt-get install python3-torch): ${probe.stderr}`).toBe(0);
    const ids = '1,40,41,42,43,44,2,20,21';
    const torchLogits = () => {
      const ran = spawnSync(python, [join(out, 'modeling_prl.py'), out, '--ids', ids], { encoding: 'utf8' });
      expect(ran.status, ran.stderr).toBe(0);
      return JSON.parse(ran.stdout) as number[];
    };
    const lab = spawnSync(process.execPath, [...tsx, 'src/cli/export.ts', '--checkpoint', checkpoint, '--ids', ids], { encoding: 'utf8' });
    expect(lab.status, lab.stderr).toBe(0);
    expect(lab.stderr, 'tfjs\'s advice to install tfjs-node').not.toMatch(/tfjs-node/);
    const labLogits = JSON.parse(lab.stdout) as number[];
    const fromTorch = torchLogits();
    expect(fromTorch).toHaveLength(labLogits.length);
    const gap = Math.max(...fromTorch.map((value, i) => Math.abs(value - labLogits[i])));
    expect(gap).toBeLessThan(1e-4);

    // PyTorch changes the weights and saves its state_dict; the lab reads that file as a warm start.
    const saved = join(dir, 'from-torch.safetensors');
    const script = `import sys, torch; sys.path.insert(0, ${JSON.stringify(out)}); import modeling_prl as m
model = m.load(${JSON.stringify(out)})
with torch.no_grad():
    model.head.b.add_(0.25)
m.save(model, ${JSON.stringify(saved)})
print(__import__('json').dumps(model(torch.tensor([[${ids}]]))[0, -1].tolist()))`;
    const edited = spawnSync(python, ['-c', script], { encoding: 'utf8' });
    expect(edited.status, edited.stderr).toBe(0);
    const torchEdited = JSON.parse(edited.stdout) as number[];
    const { meta } = await decodeCheckpoint(new Uint8Array(readFileSync(checkpoint)));
    const weights = decodeSafetensors(new Uint8Array(readFileSync(saved))).tensors;
    const labEdited = nextTokenLogits(policyConfigOf(meta.config), weights, ids.split(',').map(Number));
    expect(Math.max(...torchEdited.map((value, i) => Math.abs(value - labEdited[i])))).toBeLessThan(1e-4);
    expect(Math.abs(labEdited[0] - labLogits[0] - 0.25)).toBeLessThan(1e-4);

    // And `train --init-from` takes the file as its warm start.
    const run = join(dir, 'run-from-torch');
    const flags = ['--layers', '1', '--d-model', '16', '--heads', '2', '--context', '96', '--max-program-tokens', '40', '--max-sequence-length', '32', '--batch-size', '4', '--workers', '1', '--value-deltas', '--second-previous', 'false', '--run-lengths', 'false', '--stride-two', 'false', '--copy-pointer', 'false', '--max-steps', '1', '--eval-samples', '2', '--checkpoint-freq', '0'];
    const trained = spawnSync(process.execPath, [...tsx, 'src/cli/train.ts', ...flags, '--init-from', saved, '--output-dir', run], { encoding: 'utf8' });
    expect(trained.status, trained.stderr).toBe(0);
    expect(trained.stderr).toContain(`policy initialised from ${saved}`);
  }, 120_000);

  it.each([
    ['', 'second'],
    ['&copy-resume=true', 'resumed'],
  ])('modeling_prl.py gives the lab\'s logits for a policy that embeds the token two back, runs at strides 1 and 2 and the copy pointer (secondPrevious, runLengths, strideTwo, copyPointer%s: codes moved)', async (resume, name) => {
    const second = join(dir, `${name}.prl`);
    writeFileSync(second, await tinyCheckpoint(`&second-previous=true&run-lengths=true&stride-two=true&copy-pointer=true${resume}`));
    const out = join(dir, `exported-${name}`);
    const done = spawnSync(process.execPath, [...tsx, 'src/cli/export.ts', '--checkpoint', second, '--out', out], { encoding: 'utf8' });
    expect(done.status, done.stderr).toBe(0);
    // Repeated values, so that the token two back is a number whose moved code counts, runs of two and three, and an interleave;
    // after the prompt's end (2), a copy whose matches tie and then part, broken by a token that is not a number (3).
    const ids = '1,40,41,40,42,40,40,40,43,40,44,2,40,41,40,42,3,40,44';
    const lab = spawnSync(process.execPath, [...tsx, 'src/cli/export.ts', '--checkpoint', second, '--ids', ids], { encoding: 'utf8' });
    expect(lab.status, lab.stderr).toBe(0);
    const ran = spawnSync(python, [join(out, 'modeling_prl.py'), out, '--ids', ids], { encoding: 'utf8' });
    expect(ran.status, ran.stderr).toBe(0);
    const [labLogits, torchLogits] = [lab.stdout, ran.stdout].map((text) => JSON.parse(text) as number[]);
    expect(Math.max(...torchLogits.map((value, i) => Math.abs(value - labLogits[i])))).toBeLessThan(1e-4);
  }, 120_000);

  it('--init-from a safetensors file of another shape is refused with the tensor named', () => {
    const run = join(dir, 'run-wrong');
    const saved = join(dir, 'exported', 'model.safetensors');
    expect(existsSync(saved)).toBe(true);
    const flags = ['--layers', '1', '--d-model', '32', '--heads', '2', '--context', '96', '--max-sequence-length', '32', '--batch-size', '4', '--workers', '1', '--max-steps', '1'];
    const trained = spawnSync(process.execPath, [...tsx, 'src/cli/train.ts', ...flags, '--init-from', saved, '--output-dir', run], { encoding: 'utf8' });
    expect(trained.status).toBe(1);
    expect(trained.stderr).toMatch(/weight tok has shape \[\d+,16\], the model needs \[\d+,32\]/);
  });
});

describe('rollouts and pairs for TRL', () => {
  const rollout = (item: number, completion: string, reward: number, correct: boolean): Rollout => ({ prompt: `p${item}`, completion, reward, correct, outcome: correct ? 'ok' : 'wrong', item });

  it('pairs a correct completion over a failing one, and of two correct ones the better rewarded (the shorter Kolmogorov program)', () => {
    const pairs = preferencePairs([
      rollout(0, 'right', 2, true), rollout(0, 'wrong', 0.25, false),
      rollout(1, 'short', 0.98, true), rollout(1, 'long', 0.95, true),
      rollout(2, 'a', 0, false), rollout(2, 'b', 0.5, false), // nothing correct: no pair
      rollout(3, 'same', 1, true), rollout(3, 'same', 1, true), // nothing to prefer
      rollout(4, 'done', 1, true), rollout(4, '', 0, false), rollout(4, 'off', 0.1, false), // an incomplete program has no text to pair
    ]);
    expect(pairs).toEqual([
      { prompt: 'p0', chosen: 'right', rejected: 'wrong' },
      { prompt: 'p1', chosen: 'short', rejected: 'long' },
      { prompt: 'p4', chosen: 'done', rejected: 'off' },
    ]);
    // Of two correct ones only (--both-correct): the better over the worse.
    expect(preferencePairs([rollout(0, 'right', 2, true), rollout(0, 'wrong', 0.25, false), rollout(1, 'short', 0.98, true), rollout(1, 'long', 0.95, true)], { bothCorrect: true })).toEqual([{ prompt: 'p1', chosen: 'short', rejected: 'long' }]);
  });

  it('a problem\'s prompt is its signature, docstring and shown tests, never its hidden ones', () => {
    const [problem] = loadProblemsFile('datasets/functions/heldout.jsonl', { quiet: true });
    const prompt = problemPrompt(problem);
    expect(prompt.split('\n')).toHaveLength(2 + problem.tests.length);
    expect(prompt).toContain(problem.docstring);
    for (const test of problem.hiddenTests) expect(prompt).not.toContain(`== ${JSON.stringify(test.expected)}\n${JSON.stringify(test.args)}`);
  });

  it('npm run rollouts writes one line per sample with its reward, and the pairs', () => {
    const dir = mkdtempSync(join(tmpdir(), 'prl-rollouts-'));
    const done = spawnSync(process.execPath, [...tsx, 'src/cli/rollouts.ts', '--checkpoint', 'public/functions.prl', '--data', 'datasets/functions/evaluation_problems.json', '--samples', '2', '--out', join(dir, 'r.jsonl'), '--pairs', join(dir, 'p.jsonl')], { encoding: 'utf8' });
    expect(done.status, done.stderr).toBe(0);
    const rows = readFileSync(join(dir, 'r.jsonl'), 'utf8').trim().split('\n').map((line) => JSON.parse(line) as Rollout);
    expect(rows).toHaveLength(6);
    expect(rows[0]).toMatchObject({ item: 0, outcome: expect.any(String) });
    expect(rows[0].prompt).toContain('multiply');
    expect(rows.filter((r) => r.correct).length).toBeGreaterThan(0); // the shipped policy solves these greedily
    expect(existsSync(join(dir, 'p.jsonl'))).toBe(true);
  }, 60_000);
});
