/**
 * The run's wall clock: it runs only while the run trains, so a pause, an evaluation while paused
 * or an idle page adds nothing, and a resumed run goes on from its time so far.
 */
import { describe, expect, it } from 'vitest';
import { WallClock } from './state';

describe('WallClock', () => {
  it('counts only the time between start and stop, once', () => {
    let t = 1000;
    const wall = new WallClock(() => t);
    expect(wall.now()).toBe(0);
    t += 500; // idle before Train: not counted
    wall.start();
    t += 300;
    expect(wall.now()).toBe(300);
    wall.start(); // a second start (Resume while running) changes nothing
    t += 200;
    wall.stop(); // Pause, after the step in flight
    expect(wall.now()).toBe(500);
    t += 10_000; // paused, an evaluation meanwhile: the clock stands
    expect(wall.now()).toBe(500);
    wall.stop(); // Stop after Pause: still 500, not 500 twice
    expect(wall.now()).toBe(500);
    wall.start();
    t += 100;
    expect(wall.now()).toBe(600);
  });

  it('resets to a resumed run\'s time, stopped', () => {
    let t = 0;
    const wall = new WallClock(() => t);
    wall.start();
    t += 50;
    wall.reset(8000);
    t += 1000;
    expect(wall.now()).toBe(8000);
    wall.start();
    t += 20;
    expect(wall.now()).toBe(8020);
  });
});
