/**
 * How busy the machine was while a figure was measured: the cores this process used (all its
 * threads) and the cores every other process used, from /proc/stat's busy time less our own
 * (as shared/bench/benchutil.py's LoadMonitor). On a shared 2-core machine a neighbour's job
 * halves a figure; the load says which figures to trust. Outside Linux it reports nulls.
 */
import { readFileSync } from 'node:fs';

/** Clock ticks per second of /proc/stat (USER_HZ, 100 on every Linux build Node runs on). */
const ticksPerSecond = 100;

function busySeconds(): number | null {
  try {
    const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1, 9).map(Number);
    const idle = fields[3] + (fields[4] ?? 0);
    return (fields.reduce((sum, v) => sum + v, 0) - idle) / ticksPerSecond;
  } catch {
    return null;
  }
}

export interface Load {
  wall_s: number;
  own_cores: number;
  other_cores: number | null;
}

export class LoadMonitor {
  private readonly started = performance.now();
  private readonly busy = busySeconds();
  private readonly own = process.cpuUsage();

  /** The load since this monitor was made. */
  read(): Load {
    const wall = (performance.now() - this.started) / 1000;
    const used = process.cpuUsage(this.own);
    const own = (used.user + used.system) / 1e6;
    const busy = busySeconds();
    const round = (v: number) => Math.round(v * 1000) / 1000;
    return {
      wall_s: round(wall),
      own_cores: round(own / wall),
      other_cores: busy === null || this.busy === null ? null : round(Math.max(0, busy - this.busy - own) / wall),
    };
  }
}
