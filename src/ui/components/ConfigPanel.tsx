import { useEffect, useRef, useState } from 'react';
import { onFilePicked } from '../filePicked';
import { configProblem, configToSearchParams, fieldApplies, parseConfig, sectionSchemas, withField, type ConfigField, type LabConfig, type SectionName } from '../../core/config';
import { withDqnBatchEdit } from '../../core/digits/definition';
import { download } from '../download';
import { reportError, useLab } from '../store';
import type { RunStart } from '../../worker/protocol';
import { applyConfig, writeLink } from '../trainer';
import { pageFields, pendingChanges, valueOf } from '../pendingChanges';

const sections = Object.keys(sectionSchemas) as SectionName[];

/** The few fields a newcomer changes first, shown above the rest (those are under Advanced). */
const essential = new Set([
  'task.name', 'algorithm.name', 'algorithm.learningRate', 'algorithm.batchSize', 'algorithm.groupSize', 'algorithm.klCoef',
  'model.layers', 'model.dModel', 'model.heads', 'run.seed', 'run.maxSteps', 'run.timeLimit',
  'digits.numSteps', 'digits.numGenerators', 'functions.rewardType',
]);

/** One field: its flag, its input, and its doc as a tooltip. */
function Field({ field, draft, setDraft, setProblem, generation }: { field: ConfigField; draft: LabConfig; setDraft: (next: LabConfig) => void; setProblem: (flag: string, problem: string | null) => void; generation: number }) {
  const value = valueOf(draft, field);
  const onChange = (text: string) => {
    try {
      // Picking a task or an algorithm brings its own defaults for the fields not set (dpo's beta);
      // dqn's batch fields on a digit task follow the batch size, as in the CLI.
      setDraft(withDqnBatchEdit(draft, withField(draft, field, text)));
      setProblem(field.flag, null);
    } catch (error) {
      setProblem(field.flag, (error as Error).message);
    }
  };
  const testId = `field-${field.flag}`;
  // A value the draft takes from elsewhere (another task's defaults) is written into the input, or
  // a submit would read the old text back (a switch to sum_digits applied the functions task's
  // context); not while the input has focus, whose text is the user's. A new config (`generation`:
  // applied, or a loaded checkpoint's) is written whatever has focus. The input is kept, not made
  // again, so focus stays in it when Enter applies it.
  const input = useRef<HTMLInputElement>(null);
  const seen = useRef(generation);
  useEffect(() => {
    const element = input.current;
    const reset = seen.current !== generation;
    seen.current = generation;
    if (element && element.value !== String(value) && (reset || element !== document.activeElement)) element.value = String(value);
  }, [value, generation]);
  return (
    <label title={field.doc} className="field">
      <span>{field.flag}</span>
      {field.kind === 'enum' ? (
        <select value={String(value)} onChange={(e) => onChange(e.target.value)} data-testid={testId} aria-label={field.flag}>
          {field.options!.map((option) => <option key={option}>{option}</option>)}
        </select>
      ) : field.kind === 'boolean' ? (
        <input type="checkbox" checked={Boolean(value)} onChange={(e) => onChange(String(e.target.checked))} data-testid={testId} aria-label={field.flag} />
      ) : (
        <input
          ref={input}
          defaultValue={String(value)}
          onBlur={(e) => onChange(e.target.value)}
          // Enter submits even while Apply is disabled by this field's problem: the submit reads the fixed value.
          onKeyDown={(e) => {
            if (e.key !== 'Enter') return;
            e.preventDefault();
            e.currentTarget.form?.requestSubmit();
          }}
          data-testid={testId}
          data-flag={field.flag}
          // The flag alone names it (the label around a select also holds its options' text).
          aria-label={field.flag}
        />
      )}
    </label>
  );
}

/** The config form, generated from the one config schema; applying it re-creates the run and the URL hash. */
export function ConfigPanel() {
  const config = useLab((s) => s.config);
  return <ConfigForm config={config} />;
}

function ConfigForm({ config }: { config: LabConfig }) {
  const phase = useLab((s) => s.phase);
  const [draft, setDraft] = useState<LabConfig>(config);
  // Each field's own problem, so that fixing one field does not hide another's.
  const [fieldProblems, setFieldProblems] = useState<Record<string, string>>({});
  const [start, setStart] = useState<RunStart>('carry');
  // A new config (applied, or from outside: a loaded checkpoint) resets the draft, its problems and
  // the start, while the form stays: focus stays where it was (on Apply, or in the field where Enter
  // applied) and Advanced stays open. Each field's text is then the new config's (Field's effect).
  const applied = configToSearchParams(config, { page: true });
  const [shownFor, setShownFor] = useState(applied);
  const [generation, setGeneration] = useState(0);
  if (shownFor !== applied) {
    setShownFor(applied);
    setGeneration(generation + 1);
    setDraft(config);
    setFieldProblems({});
    setStart('carry');
  }
  const setProblem = (flag: string, message: string | null) =>
    setFieldProblems((now) => {
      const { [flag]: _, ...rest } = now;
      return message === null ? rest : { ...rest, [flag]: message };
    });
  // A field the form no longer shows (dpo's beta after switching to reinforce) holds nothing back.
  const fieldProblem = Object.entries(fieldProblems).find(([flag]) => pageFields.some((f) => f.flag === flag && fieldApplies(f, draft)))?.[1] ?? null;
  const importInput = useRef<HTMLInputElement>(null);
  // A field out of its range, or fields that disagree (heads must divide d_model): Apply waits.
  const problem = fieldProblem ?? configProblem(draft);
  const apply = async (next: LabConfig) => {
    setDraft(next);
    // The link says the run made, which may differ from the draft: another task's shipped policy brings its own model.
    if (await applyConfig(next, start)) writeLink();
  };
  const importJson = async (file: File) => {
    try {
      await apply(parseConfig(JSON.parse(await file.text()), { strict: true }));
    } catch (error) {
      reportError(`importing ${file.name}: ${(error as Error).message}`);
    }
  };
  const shown = pageFields.filter((field) => fieldApplies(field, draft));
  const field = (f: ConfigField) => <Field key={f.flag} field={f} draft={draft} setDraft={setDraft} setProblem={setProblem} generation={generation} />;
  const advanced = shown.filter((f) => !essential.has(`${f.section}.${f.key}`));
  const pending = pendingChanges(config, draft);
  return (
    <section className="panel config" data-testid="config-panel">
      <h2>Configuration</h2>
      <p className="hint">Hover a field for what it does. Apply makes a new run from the start you pick: the current weights (when the model stays the same), the warm start, or fresh weights. max-steps and time-limit are its budgets.</p>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          // A text field commits on blur: Enter in one submits before that, so every text field's
          // value as shown is read again here, and what is applied is what the form shows.
          let next = draft;
          for (const input of e.currentTarget.querySelectorAll<HTMLInputElement>('input[data-flag]')) {
            const f = shown.find((candidate) => candidate.flag === input.dataset.flag);
            // Only what the user typed: a field the typed ones moved (dqn's batch fields following the batch size) still shows the draft's value.
            if (!f || input.value === String(valueOf(draft, f))) continue;
            try {
              next = withDqnBatchEdit(next, withField(next, f, input.value));
            } catch (error) {
              setProblem(f.flag, (error as Error).message);
              return;
            }
          }
          // Every text field read as valid: no field's problem stands (a select cannot hold a bad value).
          setFieldProblems({});
          if (next !== draft) setDraft(next);
          if (!configProblem(next)) void apply(next);
        }}
      >
        <div className="essential" data-testid="config-essential">{shown.filter((f) => essential.has(`${f.section}.${f.key}`)).map(field)}</div>
        <details className="advanced" data-testid="config-advanced">
          <summary>Advanced ({advanced.length} more)</summary>
          {sections.map((section) => {
            const inSection = advanced.filter((f) => f.section === section);
            return inSection.length ? (
              <fieldset key={section}>
                <legend>{section}</legend>
                {inSection.map(field)}
              </fieldset>
            ) : null;
          })}
        </details>
        <label title="Where the new run's weights come from: the live run's (when the model is the same), the warm start the live run began from (the same start, to compare algorithms or settings fairly), or fresh random weights">
          start from{' '}
          <select value={start} onChange={(e) => setStart(e.target.value as RunStart)} data-testid="run-start">
            <option value="carry">the current weights</option>
            <option value="warm">the warm start</option>
            <option value="fresh">fresh weights</option>
          </select>
        </label>
        <button type="submit" className={pending.length ? 'primary' : undefined} disabled={phase === 'training' || phase === 'pretraining' || problem !== null}>Apply (new run)</button>
        <button type="button" onClick={() => download('config.json', JSON.stringify(config, null, 2), 'application/json')}>Export JSON</button>
        <button type="button" onClick={() => importInput.current?.click()}>Import JSON</button>
        <input ref={importInput} type="file" accept=".json" hidden data-testid="config-import" onChange={onFilePicked(importJson)} />
        {/* Below the buttons: a field saved as the mouse goes down on Apply shows these, and shown
            above they moved Apply from under the pointer before the click. */}
        {problem && <p className="problem" role="alert">{problem}</p>}
        {pending.length > 0 && (
          <p className="pending" data-testid="config-pending">
            Not applied yet: {pending.join(', ')}. Train goes on with the current run until you press Apply.
          </p>
        )}
      </form>
    </section>
  );
}
