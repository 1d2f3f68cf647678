import { useEffect, useState } from 'react';
import { configFromSearchParams, defaultConfig } from '../core/config';
import { Charts } from './components/Charts';
import { ConfigPanel } from './components/ConfigPanel';
import { Controls, loadCheckpointFile } from './components/Controls';
import { DatasetPanel } from './components/DatasetPanel';
import { EvaluationTable, SampleInspector } from './components/Samples';
import { ErrorList, StatusBar } from './components/StatusBar';
import { reportError, useLab } from './store';
import { loadDatasetFile, startLab } from './trainer';

function configFromHash() {
  try {
    return configFromSearchParams(window.location.hash.slice(1));
  } catch (error) {
    reportError(`the link's configuration is invalid (${(error as Error).message}); using the defaults`);
    return defaultConfig();
  }
}

/** Drop anywhere: a .prl file is a checkpoint, anything else a JSONL dataset. */
function useDropAnywhere(setDragging: (value: boolean) => void) {
  useEffect(() => {
    const over = (e: DragEvent) => {
      e.preventDefault();
      setDragging(true);
    };
    const leave = () => setDragging(false);
    const drop = (e: DragEvent) => {
      e.preventDefault();
      setDragging(false);
      const file = e.dataTransfer?.files[0];
      if (!file) return;
      if (file.name.endsWith('.prl')) void loadCheckpointFile(file, file.name);
      else void loadDatasetFile('train', file.name, file);
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

export function App() {
  const [dragging, setDragging] = useState(false);
  const ready = useLab((s) => s.backend !== null);
  useDropAnywhere(setDragging);
  useEffect(() => {
    void startLab(configFromHash(), window.location.hash.length > 1);
  }, []);
  return (
    <div className={dragging ? 'lab dragging' : 'lab'}>
      <StatusBar />
      <ErrorList />
      <main>
        <div className="left">
          <Controls />
          <Charts />
          <EvaluationTable />
          <SampleInspector />
        </div>
        <div className="right">
          <DatasetPanel />
          {ready && <ConfigPanel />}
        </div>
      </main>
      {dragging && <div className="drop-hint">Drop a JSONL dataset or a .prl checkpoint</div>}
    </div>
  );
}
