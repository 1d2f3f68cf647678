import { useRef, useState } from 'react';
import { configFields, configProblem, configToSearchParams, fieldApplies, parseConfig, withField, type LabConfig } from '../../core/config';
import { download } from '../download';
import { reportError, useLab } from '../store';
import { applyConfig } from '../trainer';

/** The page's fields: CLI-only ones (paths on disk) are never shown. */
const fields = configFields().filter((field) => !field.cliOnly);

/** The config form, generated from the one config schema; applying it re-creates the run and the URL hash. */
export function ConfigPanel() {
  const config = useLab((s) => s.config);
  // A new config from outside (a loaded checkpoint) resets the form's draft and its inputs.
  return <ConfigForm key={configToSearchParams(config, { page: true })} config={config} />;
}

function ConfigForm({ config }: { config: LabConfig }) {
  const phase = useLab((s) => s.phase);
  const [draft, setDraft] = useState<LabConfig>(config);
  const [fieldProblem, setProblem] = useState<string | null>(null);
  const importInput = useRef<HTMLInputElement>(null);
  // A field out of its range, or fields that disagree (heads must divide d_model): Apply waits.
  const problem = fieldProblem ?? configProblem(draft);
  const apply = async (next: LabConfig) => {
    setDraft(next);
    if (await applyConfig(next)) window.location.hash = configToSearchParams(next, { page: true });
  };
  const importJson = async (file: File) => {
    try {
      await apply(parseConfig(JSON.parse(await file.text()), { strict: true }));
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
          if (!problem) void apply(draft);
        }}
      >
        {fields.filter((field) => fieldApplies(field, draft)).map((field) => {
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
        <button type="button" onClick={() => importInput.current?.click()}>Import JSON</button>
        <input ref={importInput} type="file" accept=".json" hidden data-testid="config-import" onChange={(e) => e.target.files?.[0] && void importJson(e.target.files[0])} />
      </form>
    </section>
  );
}
