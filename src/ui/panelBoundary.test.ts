/**
 * The page's panels survive a record they cannot draw (issue 29): a panel's boundary turns a throw
 * while drawing into a notice (or, for a saved run's row, a row that still deletes it) and says it
 * in the error list; the run list draws what a bad or old record holds without throwing.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { createElement, isValidElement, type ReactElement } from 'react';
import { PanelBoundary } from './components/PanelBoundary';
import { bestText, timeText } from './components/Runs';
import { initialState, useLab } from './store';

beforeEach(() => useLab.setState(initialState()));

describe('a panel that cannot be drawn', () => {
  it('shows a notice with a retry in its place and says why in the error list, the children otherwise', () => {
    const child = createElement('p', null, 'fine');
    const boundary = new PanelBoundary({ name: 'Saved runs', children: child });
    expect(boundary.render()).toBe(child);
    const error = new TypeError('e.best.toFixed is not a function');
    boundary.state = PanelBoundary.getDerivedStateFromError(error);
    boundary.componentDidCatch(error, { componentStack: '' });
    const notice = boundary.render() as ReactElement<{ 'data-testid': string }>;
    expect(isValidElement(notice)).toBe(true);
    expect(notice.props['data-testid']).toBe('panel-error');
    expect(useLab.getState().errors).toEqual(['Saved runs could not be drawn: e.best.toFixed is not a function']);
    // A thrown non-Error is an Error by the time it is shown.
    expect(PanelBoundary.getDerivedStateFromError('boom').error).toBeInstanceOf(Error);
  });

  it('a saved run\'s row draws its own fallback (the row with Delete)', () => {
    const row = createElement('tr', null, 'broken');
    const boundary = new PanelBoundary({ name: 'The saved run x', children: null, fallback: () => row });
    boundary.state = { error: new Error('x') };
    expect(boundary.render()).toBe(row);
  });

  it('the run list shows a bad best or time as blank instead of throwing', () => {
    const format = new Intl.DateTimeFormat('en', { timeStyle: 'medium', timeZone: 'UTC' });
    expect(bestText(0.5)).toBe('0.500');
    for (const bad of ['oops', {}, null, undefined, Number.NaN, Infinity]) expect(bestText(bad)).toBe('');
    expect(timeText(format, 0)).toBe('12:00:00 AM');
    for (const bad of ['yesterday', Number.NaN, 1e20, {}]) expect(timeText(format, bad)).toBe('');
  });
});
