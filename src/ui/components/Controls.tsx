import { decodeCheckpoint } from '../../core/checkpoint';
import { download } from '../download';
import { reportError, useLab } from '../store';
import { attempt, trainer } from '../trainer';

export async function loadCheckpointFile(file: Blob, name: string): Promise<void> {
  const bytes = new Uint8Array(await file.arrayBuffer());
  try {
    await decodeCheckpoint(bytes); // readable errors before anything is sent to the worker
  } catch (error) {
    reportError(`${name} cannot be loaded: ${(error as Error).message}`);
    return;
  }
  const result = await attempt(`loading ${name}`, () => trainer().loadCheckpoint(bytes));
  if (result) useLab.setState({ config: result.config, step: result.step, message: `checkpoint ${name} loaded at step ${result.step}` });
}

export function Controls() {
  const phase = useLab((s) => s.phase);
  const step = useLab((s) => s.step);
  const busy = phase === 'loading' || phase === 'evaluating' || phase === 'saving';
  return (
    <section className="panel controls" data-testid="controls">
      <button onClick={() => void attempt('train', () => trainer().train())} disabled={busy || phase === 'training' || phase === 'paused'}>Train</button>
      <button onClick={() => void attempt('pause', () => trainer().pause())} disabled={phase !== 'training'}>Pause</button>
      <button onClick={() => void attempt('resume', () => trainer().resume())} disabled={phase !== 'paused'}>Resume</button>
      <button onClick={() => void attempt('stop', () => trainer().stop())} disabled={phase !== 'training' && phase !== 'paused'}>Stop</button>
      <button onClick={() => void attempt('step', () => trainer().step())} disabled={busy || phase === 'training'}>Step</button>
      <button onClick={() => void attempt('evaluate', () => trainer().evaluate({ limit: 50, k: 1 }))} disabled={busy || phase === 'training'}>Evaluate held-out</button>
      <button
        onClick={() =>
          void attempt('download checkpoint', async () => {
            const bytes = await trainer().getCheckpoint();
            download(`program-rl-lab-step${step}.prl`, bytes as Uint8Array<ArrayBuffer>);
          })
        }
        disabled={busy}
      >
        Download checkpoint
      </button>
      <label className="button">
        Load checkpoint <input type="file" accept=".prl" hidden data-testid="checkpoint-input" onChange={(e) => e.target.files?.[0] && void loadCheckpointFile(e.target.files[0], e.target.files[0].name)} />
      </label>
    </section>
  );
}
