import { useMemo } from 'react';
import { useLab } from '../store';

export function SampleInspector() {
  const samples = useLab((s) => s.samples);
  const best = useLab((s) => s.best);
  // Sorted again only when a best program changed, not on every batch of samples.
  const bestList = useMemo(() => Object.values(best).sort((a, b) => a.itemIndex - b.itemIndex).slice(0, 20), [best]);
  return (
    <section className="panel samples" data-testid="samples">
      <h2>Latest programs</h2>
      <table>
        <thead><tr><th>item</th><th>program</th><th>output</th><th>outcome</th><th>reward</th><th>bits</th></tr></thead>
        <tbody>
          {samples.slice(0, 8).map((s, i) => (
            <tr key={i} className={`outcome-${s.outcome}`}>
              <td>{s.itemIndex}</td>
              <td><pre>{s.program || '(incomplete)'}</pre></td>
              <td><code>{s.output ? s.output.slice(0, 12).join(', ') + (s.output.length > 12 ? ', …' : '') : ''}</code></td>
              <td>{s.outcome}</td>
              <td>{s.reward.toFixed(3)}</td>
              <td>{s.bits.toFixed(1)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <h2>Best program per sequence</h2>
      {bestList.length === 0 ? <p className="hint">No correct program yet.</p> : (
        <table>
          <thead><tr><th>item</th><th>program</th><th>bits</th><th>step</th></tr></thead>
          <tbody>{bestList.map((b) => <tr key={b.itemIndex}><td>{b.itemIndex}</td><td><pre>{b.program}</pre></td><td>{b.bits.toFixed(1)}</td><td>{b.step}</td></tr>)}</tbody>
        </table>
      )}
    </section>
  );
}

export function EvaluationTable() {
  const all = useLab((s) => s.evaluations);
  if (all.length === 0) return null;
  // Digit-task rows (accuracy and format compliance) get their own table.
  const rows = all.filter((r) => r.formatCompliance === undefined);
  const digitRows = all.filter((r) => r.formatCompliance !== undefined);
  const last = rows.at(-1);
  const f = (v: number) => v.toFixed(3);
  return (
    <section className="panel" data-testid="evaluations">
      <h2>Held-out evaluation</h2>
      {digitRows.length > 0 && (
        <table data-testid="digit-evaluations">
          <thead><tr><th>method</th><th>n</th><th>accuracy</th><th>format compliance</th></tr></thead>
          <tbody>
            {digitRows.map((r, i) => <tr key={i}><td>{r.label}</td><td>{r.n}</td><td>{f(r.accuracy)}</td><td>{f(r.formatCompliance!)}</td></tr>)}
          </tbody>
        </table>
      )}
      {last && <table>
        <thead><tr><th>method</th><th>n</th><th>accuracy</th><th>acc@16</th><th>acc@64</th><th>compression</th><th>precision</th></tr></thead>
        <tbody>
          {rows.map((r, i) => (
            <tr key={i}><td>{r.label}</td><td>{r.n}</td><td>{f(r.accuracy)}</td><td>{f(r.accAtPrefix['16'])}</td><td>{f(r.accAtPrefix['64'])}</td><td>{f(r.compressionRate)}</td><td>{f(r.precision)}</td></tr>
          ))}
          <tr><td>gzip (joint)</td><td>{last.n}</td><td>1.000</td><td></td><td></td><td>{f(last.gzipRate)}</td><td></td></tr>
          <tr><td>LZMA (joint)</td><td>{last.n}</td><td>1.000</td><td></td><td></td><td>{f(last.lzmaRate)}</td><td></td></tr>
        </tbody>
      </table>}
    </section>
  );
}
