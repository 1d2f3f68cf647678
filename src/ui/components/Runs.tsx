import { memo, useRef, useState } from 'react';
import { onFilePicked } from '../filePicked';
import type { RunRecord } from '../../worker/runStore';
import { compareRun, deleteRun, downloadRun, importRunFile, renameRun, resumeRun, setAutosave, showRuns } from '../persistence';
import { useLab } from '../store';
import { PanelBoundary } from './PanelBoundary';

/**
 * One formatter, made when the page loads: toLocaleString makes (and the first time loads the
 * locale data of) a new one per call, which made a 78 ms main-thread task when the run list
 * re-rendered after a save (measured with the e2e long-animation-frame attribution).
 */
const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'short', timeStyle: 'medium' });
const time = new Intl.DateTimeFormat(undefined, { timeStyle: 'medium' });

/** A stored figure or time as the list shows it; a record from an older lab or a bad file may hold anything. */
export const bestText = (best: unknown): string => (typeof best === 'number' && Number.isFinite(best) ? best.toFixed(3) : '');
/** Training time as minutes and seconds. */
export const wallText = (ms: unknown): string => (typeof ms === 'number' && Number.isFinite(ms) && ms > 0 ? `${Math.floor(ms / 60_000)}m ${Math.round((ms % 60_000) / 1000)}s` : '');
export const timeText = (format: Intl.DateTimeFormat, ms: unknown): string => (typeof ms === 'number' && Number.isFinite(ms) && Math.abs(ms) <= 8.64e15 ? format.format(ms) : '');

/** A run's saved step, with the pretraining in its weights when the page pretrained it. */
export const stepText = (run: Pick<RunRecord, 'step' | 'pretrainSteps'>): string => {
  const pretrained = typeof run.pretrainSteps === 'number' && run.pretrainSteps > 0 ? `pretrain step ${run.pretrainSteps}` : '';
  return run.step === 0 && pretrained ? pretrained : `step ${run.step}${pretrained ? ` (after ${pretrained})` : ''}`;
};

const size = (bytes: number) => (bytes > 2 ** 30 ? `${(bytes / 2 ** 30).toFixed(1)} GB` : `${(bytes / 2 ** 20).toFixed(1)} MB`);

/** The run a reload or a crash interrupted, with one button that resumes it. */
export function InterruptedRun() {
  const run = useLab((s) => s.interruptedRun);
  const busy = useLab((s) => !s.started || s.phase === 'training' || s.phase === 'pretraining' || s.phase === 'evaluating');
  if (!run) return null;
  return (
    <div className="interrupted" role="status" data-testid="interrupted-run">
      The run <strong>{run.name}</strong> was interrupted at {stepText(run)} (saved {timeText(time, run.updatedAt)}).{' '}
      <button onClick={() => openRun(run)} disabled={busy}>Resume it</button>{' '}
      <button onClick={() => useLab.setState({ interruptedRun: null })}>Dismiss</button>
    </div>
  );
}

/** Runs kept in this browser: open (resume), compare, rename, delete, download; the storage they take. */
export function Runs() {
  const runs = useLab((s) => s.runs);
  const storage = useLab((s) => s.storage);
  const note = useLab((s) => s.runsNote);
  const current = useLab((s) => s.currentRun);
  const saving = useLab((s) => s.savingStep);
  const compared = useLab((s) => s.compared);
  const busy = useLab((s) => !s.started || s.phase === 'training' || s.phase === 'pretraining' || s.phase === 'evaluating');
  const [editing, setEditing] = useState<string | null>(null);
  const autosave = useLab((s) => s.autosave);
  const full = storage && storage.quota > 0 ? storage.usage / storage.quota : 0;
  const importInput = useRef<HTMLInputElement>(null);
  return (
    <details className="panel runs" data-testid="runs" onToggle={(e) => (e.target as HTMLDetailsElement).open && void showRuns()}>
      <summary>
        Saved runs ({runs.length}){saving !== null && <span className="saving" data-testid="saving"> · saving step {saving}…</span>}
      </summary>
      {note && <p className="hint">{note}</p>}
      <label>
        <input type="checkbox" checked={autosave} onChange={(e) => void setAutosave(e.target.checked)} data-testid="autosave" /> keep the live run in this browser
      </label>
      <button type="button" onClick={() => importInput.current?.click()}>Import run</button>
      <input ref={importInput} type="file" accept=".json" hidden data-testid="run-import" onChange={onFilePicked((file) => importRunFile(file, file.name))} />
      <p className="hint">
        The live run is saved every 10 steps of training, after each single Step, every 50 steps of Pretrain, and when it pauses or stops; a reload offers it back. Tick runs to draw their curves beside the live run's. A downloaded run (.run.json) comes back with Import run, or dropped on the page.
        {storage && storage.quota > 0 && <> Storage: {size(storage.usage)} of {size(storage.quota)}{full > 0.8 ? ' — nearly full: delete old runs' : ''}.</>}
      </p>
      {runs.length > 0 && (
        // Wider than its panel on most screens: it scrolls inside it, not the page.
        <div className="table-scroll">
        <table data-testid="run-list">
          <thead><tr><th title="draw on the charts">compare</th><th>name</th><th></th><th>checkpoint</th><th title="the best held-out figure of the run's evaluations, and the search it used">held-out</th><th>task</th><th>algorithm</th><th>seed</th><th>learning rate</th><th>wall time</th><th>saved</th></tr></thead>
          <tbody>
            {runs.map((run) => (
              // A record that cannot be drawn is a row of its own, which still deletes it.
              <PanelBoundary key={run.id} name={`The saved run ${String(run.id)}`} fallback={(error) => <BrokenRunRow id={String(run.id)} error={error} />}>
                <RunRow run={run} live={run.id === current} compared={compared.some((c) => c.id === run.id)} busy={busy} editing={editing === run.id} setEditing={setEditing} />
              </PanelBoundary>
            ))}
          </tbody>
        </table>
        </div>
      )}
    </details>
  );
}

/** A row of the run list, redrawn only when its run changes (a save re-sends the list). */
const RunRow = memo(function RunRow({ run, live, compared, busy, editing, setEditing }: { run: RunRecord; live: boolean; compared: boolean; busy: boolean; editing: boolean; setEditing: (id: string | null) => void }) {
  return (
    <tr className={live ? 'live' : undefined}>
      <td><input type="checkbox" aria-label={`compare ${run.name}`} checked={compared} onChange={(e) => void compareRun(run.id, e.target.checked)} /></td>
      <td>
        {editing ? (
          <input autoFocus defaultValue={run.name} aria-label="run name" onBlur={(e) => { setEditing(null); void renameRun(run.id, e.target.value); }} onKeyDown={(e) => e.key === 'Enter' && (e.target as HTMLInputElement).blur()} />
        ) : run.name}
        {live && <small> (live)</small>}
      </td>
      <td className="run-actions">
        <button onClick={() => void openRun(run)} disabled={busy || live}>Open</button>
        <button onClick={() => setEditing(run.id)}>Rename</button>
        <button onClick={() => void downloadRun(run.id)}>Download</button>
        {/* The live run is being saved: deleting its record would only see it written again. */}
        <button onClick={() => window.confirm(`Delete ${run.name} and its checkpoint?`) && void deleteRun(run.id)} disabled={live} title={live ? 'the live run is saved as it trains: apply a new run or open another to delete this one' : undefined}>Delete</button>
      </td>
      <td>{stepText(run)}</td>
      <td>{bestText(run.best)}{run.bestSearch ? <small> ({run.bestSearch})</small> : null}</td>
      <td>{run.task}</td>
      <td>{run.algorithm}</td>
      <td>{run.config?.run?.seed}</td>
      <td>{run.config?.algorithm?.learningRate}</td>
      <td>{wallText(run.wallMs)}</td>
      <td title={`checkpoint ${size(run.checkpointBytes ?? 0)}${run.referenceIsCheckpoint ? ', KL reference: the checkpoint itself' : run.referenceBytes ? `, KL reference ${size(run.referenceBytes)}` : ''}`}>{timeText(dateTime, run.updatedAt)}</td>
    </tr>
  );
});

/** Opens a saved run in place of the live one; with saving off, a live run with steps is not kept anywhere, so the page asks first. */
function openRun(run: RunRecord): void {
  const { autosave, step } = useLab.getState();
  if (!autosave && step > 0 && !window.confirm(`Saving is off, so the live run (step ${step}) is kept nowhere: opening ${run.name} replaces it. Download its checkpoint first to keep it. Open anyway?`)) return;
  void resumeRun(run.id);
}

/** The row of a stored run that cannot be drawn: what went wrong, and its Delete. */
function BrokenRunRow({ id, error }: { id: string; error: Error }) {
  return (
    <tr className="broken" data-testid="broken-run">
      <td colSpan={10}>This saved run cannot be shown ({error.message}).</td>
      <td className="run-actions">
        <button onClick={() => window.confirm('Delete this saved run and its checkpoint?') && void deleteRun(id)}>Delete</button>
      </td>
    </tr>
  );
}
