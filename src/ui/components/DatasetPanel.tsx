import { taskDefinition } from '../../core/registry';
import { onFilePicked } from '../filePicked';
import { useLab } from '../store';
import { loadDatasetFile, loadShipped, shippedDatasets } from '../trainer';

export function DatasetPanel() {
  const datasets = useLab((s) => s.datasets);
  const train = datasets.train;
  const task = useLab((s) => s.config.task.name);
  const data = taskDefinition(task).data;
  return (
    <section className="panel" data-testid="dataset-panel">
      <h2>Data</h2>
      {data.kind === 'generated' ? (
        <p data-testid="generated-data">
          <b>{task}</b>: {data.itemName} are generated (training ones from the run&apos;s seed, held-out ones from their own seed, never trained on). The files below are for the tasks that read files.
        </p>
      ) : (
        <p className="hint">Drop a file on the left half of the page to train on it, on the right half to evaluate on it, or pick one. Each task reads its own kind of file, and a file of another task&apos;s switches the run to that task: a JSONL of {'{"sequence": [0..255, ...], "program"?: "..."}'} for kolmogorov, a JSON array or JSONL of {'{"function_name", "docstring", "test_cases": [[input, output], ...], "starter_code", "hidden_test_cases"?}'} for functions (an input that is a list is the argument list: {'[[2, 3], 5]'} calls f(2, 3)).</p>
      )}
      <label>
        training file <input type="file" accept=".jsonl,.json,.txt" data-testid="dataset-input" onChange={onFilePicked((file) => loadDatasetFile('train', file.name, file))} />
      </label>
      <label>
        held-out file <input type="file" accept=".jsonl,.json,.txt" data-testid="heldout-input" onChange={onFilePicked((file) => loadDatasetFile('heldout', file.name, file))} />
      </label>
      <label>
        shipped{' '}
        <select data-testid="shipped-select" value="" onChange={(e) => e.target.value && void loadShipped(e.target.value)}>
          <option value="">choose…</option>
          {shippedDatasets.map((d) => <option key={d.name} value={d.name}>{d.name} ({d.role}): {d.doc}</option>)}
        </select>
      </label>
      {(['train', 'heldout'] as const).map((role) => {
        const summary = datasets[role];
        return (
          <p key={role} data-testid={`dataset-summary-${role}`}>
            {/* A file of another task (kept for when the lab goes back to it) says whose it is. */}
            <b>{role}</b>{summary && summary.task !== task ? ` (a ${summary.task} file, not read by ${task})` : ''}: {summary ? `${summary.name}: ${summary.summary}` : 'not loaded'}
            {summary?.references?.gzipRate !== undefined && (
              <span className="hint" data-testid={`dataset-reference-${role}`}>
                {' '}(gzip {summary.references.gzipRate.toFixed(3)}, LZMA {summary.references.lzmaRate?.toFixed(3)} of the raw bits{summary.records > 1000 ? ', first 1000 sequences' : ''})
              </span>
            )}
          </p>
        );
      })}
      {(['train', 'heldout'] as const).map((role) => {
        const summary = datasets[role];
        return summary && summary.errorCount > 0 ? (
          <table key={role} className="bad-lines" data-testid={role === 'train' ? 'bad-lines' : 'bad-lines-heldout'}>
            <caption>rejected in the {role === 'train' ? 'training' : 'held-out'} file {summary.name}</caption>
            <thead><tr><th>line</th><th>byte</th><th>reason</th><th>snippet</th></tr></thead>
            <tbody>
              {summary.errors.slice(0, 50).map((error) => (
                <tr key={error.line}><td>{error.line}</td><td>{error.byteOffset}</td><td>{error.reason}</td><td><code>{error.snippet}</code></td></tr>
              ))}
            </tbody>
          </table>
        ) : null;
      })}
      {train && train.preview.length > 0 && (
        <table className="preview" data-testid="preview">
          <thead><tr><th>#</th><th>{train.itemName}</th><th></th></tr></thead>
          <tbody>
            {train.preview.slice(0, 5).map((item, i) => (
              <tr key={i}><td>{i + 1}</td><td><code>{item.label}</code></td><td>{item.detail}</td></tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
