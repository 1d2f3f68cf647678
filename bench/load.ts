/**
 * How busy the machine was while a figure was measured: the cores this process used (all its
 * threads, and its child processes) and the cores every other process used, from /proc/stat's busy time less our own
 * (as shared/bench/benchutil.py's LoadMonitor). On a shared 2-core machine a neighbour's job
 * halves a figure; the load says which figures to trust. Outside Linux it reports nulls.
 */
import { readdirSync, readFileSync } from 'node:fs';

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

/** CPU seconds of the live processes descended from `root` (its children's, theirs, ...), from /proc. */
function descendantSeconds(root: number): number {
  let entries: string[];
  try {
    entries = readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  } catch {
    return 0;
  }
  const parent = new Map<number, number>();
  const seconds = new Map<number, number>();
  for (const name of entries) {
    try {
      // Fields after the command (which may hold spaces) in parentheses: state ppid ... utime(14) stime(15).
      const fields = readFileSync(`/proc/${name}/stat`, 'utf8').split(') ')[1].split(' ');
      parent.set(Number(name), Number(fields[1]));
      seconds.set(Number(name), (Number(fields[11]) + Number(fields[12])) / ticksPerSecond);
    } catch {
      // the process ended meanwhile
    }
  }
  const descends = (pid: number): boolean => {
    for (let p = parent.get(pid), hops = 0; p !== undefined && hops < 64; p = parent.get(p), hops++) if (p === root) return true;
    return false;
  };
  let total = 0;
  for (const [pid, used] of seconds) if (descends(pid)) total += used;
  return total;
}

export interface Load {
  wall_s: number;
  own_cores: number;
  other_cores: number | null;
}

/**
 * Own CPU is this process's (all its threads) and its live child processes' (the page bench's
 * Chromium and vite preview); other is everything else the machine ran.
 */
export class LoadMonitor {
  private readonly started = performance.now();
  private readonly busy = busySeconds();
  private readonly own = process.cpuUsage();
  private readonly children = descendantSeconds(process.pid);

  /** The load since this monitor was made. */
  read(): Load {
    const wall = (performance.now() - this.started) / 1000;
    const used = process.cpuUsage(this.own);
    const own = (used.user + used.system) / 1e6 + Math.max(0, descendantSeconds(process.pid) - this.children);
    const busy = busySeconds();
    const round = (v: number) => Math.round(v * 1000) / 1000;
    return {
      wall_s: round(wall),
      own_cores: round(own / wall),
      other_cores: busy === null || this.busy === null ? null : round(Math.max(0, busy - this.busy - own) / wall),
    };
  }
}
