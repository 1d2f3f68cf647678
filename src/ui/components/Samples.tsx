import { useMemo, useState } from 'react';
import { isDigitTask } from '../../core/digits/tasks';
import type { EvaluatedItem } from '../../worker/protocol';
import { useLab } from '../store';

const SHOWN_VALUES = 24;

/** A list of values; with `against`, each one that differs from the target is marked, and so is a missing tail. */
function Values({ values, against }: { values: readonly number[]; against?: readonly number[] }) {
  const shown = values.slice(0, SHOWN_VALUES);
  const short = against && values.length < against.length && values.length < SHOWN_VALUES;
  return (
    <code className="values">
      {shown.map((value, i) => {
        const wrong = against !== undefined && against[i] !== value;
        return <span key={i}>{i > 0 && ', '}{wrong ? <mark title={against[i] === undefined ? 'beyond the target' : `target ${against[i]}`}>{value}</mark> : value}</span>;
      })}
      {values.length > SHOWN_VALUES && ', …'}
      {short && <mark title={`the target has ${against.length} values`}>{values.length ? ', ' : ''}(ends {against.length - values.length} early)</mark>}
    </code>
  );
}

/** The held-out items of the latest evaluation that has them: target, program, output, wrong values marked. */
function EvaluatedItems({ items, label }: { items: readonly EvaluatedItem[]; label: string }) {
  const digits = useLab((s) => s.config.task.name !== 'kolmogorov');
  return (
    <details className="per-item" data-testid="per-item" open>
      <summary>each held-out item ({label}): {items.filter((item) => item.correct).length} of {items.length} right</summary>
      <div className="per-problem-scroll">
        <table>
          <thead><tr><th>#</th>{digits && <th>question</th>}<th>target</th><th>{digits ? 'answer' : 'program'}</th><th>{digits ? 'read as' : 'output'}</th>{!digits && <th>how</th>}</tr></thead>
          <tbody>
            {items.map((item) => (
              <tr key={item.index} className={item.correct ? 'outcome-ok' : 'outcome-wrong'}>
                <td>{item.index + 1}</td>
                {digits && <td>{item.detail}</td>}
                <td><Values values={item.target} /></td>
                <td><pre>{item.program || '(incomplete)'}</pre></td>
                <td>{item.output ? <Values values={item.output} against={item.target} /> : <span className="hint">nothing</span>}</td>
                {!digits && <td>{item.detail}</td>}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </details>
  );
}

/**
 * The latest step's completions as TRL's trainers log them: step, prompt, completion, each reward
 * and the advantage (the reward minus its group's mean).
 */
function Completions() {
  const [open, setOpen] = useState(false);
  const samples = useLab((s) => s.samples);
  const parts = [...new Set(samples.flatMap((s) => Object.keys(s.rewardParts ?? {})))];
  if (samples.length === 0) return null;
  const step = samples[0].step;
  const latest = samples.filter((s) => s.step === step).slice(0, 32);
  const prompt = (s: (typeof samples)[number]) => s.label ?? s.target.slice(0, 12).join(', ') + (s.target.length > 12 ? ', …' : '');
  return (
    <details className="completions" data-testid="completions" onToggle={(e) => setOpen((e.target as HTMLDetailsElement).open)}>
      <summary>completions of step {step} ({latest.length}), as TRL logs them</summary>
      {/* Rows are drawn only while the list is open: every step replaces them. */}
      {open && <div className="per-problem-scroll">
        <table>
          <thead><tr><th>step</th><th>prompt</th><th>completion</th><th>reward</th>{parts.map((p) => <th key={p}>{p}</th>)}<th>advantage</th></tr></thead>
          <tbody>
            {latest.map((s, i) => (
              <tr key={i} className={`outcome-${s.outcome}`}>
                <td>{s.step}</td>
                <td><code>{prompt(s)}</code></td>
                <td><pre>{s.program || '(incomplete)'}</pre></td>
                <td>{s.reward.toFixed(3)}</td>
                {parts.map((p) => <td key={p}>{s.rewardParts?.[p]?.toFixed(3) ?? ''}</td>)}
                <td>{s.advantage === undefined ? '' : s.advantage.toFixed(3)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>}
    </details>
  );
}

export function SampleInspector() {
  const samples = useLab((s) => s.samples);
  const best = useLab((s) => s.best);
  const functions = useLab((s) => s.config.task.name === 'functions');
  const digits = useLab((s) => isDigitTask(s.config.task.name));
  // Sorted again only when a best program changed, not on every batch of samples.
  const bestList = useMemo(() => Object.values(best).sort((a, b) => a.itemIndex - b.itemIndex).slice(0, 20), [best]);
  return (
    <section className="panel samples" data-testid="samples">
      <h2>Latest programs</h2>
      {functions ? (
        <table data-testid="function-samples">
          <thead><tr><th>problem</th><th>program</th><th>tests</th><th>outcome</th><th>reward</th></tr></thead>
          <tbody>
            {samples.slice(0, 8).map((s, i) => (
              <tr key={i} className={`outcome-${s.outcome}`}>
                <td>{s.label}</td>
                <td><pre>{s.program || '(incomplete)'}</pre></td>
                <td>{s.detail}</td>
                <td>{s.outcome}</td>
                <td>{s.reward.toFixed(3)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : <table data-testid="sample-table">
        <thead><tr><th>item</th><th>target</th><th>program</th><th>output</th><th>outcome</th><th>reward</th>{!digits && <th>bits</th>}</tr></thead>
        <tbody>
          {samples.slice(0, 8).map((s, i) => (
            <tr key={i} className={`outcome-${s.outcome}`}>
              <td>{digits ? s.label : s.itemIndex}</td>
              <td><Values values={s.target} /></td>
              <td><pre>{s.program || '(incomplete)'}</pre></td>
              <td>{s.output ? <Values values={s.output} against={s.target} /> : ''}</td>
              <td>{s.outcome}</td>
              <td>{s.reward.toFixed(3)}</td>
              {!digits && <td>{s.bits.toFixed(1)}</td>}
            </tr>
          ))}
        </tbody>
      </table>}
      <Completions />
      <h2>Best program per {functions ? 'problem' : 'sequence'}</h2>
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
  // Digit-task rows (accuracy and format compliance) and functions rows (per problem) get their own tables.
  const rows = all.filter((r) => r.formatCompliance === undefined && r.functions === undefined);
  const digitRows = all.filter((r) => r.formatCompliance !== undefined);
  const functionRows = all.filter((r) => r.functions !== undefined);
  const lastFunctions = functionRows.at(-1)?.functions;
  const withItems = all.filter((r) => r.items !== undefined).at(-1);
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
      {functionRows.length > 0 && (
        <table data-testid="function-evaluations">
          <thead><tr><th>method</th><th>n</th><th>solved</th><th>pass@1</th><th>success rate</th></tr></thead>
          <tbody>
            {functionRows.map((r, i) => <tr key={i}><td>{r.label}</td><td>{r.n}</td><td>{f(r.accuracy)}</td><td>{f(r.functions!.passAt1)}</td><td>{f(r.functions!.successRate)}</td></tr>)}
          </tbody>
        </table>
      )}
      {lastFunctions && (
        <div className="per-problem-scroll">
        <table className="per-problem" data-testid="per-problem">
          <thead><tr><th>problem</th><th>solved</th><th>shown tests</th><th>hidden tests</th><th>program</th></tr></thead>
          <tbody>
            {lastFunctions.problems.map((p) => (
              <tr key={p.function_name} className={p.solved ? 'outcome-ok' : 'outcome-wrong'}>
                <td title={p.docstring}><code>{p.function_name}</code></td>
                <td>{p.solved ? 'yes' : 'no'}</td>
                <td>{p.shown_passed}/{p.shown_total}</td>
                <td>{p.hidden_passed}/{p.hidden_total}</td>
                <td><pre>{p.program || '(incomplete)'}</pre></td>
              </tr>
            ))}
          </tbody>
        </table>
        </div>
      )}
      {withItems && <EvaluatedItems key={withItems.label} items={withItems.items!} label={withItems.label} />}
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
