import { useEffect, useState } from 'react';
import { configFromSearchParams, configProblem, defaultConfig } from '../core/config';
import { Charts } from './components/Charts';
import { ConfigPanel } from './components/ConfigPanel';
import { Controls, loadCheckpointFile } from './components/Controls';
import { DatasetPanel } from './components/DatasetPanel';
import { Guide } from './components/Guide';
import { PanelBoundary } from './components/PanelBoundary';
import { InterruptedRun, Runs } from './components/Runs';
import { EvaluationTable, SampleInspector } from './components/Samples';
import { ErrorList, StatusBar } from './components/StatusBar';
import { reportError, useLab } from './store';
import { autosaveEnabled, importRunFile, requestPersistentStorage, saveHoldOpenMs } from './persistence';
import { isRunFileHead } from '../worker/runFile';
import { attempt, linkIsOurs, loadDatasetFile, startLab, trainer, writeLink } from './trainer';

/** The link's configuration, and whether it is one (an invalid link is the defaults, as no link is: the shipped policy loads). */
function configFromHash(): { config: ReturnType<typeof defaultConfig>; fromLink: boolean } {
  const text = window.location.hash.slice(1);
  try {
    const keys = [...new URLSearchParams(text).keys()];
    const twice = keys.find((key, i) => keys.indexOf(key) !== i);
    if (twice) throw new Error(`${twice} is given twice`);
    const config = configFromSearchParams(text);
    // Fields that disagree (heads must divide d_model) would leave the page with no run.
    const problem = configProblem(config);
    if (problem) throw new Error(problem);
    return { config, fromLink: text.length > 0 };
  } catch (error) {
    reportError(`the link's configuration is invalid (${(error as Error).message}); using the defaults`);
    // The address no longer holds it, so a reload does not say it again.
    window.history.replaceState(null, '', window.location.pathname + window.location.search);
    return { config: defaultConfig(), fromLink: false };
  }
}

/** Where a dropped dataset goes: the left half of the page is the training set, the right half the held-out set. */
export const dropRole = (clientX: number, width: number): 'train' | 'heldout' => (clientX > width / 2 ? 'heldout' : 'train');

/** Drop anywhere: a .prl file is a checkpoint, anything else a dataset, for training or held out by where it lands. */
function useDropAnywhere(setDragging: (value: 'train' | 'heldout' | null) => void) {
  useEffect(() => {
    const over = (e: DragEvent) => {
      e.preventDefault();
      setDragging(dropRole(e.clientX, window.innerWidth));
    };
    const leave = () => setDragging(null);
    const drop = (e: DragEvent) => {
      e.preventDefault();
      setDragging(null);
      const file = e.dataTransfer?.files[0];
      if (!file) return;
      const role = dropRole(e.clientX, window.innerWidth);
      if (file.name.endsWith('.prl') || file.name.endsWith('.safetensors')) void loadCheckpointFile(file, file.name);
      else if (file.name.endsWith('.run.json')) void importRunFile(file, file.name);
      // A browser renames a second download ("x.run (1).json"): a downloaded run is known by its first bytes too.
      else void file.slice(0, 64).text().then((head) => (isRunFileHead(head) ? importRunFile(file, file.name) : loadDatasetFile(role, file.name, file)));
    };
    window.addEventListener('dragover', over);
    window.addEventListener('dragleave', leave);
    window.addEventListener('drop', drop);
    return () => {
      window.removeEventListener('dragover', over);
      window.removeEventListener('dragleave', leave);
      window.removeEventListener('drop', drop);
    };
  }, [setDragging]);
}

/**
 * An address edited by hand (another configuration after the #) does not change the live run:
 * the page says so, and offers to open it (a reload, as a link opens) or to put the run's back.
 */
function useLinkEdits() {
  useEffect(() => {
    const changed = () => useLab.setState({ linkEdited: !linkIsOurs() });
    window.addEventListener('hashchange', changed);
    return () => window.removeEventListener('hashchange', changed);
  }, []);
}

function LinkNotice() {
  const edited = useLab((s) => s.linkEdited);
  const busy = useLab((s) => s.phase === 'training' || s.phase === 'pretraining' || s.phase === 'evaluating');
  if (!edited) return null;
  const open = () => {
    const { autosave, step } = useLab.getState();
    if (!autosave && step > 0 && !window.confirm(`Saving is off, so the live run (step ${step}) is kept nowhere: opening the link replaces it. Open it anyway?`)) return;
    window.location.reload();
  };
  return (
    <div className="link-notice" role="status" data-testid="link-notice">
      The address now holds another configuration than the live run's: it opens on a reload{busy ? ' (pause the run or let the evaluation end first; Saved runs keeps the run)' : ''}.{' '}
      <button onClick={open} disabled={busy}>Open the link</button>{' '}
      <button onClick={() => writeLink()}>Keep the run's</button>
    </div>
  );
}

/** Space pauses a run that trains (or pretrains) and resumes a paused one, unless a control has the focus. */
function useSpaceToPause() {
  useEffect(() => {
    const key = (e: KeyboardEvent) => {
      if (e.key !== ' ' || e.repeat || e.ctrlKey || e.metaKey || e.altKey) return;
      const target = e.target as HTMLElement | null;
      if (target?.closest('input, textarea, select, button, summary, a, [contenteditable]')) return;
      const { phase } = useLab.getState();
      if (phase === 'training' || phase === 'pretraining') void attempt('pause', () => trainer().pause());
      else if (phase === 'paused') void attempt('resume', () => trainer().resume());
      else return;
      e.preventDefault(); // not a page scroll
    };
    window.addEventListener('keydown', key);
    return () => window.removeEventListener('keydown', key);
  }, []);
}

export function App() {
  const [dragging, setDragging] = useState<'train' | 'heldout' | null>(null);
  const ready = useLab((s) => s.backend !== null);
  useDropAnywhere(setDragging);
  useSpaceToPause();
  useLinkEdits();
  useEffect(() => {
    // With saving on (the default) the worker opens the run store and offers back a run a reload interrupted.
    const autosave = autosaveEnabled();
    if (autosave) requestPersistentStorage();
    const { config, fromLink } = configFromHash();
    void startLab(config, fromLink, { autosave, saveHoldOpenMs: saveHoldOpenMs() });
  }, []);
  return (
    <div className={dragging ? 'lab dragging' : 'lab'}>
      <StatusBar />
      <ErrorList />
      <main>
        {/* Each panel in a boundary: one that cannot be drawn (a bad stored record) never takes the page down. */}
        <div className="left">
          <PanelBoundary name="The guide"><Guide /></PanelBoundary>
          <PanelBoundary name="The interrupted run"><InterruptedRun /></PanelBoundary>
          <PanelBoundary name="The edited link"><LinkNotice /></PanelBoundary>
          <PanelBoundary name="The controls"><Controls /></PanelBoundary>
          <PanelBoundary name="The charts"><Charts /></PanelBoundary>
          <PanelBoundary name="The evaluation table"><EvaluationTable /></PanelBoundary>
          <PanelBoundary name="The samples"><SampleInspector /></PanelBoundary>
        </div>
        <div className="right">
          <PanelBoundary name="The datasets"><DatasetPanel /></PanelBoundary>
          {ready && <PanelBoundary name="The configuration"><ConfigPanel /></PanelBoundary>}
          <PanelBoundary name="Saved runs"><Runs /></PanelBoundary>
        </div>
      </main>
      {dragging && (
        <div className="drop-hint">
          <div className={dragging === 'train' ? 'drop-zone active' : 'drop-zone'}>training set<small>a dataset dropped here trains the policy</small></div>
          <div className={dragging === 'heldout' ? 'drop-zone active' : 'drop-zone'}>held-out set<small>a dataset dropped here is only evaluated on</small></div>
          <p>a .prl checkpoint (or PyTorch weights, .safetensors) loads wherever it is dropped; a downloaded run (.run.json) joins Saved runs</p>
        </div>
      )}
    </div>
  );
}
