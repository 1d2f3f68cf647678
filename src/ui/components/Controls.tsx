import { useRef, useState } from 'react';
import { onFilePicked } from '../filePicked';
import { download } from '../download';
import { DEFAULT_MAX_CHECKPOINT_BYTES, checkpointStep } from '../../core/checkpoint';
import { taskDefinition } from '../../core/registry';
import { reportError, useLab } from '../store';
import { attempt, loadCheckpointFromFile, trainer } from '../trainer';

/** A dropped or picked .prl file: the worker validates it (off the main thread) and says what is wrong. */
export async function loadCheckpointFile(file: Blob, name: string): Promise<void> {
  // Sized before it is read: a file of gigabytes never reaches memory.
  if (file.size > DEFAULT_MAX_CHECKPOINT_BYTES) return reportError(`${name} cannot be loaded: it has ${file.size} bytes, more than the ${DEFAULT_MAX_CHECKPOINT_BYTES} a checkpoint may have`);
  await loadCheckpointFromFile(new Uint8Array(await file.arrayBuffer()), name);
}

/** Supervised warm start before RL: steps and how often the held-out loss and accuracy are measured. */
function PretrainControls(props: { disabled: boolean }) {
  const [steps, setSteps] = useState(200);
  const [evalEvery, setEvalEvery] = useState(50);
  const valid = Number.isInteger(steps) && steps > 0 && Number.isInteger(evalEvery) && evalEvery > 0;
  return (
    <span className="pretrain" title="Supervised warm start on (sequence -> program) pairs from the task's generator, never a held-out sequence; Train then continues with RL from its weights.">
      <button onClick={() => void attempt('pretrain', () => trainer().pretrain({ steps, evalEvery, evalLimit: 50 }))} disabled={props.disabled || !valid}>Pretrain</button>
      <label>
        steps <input type="number" min={1} value={steps} onChange={(e) => setSteps(Number(e.target.value))} data-testid="pretrain-steps" />
      </label>
      <label>
        held-out every <input type="number" min={1} value={evalEvery} onChange={(e) => setEvalEvery(Number(e.target.value))} data-testid="pretrain-eval-every" />
      </label>
    </span>
  );
}

export function Controls() {
  const [search, setSearch] = useState('greedy');
  const task = useLab((s) => s.config.task.name);
  // The task's own searches (its definition: greedy, best-of-8, and Kolmogorov's repair and split).
  const definition = taskDefinition(task);
  const searches = definition.searches.map((s) => s.name);
  const phase = useLab((s) => s.phase);
  const step = useLab((s) => s.step);
  // No run until the data and the configuration are in: Train before that could only fail.
  const hasRun = useLab((s) => s.weights !== null);
  const checkpointInput = useRef<HTMLInputElement>(null);
  const configuring = useLab((s) => s.configuring > 0);
  const busy = configuring || phase === 'loading' || phase === 'evaluating' || phase === 'saving';
  const running = phase === 'training' || phase === 'pretraining';
  return (
    <section className="panel controls" data-testid="controls">
      <button onClick={() => void attempt('train', () => trainer().train())} disabled={!hasRun || busy || running || phase === 'paused'}>Train</button>
      <button onClick={() => void attempt('pause', () => trainer().pause())} disabled={!running}>Pause</button>
      <button onClick={() => void attempt('resume', () => trainer().resume())} disabled={phase !== 'paused'}>Resume</button>
      <button onClick={() => void attempt('stop', () => trainer().stop())} disabled={!running && phase !== 'paused'}>Stop</button>
      <button onClick={() => void attempt('step', () => trainer().step())} disabled={!hasRun || busy || running}>Step</button>
      <button onClick={() => void attempt('evaluate', () => trainer().evaluate({ limit: 50, search: searches.includes(search) ? search : searches[0] }))} disabled={busy || running}>Evaluate held-out</button>
      <select
        value={search}
        onChange={(e) => setSearch(e.target.value)}
        aria-label="search at evaluation"
        title="How programs are searched at evaluation: best-of-8 keeps the shortest correct of the greedy program and 7 samples; repair tries edits of the closest wrong programs (the policy's runner-up tokens); split writes a sequence no program solves piece by piece and joins the pieces with concatenate or interleave; a functions search draws up to 64 or 256 different programs, runs them on the shown tests and keeps the most probable that passes them"
        data-testid="eval-search"
      >
        {searches.map((name) => <option key={name} value={name}>{name}</option>)}
      </select>
      <button
        onClick={() =>
          void attempt('download checkpoint', async () => {
            const bytes = await trainer().getCheckpoint();
            // Named after the step it holds: while training, the step shown lags the one saved.
            download(`program-rl-lab-step${checkpointStep(bytes) ?? step}.prl`, bytes as Uint8Array<ArrayBuffer>);
          })
        }
        disabled={busy}
      >
        Download checkpoint
      </button>
      <button
        onClick={() =>
          void attempt('export for PyTorch', async () => {
            const zip = await trainer().getPytorchZip();
            download(`program-rl-lab-step${zip.step}-pytorch.zip`, zip.bytes as Uint8Array<ArrayBuffer>, 'application/zip');
          })
        }
        disabled={busy || !hasRun}
        title="A zip of model.safetensors, config.json, vocab.json and modeling_prl.py: the policy in PyTorch (see the README)"
      >
        Export for PyTorch
      </button>
      <button onClick={() => checkpointInput.current?.click()} disabled={busy}>Load checkpoint</button>
      <input ref={checkpointInput} type="file" accept=".prl,.safetensors" hidden data-testid="checkpoint-input" onChange={onFilePicked((file) => loadCheckpointFile(file, file.name))} />
      {definition.warmStart && !definition.warmStart.beforeTraining && <PretrainControls disabled={busy || running || phase === 'paused'} />}
    </section>
  );
}
