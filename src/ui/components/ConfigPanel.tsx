import { useState } from 'react';
import { configFields, parseConfig, withField, configToSearchParams, type LabConfig } from '../../core/config';
import { download } from '../download';
import { reportError, useLab } from '../store';
import { configure } from '../trainer';

const fields = configFields();

/** The config form, generated from the one config schema; applying it re-creates the run and the URL hash. */
export function ConfigPanel() {
  const config = useLab((s) => s.config);
  // A new config from outside (a loaded checkpoint) resets the form's draft and its inputs.
  return <ConfigForm key={configToSearchParams(config)} config={config} />;
}

function ConfigForm({ config }: { config: LabConfig }) {
  const phase = useLab((s) => s.phase);
  const [draft, setDraft] = useState<LabConfig>(config);
  const [problem, setProblem] = useState<string | null>(null);
  const apply = (next: LabConfig) => {
    window.location.hash = configToSearchParams(next);
    setDraft(next);
    void configure(next);
  };
  const importJson = async (file: File) => {
    try {
      apply(parseConfig(JSON.parse(await file.text()), { strict: true }));
    } catch (error) {
      reportError(`importing ${file.name}: ${(error as Error).message}`);
    }
  };
  let section = '';
  return (
    <section className="panel config" data-testid="config-panel">
      <h2>Configuration</h2>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          if (!problem) apply(draft);
        }}
      >
        {fields.map((field) => {
          const value = (draft[field.section] as Record<string, unknown>)[field.key];
          const header = field.section !== section ? <h3 key={`h-${field.section}`}>{(section = field.section)}</h3> : null;
          const onChange = (text: string) => {
            try {
              setDraft(withField(draft, field, text));
              setProblem(null);
            } catch (error) {
              setProblem((error as Error).message);
            }
          };
          return [
            header,
            <label key={field.flag} title={field.doc} className="field">
              <span>{field.flag}</span>
              {field.kind === 'enum' ? (
                <select value={String(value)} onChange={(e) => onChange(e.target.value)} data-testid={`field-${field.flag}`}>
                  {field.options!.map((option) => <option key={option}>{option}</option>)}
                </select>
              ) : field.kind === 'boolean' ? (
                <input type="checkbox" checked={Boolean(value)} onChange={(e) => onChange(String(e.target.checked))} data-testid={`field-${field.flag}`} />
              ) : (
                <input defaultValue={String(value)} onBlur={(e) => onChange(e.target.value)} data-testid={`field-${field.flag}`} />
              )}
              <small>{field.doc}</small>
            </label>,
          ];
        })}
        {problem && <p className="problem" role="alert">{problem}</p>}
        <button type="submit" disabled={phase === 'training' || phase === 'pretraining' || problem !== null}>Apply (new run)</button>
        <button type="button" onClick={() => download('config.json', JSON.stringify(config, null, 2), 'application/json')}>Export JSON</button>
        <label className="button">
          Import JSON <input type="file" accept=".json" hidden onChange={(e) => e.target.files?.[0] && void importJson(e.target.files[0])} />
        </label>
      </form>
    </section>
  );
}
