import { Component, type ErrorInfo, type ReactNode } from 'react';
import { reportError } from '../store';

interface Props {
  /** What the panel is, for the message ("Saved runs"). */
  name: string;
  children: ReactNode;
  /** What to draw instead (a run list's row draws a row with its Delete button); a short notice by default. */
  fallback?: (error: Error, retry: () => void) => ReactNode;
}

interface State {
  error: Error | null;
}

/**
 * One panel's failure stays that panel's (issue 29). Without a boundary, a throw while drawing
 * (an imported run whose `best` was a string made the run list call toFixed on it) unmounted the
 * whole page, and since the record stayed in IndexedDB every reload was blank too. Each panel of
 * the page sits in one of these, and each row of the run list too, so a record that cannot be
 * drawn still shows its Delete button. The error goes to the page's error list.
 */
export class PanelBoundary extends Component<Props, State> {
  override state: State = { error: null };

  static getDerivedStateFromError(error: unknown): State {
    return { error: error instanceof Error ? error : new Error(String(error)) };
  }

  override componentDidCatch(error: Error, _info: ErrorInfo): void {
    reportError(`${this.props.name} could not be drawn: ${error.message}`);
  }

  /** Draws the panel again (after the cause went away: a deleted record, another run). */
  retry = (): void => this.setState({ error: null });

  override render(): ReactNode {
    const { error } = this.state;
    if (!error) return this.props.children;
    if (this.props.fallback) return this.props.fallback(error, this.retry);
    return (
      <section className="panel panel-error" role="alert" data-testid="panel-error">
        <p>
          {this.props.name} could not be drawn ({error.message}); the rest of the lab works on.
        </p>
        <button onClick={this.retry}>Try again</button>
      </section>
    );
  }
}
