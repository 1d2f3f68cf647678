import { useMemo, useState } from 'react';
import type { EvaluatedItem, EvaluationRow } from '../../worker/protocol';
import { useLab } from '../store';
import { taskDefinition, taskNames } from '../../core/registry';

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

/** A sequence's numbers, when the text is one (targets and outputs of the Kolmogorov task). */
const numbers = (text: string | null) => (text === '' ? [] : text !== null && /^-?\d+( -?\d+)*$/.test(text) ? text.split(' ').map(Number) : null);

/** The held-out items of the latest evaluation that has them: target, program, output (wrong values marked), and details (how it was found, its tests, its question). */
function EvaluatedItems({ items, label }: { items: readonly EvaluatedItem[]; label: string }) {
  return (
    <details className="per-item" data-testid="per-item" open>
      <summary>each held-out item ({label}): {items.filter((item) => item.correct).length} of {items.length} right</summary>
      <div className="per-problem-scroll">
        <table>
          <thead><tr><th>#</th><th>target</th><th>program</th><th>output</th><th>details</th></tr></thead>
          <tbody>
            {items.map((item) => {
              const target = numbers(item.target);
              const output = numbers(item.output);
              return (
                <tr key={item.index} className={item.correct ? 'outcome-ok' : 'outcome-wrong'}>
                  <td>{item.index + 1}</td>
                  <td>{target ? <Values values={target} /> : item.target}</td>
                  <td><pre>{item.program || '(incomplete)'}</pre></td>
                  <td>{item.output === null ? <span className="hint">nothing</span> : target && output ? <Values values={output} against={target} /> : item.output}</td>
                  <td>{item.detail}</td>
                </tr>
              );
            })}
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
  const itemName = useLab((s) => s.datasets.train?.itemName ?? 'item');
  // A task whose items are generated anew (the digit tasks) never meets an item again: no best per item.
  const fixedItems = useLab((s) => taskDefinition(s.config.task.name).data.kind === 'file');
  // Columns the samples have: a label (a problem, a question), a target to mark outputs against, bits (Kolmogorov's prior).
  const labelled = samples.some((s) => s.label !== undefined);
  const withBits = samples.some((s) => s.bits > 0);
  const detailed = samples.some((s) => s.detail !== undefined && s.label === undefined);
  // Sorted again only when a best program changed, not on every batch of samples.
  const bestList = useMemo(() => Object.values(best).sort((a, b) => a.itemIndex - b.itemIndex).slice(0, 20), [best]);
  const bestBits = bestList.some((b) => b.bits > 0); // Kolmogorov's prior; other tasks have no bits
  return (
    <section className="panel samples" data-testid="samples">
      <h2>Latest programs</h2>
      <div className="table-scroll">
      <table data-testid="sample-table">
        <thead><tr><th>item</th><th>target</th><th>program</th><th>output</th>{(labelled || detailed) && <th>detail</th>}<th>outcome</th><th>reward</th>{withBits && <th>bits</th>}</tr></thead>
        <tbody>
          {samples.slice(0, 8).map((s, i) => (
            <tr key={i} className={`outcome-${s.outcome}`}>
              <td>{s.label ?? s.itemIndex}</td>
              <td>{s.target.length ? <Values values={s.target} /> : ''}</td>
              <td><pre>{s.program || '(incomplete)'}</pre></td>
              <td>{s.output ? <Values values={s.output} against={s.target} /> : ''}</td>
              {(labelled || detailed) && <td>{s.detail}</td>}
              <td>{s.outcome}</td>
              <td>{s.reward.toFixed(3)}</td>
              {withBits && <td>{s.bits.toFixed(1)}</td>}
            </tr>
          ))}
        </tbody>
      </table>
      </div>
      <Completions />
      {fixedItems && <h2>Best program per {itemName.replace(/s$/, '')}</h2>}
      {!fixedItems ? null : bestList.length === 0 ? <p className="hint">No correct program yet.</p> : (
        <table data-testid="best-table">
          <thead><tr><th>item</th><th>program</th>{bestBits && <th>bits</th>}<th>step</th></tr></thead>
          <tbody>{bestList.map((b) => <tr key={b.itemIndex}><td>{b.itemIndex}</td><td><pre>{b.program}</pre></td>{bestBits && <td>{b.bits.toFixed(1)}</td>}<td>{b.step}</td></tr>)}</tbody>
        </table>
      )}
    </section>
  );
}

/** One task's rows: the method, n, and each figure its task reports; Kolmogorov's also list gzip and LZMA of the same items. */
function TaskRows({ rows }: { rows: EvaluationRow[] }) {
  const names = [...new Set(rows.flatMap((r) => Object.keys(r.metrics)))].filter((name) => name !== 'gzip_rate' && name !== 'lzma_rate');
  const last = rows.at(-1)!;
  const docs = (taskNames().includes(last.task) ? taskDefinition(last.task).evaluationDocs : undefined) ?? {};
  const f = (v: number | undefined) => (v === undefined || !Number.isFinite(v) ? '' : v.toFixed(3));
  const compressors = (['gzip_rate', 'lzma_rate'] as const).filter((name) => last.metrics[name] !== undefined);
  return (
    <div className="table-scroll">
    <table data-testid={`evaluations-${last.task}`}>
      <thead><tr><th>method</th><th title="items scored">n</th>{names.map((name) => <th key={name} title={docs[name] ?? (/^solved@\d+$/.test(name) ? `the share solved within the first ${name.slice(7)} programs drawn` : undefined)}>{name.replace(/_/g, ' ')}</th>)}</tr></thead>
      <tbody>
        {rows.map((r, i) => <tr key={i}><td>{r.label}</td><td>{r.n}</td>{names.map((name) => <td key={name}>{f(r.metrics[name])}</td>)}</tr>)}
        {compressors.map((name) => (
          <tr key={name}><td>{name === 'gzip_rate' ? 'gzip' : 'LZMA'} (joint)</td><td>{last.n}</td>{names.map((column) => <td key={column}>{column === 'accuracy' ? '1.000' : column === 'compression_rate' ? f(last.metrics[name]) : ''}</td>)}</tr>
        ))}
      </tbody>
    </table>
    </div>
  );
}

export function EvaluationTable() {
  const all = useLab((s) => s.evaluations);
  if (all.length === 0) return null;
  const tasks = [...new Set(all.map((r) => r.task))];
  const withItems = all.filter((r) => r.items !== undefined).at(-1);
  return (
    <section className="panel" data-testid="evaluations">
      <h2>Held-out evaluation</h2>
      {tasks.map((task) => <TaskRows key={task} rows={all.filter((r) => r.task === task)} />)}
      {withItems && <EvaluatedItems key={withItems.label} items={withItems.items!} label={withItems.label} />}
    </section>
  );
}
