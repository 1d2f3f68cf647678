import { useLab } from '../store';
import { loadDatasetFile, loadShipped, shippedDatasets } from '../trainer';

export function DatasetPanel() {
  const datasets = useLab((s) => s.datasets);
  const train = datasets.train;
  const task = useLab((s) => s.config.task.name);
  return (
    <section className="panel" data-testid="dataset-panel">
      <h2>Data</h2>
      {task !== 'kolmogorov' && task !== 'functions' && (
        <p data-testid="digit-data">
          <b>{task}</b>: prompts are generated (training prompts from the run&apos;s seed, held-out prompts from the digits eval seed, never trained on). The files below are for the kolmogorov and functions tasks.
        </p>
      )}
      {task === 'functions' ? (
        <p className="hint">Drop a problems file on the left half of the page to train on it, on the right half to evaluate on it, or pick one: a JSON array or JSONL of {'{"function_name", "docstring", "test_cases": [[input, output], ...], "starter_code", "hidden_test_cases"?}'}. An input that is a list is the argument list ({'[[2, 3], 5]'} calls f(2, 3)).</p>
      ) : (
        <p className="hint">Drop a JSONL file on the left half of the page to train on it, on the right half to evaluate on it, or pick one. Each line: {'{"sequence": [0..255, ...], "program"?: "..."}'}. A file of function problems switches to the functions task.</p>
      )}
      <label>
        training file <input type="file" accept=".jsonl,.json,.txt" data-testid="dataset-input" onChange={(e) => e.target.files?.[0] && void loadDatasetFile('train', e.target.files[0].name, e.target.files[0])} />
      </label>
      <label>
        held-out file <input type="file" accept=".jsonl,.json,.txt" data-testid="heldout-input" onChange={(e) => e.target.files?.[0] && void loadDatasetFile('heldout', e.target.files[0].name, e.target.files[0])} />
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
            <b>{role}</b>: {summary ? `${summary.name}: ${summary.summary}` : 'not loaded'}
            {summary?.gzipRate !== undefined && (
              <span className="hint" data-testid={`dataset-reference-${role}`}>
                {' '}(gzip {summary.gzipRate.toFixed(3)}, LZMA {summary.lzmaRate?.toFixed(3)} of the raw bits{summary.records > 1000 ? ', first 1000 sequences' : ''})
              </span>
            )}
          </p>
        );
      })}
      {train && train.errorCount > 0 && (
        <table className="bad-lines" data-testid="bad-lines">
          <thead><tr><th>line</th><th>byte</th><th>reason</th><th>snippet</th></tr></thead>
          <tbody>
            {train.errors.slice(0, 50).map((error) => (
              <tr key={error.line}><td>{error.line}</td><td>{error.byteOffset}</td><td>{error.reason}</td><td><code>{error.snippet}</code></td></tr>
            ))}
          </tbody>
        </table>
      )}
      {train?.problemPreview && train.problemPreview.length > 0 && (
        <table className="preview" data-testid="problem-preview">
          <thead><tr><th>function</th><th>signature</th><th>docstring</th><th>tests</th></tr></thead>
          <tbody>
            {train.problemPreview.slice(0, 5).map((p, i) => (
              <tr key={i}><td><code>{p.functionName}</code></td><td><code>{p.signature}</code></td><td>{p.docstring}</td><td>{p.tests} shown{p.hiddenTests ? ` + ${p.hiddenTests} hidden` : ''}</td></tr>
            ))}
          </tbody>
        </table>
      )}
      {train && train.preview.length > 0 && (
        <table className="preview" data-testid="preview">
          <thead><tr><th>#</th><th>sequence</th><th>program</th></tr></thead>
          <tbody>
            {train.preview.slice(0, 5).map((record, i) => (
              <tr key={i}><td>{i + 1}</td><td><code>{record.sequence.slice(0, 24).join(', ')}{record.sequence.length > 24 ? ', …' : ''}</code></td><td><pre>{record.program ?? ''}</pre></td></tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
