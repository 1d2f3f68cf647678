import { useLab } from '../store';
import { attempt, trainer } from '../trainer';

export function StatusBar() {
  const phase = useLab((s) => s.phase);
  const message = useLab((s) => s.message);
  const backend = useLab((s) => s.backend);
  const step = useLab((s) => s.step);
  const stepsPerSecond = useLab((s) => s.stepsPerSecond);
  const progress = useLab((s) => s.progress);
  const checkpointNote = useLab((s) => s.checkpointNote);
  const weights = useLab((s) => s.weights);
  const rlSteps = weights ? step - weights.atStep : 0;
  return (
    <header className="status">
      <h1>Program RL Lab</h1>
      <span className={`phase phase-${phase}`} data-testid="phase">{phase}</span>
      <span data-testid="status-message">{message}</span>
      <span data-testid="backend" title={[...(backend?.notes ?? []), ...(backend?.skipped ?? [])].join('\n')}>
        backend: <b>{backend?.backend ?? '…'}</b>
        {backend?.updateThreads ? <span data-testid="update-threads">{`, updates on ${backend.updateThreads} thread${backend.updateThreads === 1 ? '' : 's'}`}</span> : null}
      </span>
      <span data-testid="step">step {step}</span>
      <span data-testid="steps-per-second">{stepsPerSecond ? `${stepsPerSecond.toFixed(2)} steps/s` : ''}</span>
      {weights && (
        <span className="weights" data-testid="weights" title="Where the policy's weights come from; a new configuration of the same model keeps them">
          weights: {weights.origin}{rlSteps > 0 ? ` + ${rlSteps} RL step${rlSteps > 1 ? 's' : ''}` : ''}
        </span>
      )}
      {checkpointNote && <span className="checkpoint-note" data-testid="checkpoint-note" title="What happened to the default checkpoint when the page opened">at start: {checkpointNote}</span>}
      {progress && (
        <span className="progress" data-testid="progress">
          {progress.task} <progress max={progress.total || 1} value={progress.done} aria-label={progress.task} />
          {/* An evaluation's items (the warm start's text has its steps; a file's progress is in bytes, the bar says it). */}
          {phase === 'evaluating' && progress.total > 0 && <span className="hint" data-testid="progress-count"> {progress.done} of {progress.total}</span>}
          {(phase === 'evaluating' || phase === 'loading') && (
            <button className="progress-cancel" onClick={() => void attempt('cancel', () => trainer().cancel())}>Cancel</button>
          )}
          {phase === 'pretraining' && (
            <button className="progress-cancel" title="Ends the warm start here; RL starts from its weights so far" onClick={() => void attempt('stop', () => trainer().stop())}>Stop here</button>
          )}
        </span>
      )}
      {backend && backend.skipped.length > 0 && (
        <details className="skipped">
          <summary>why not a faster backend?</summary>
          <ul data-testid="backend-skipped">{backend.skipped.map((reason) => <li key={reason}>{reason}</li>)}</ul>
        </details>
      )}
    </header>
  );
}

export function ErrorList() {
  const errors = useLab((s) => s.errors);
  if (errors.length === 0) return null;
  return (
    <section className="errors" role="alert" data-testid="errors">
      {errors.map((error, i) => <p key={i}>{error}</p>)}
      <button onClick={() => useLab.setState({ errors: [] })}>dismiss</button>
    </section>
  );
}
