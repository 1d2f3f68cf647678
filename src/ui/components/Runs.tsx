import { useState } from 'react';
import { deleteRun, downloadRun, initPersistence, renameRun, resumeRun, setAutosave } from '../persistence';
import { useLab } from '../store';

const size = (bytes: number) => (bytes > 2 ** 30 ? `${(bytes / 2 ** 30).toFixed(1)} GB` : `${(bytes / 2 ** 20).toFixed(1)} MB`);

/** The run a reload or a crash interrupted, with one button that resumes it. */
export function InterruptedRun() {
  const run = useLab((s) => s.interruptedRun);
  const busy = useLab((s) => s.phase === 'training' || s.phase === 'pretraining' || s.phase === 'evaluating');
  if (!run) return null;
  return (
    <div className="interrupted" role="status" data-testid="interrupted-run">
      The run <strong>{run.name}</strong> was interrupted at step {run.step} (saved {new Date(run.updatedAt).toLocaleTimeString()}).{' '}
      <button onClick={() => void resumeRun(run.id)} disabled={busy}>Resume it</button>
    </div>
  );
}

/** Runs kept in this browser: open (resume), rename, delete, download; the storage they take. */
export function Runs() {
  const runs = useLab((s) => s.runs);
  const storage = useLab((s) => s.storage);
  const note = useLab((s) => s.runsNote);
  const busy = useLab((s) => s.phase === 'training' || s.phase === 'pretraining' || s.phase === 'evaluating');
  const [editing, setEditing] = useState<string | null>(null);
  const autosave = useLab((s) => s.autosave);
  return (
    <details className="panel runs" data-testid="runs" onToggle={(e) => (e.target as HTMLDetailsElement).open && void initPersistence()}>
      <summary>Saved runs ({runs.length})</summary>
      {note && <p className="hint">{note}</p>}
      <label>
        <input type="checkbox" checked={autosave} onChange={(e) => setAutosave(e.target.checked)} data-testid="autosave" /> keep the live run in this browser
      </label>
      <p className="hint">
        When on, the live run is saved every 10 steps and when it pauses or stops, and a reload offers it back.
        {storage && storage.quota > 0 && <> Storage: {size(storage.usage)} of {size(storage.quota)}{storage.usage / storage.quota > 0.8 ? ' — nearly full: delete old runs' : ''}.</>}
      </p>
      {runs.length > 0 && (
        <table data-testid="run-list">
          <thead><tr><th>name</th><th>task</th><th>algorithm</th><th>steps</th><th>best</th><th>saved</th><th></th></tr></thead>
          <tbody>
            {runs.map((run) => (
              <tr key={run.id}>
                <td>
                  {editing === run.id ? (
                    <input autoFocus defaultValue={run.name} aria-label="run name" onBlur={(e) => { setEditing(null); void renameRun(run.id, e.target.value); }} onKeyDown={(e) => e.key === 'Enter' && (e.target as HTMLInputElement).blur()} />
                  ) : run.name}
                </td>
                <td>{run.task}</td>
                <td>{run.algorithm}</td>
                <td>{run.step}</td>
                <td>{run.best === null ? '' : run.best.toFixed(3)}</td>
                <td>{new Date(run.updatedAt).toLocaleString()}</td>
                <td className="run-actions">
                  <button onClick={() => void resumeRun(run.id)} disabled={busy}>Open</button>
                  <button onClick={() => setEditing(run.id)}>Rename</button>
                  <button onClick={() => void downloadRun(run.id)}>Download</button>
                  <button onClick={() => window.confirm(`Delete ${run.name} and its checkpoint?`) && void deleteRun(run.id)}>Delete</button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </details>
  );
}
