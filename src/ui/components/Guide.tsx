import { useState } from 'react';
import { useLab } from '../store';

/** Remembered in the browser once the guide is dismissed: it shows on a first visit only. */
export const GUIDE_KEY = 'program-rl-lab.guide-dismissed';

/** What each task asks of the policy, in a sentence a newcomer can read. */
const taskLines: Record<string, string> = {
  kolmogorov: 'The policy writes the shortest program (in a small list DSL) that prints each integer sequence; shorter correct programs earn more.',
  functions: 'The policy writes a JavaScript function from a docstring and test cases; it earns the share of tests its function passes.',
  sum_digits: 'The policy answers "what is the sum of the digits of n?" in text ending in [ANSWER] n; a right answer earns +1, a wrong one -1.',
  reverse_digits: 'The policy answers "reverse the digits of n" in text ending in [ANSWER] n; a right answer earns +1, a wrong one -1.',
};

// The shipped policies are already trained: from them the curves move little in a few minutes (README's
// measurements); fresh weights, or a digit task, show learning from the start.
const watchLines: Record<string, string> = {
  kolmogorov: 'reward, accuracy and the compression rate (Evaluate held-out compares it with gzip and LZMA). From the shipped policy, which starts trained, they move little in minutes; to watch the policy learn from nothing, Apply with start from: fresh weights, or try sum_digits',
  functions: 'solved and tests passed (Evaluate held-out lists each problem with its function and the tests it passes). From the shipped policy, which starts trained, they move little in minutes; sum_digits learns from a warm start in about a minute',
  sum_digits: 'accuracy and format compliance rise; held-out accuracy is measured greedily every few hundred steps',
  reverse_digits: 'accuracy and format compliance rise; held-out accuracy is measured greedily every few hundred steps',
};

function dismissed(): boolean {
  try {
    return window.localStorage.getItem(GUIDE_KEY) === '1';
  } catch {
    return false; // storage blocked: show the guide, it can still be closed for this visit
  }
}

/** The first-run guide: what the task is, what Train does, what to watch. Dismissed once, gone for good. */
export function Guide() {
  const [open, setOpen] = useState(() => !dismissed());
  const task = useLab((s) => s.config.task.name);
  if (!open) return null;
  const close = () => {
    try {
      window.localStorage.setItem(GUIDE_KEY, '1');
    } catch {
      // storage blocked: closed for this visit only
    }
    setOpen(false);
  };
  return (
    <section className="guide" data-testid="guide" aria-label="Getting started">
      <h2>Getting started</h2>
      <p>
        A small transformer policy learns by reinforcement learning to write programs. Every program it writes runs in a
        QuickJS sandbox, and what it prints is scored into its reward. Task <b>{task}</b>: {taskLines[task]}
      </p>
      <ol>
        <li><b>Train</b> samples a batch of programs, runs them, and updates the policy toward the better ones, step after step. <b>Space</b> pauses and resumes.</li>
        <li>Watch the charts: {watchLines[task]}. Hover a chart to read a point.</li>
        <li><b>Evaluate held-out</b> scores data the policy never trained on; drop your own file on the page (left half: train on it, right half: evaluate on it).</li>
        <li><b>Download checkpoint</b> saves the run as one file; drop it back to resume. Change the task or the settings on the right.</li>
      </ol>
      <button onClick={close}>Got it</button>
    </section>
  );
}
