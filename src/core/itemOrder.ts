/**
 * The order in which a run visits its training items: a seeded permutation per epoch, a cursor
 * into it (both saved in checkpoints, so a resume continues the same order), and, for a task
 * with a curriculum, a pool of the easiest items that widens whenever a step's success rate
 * reaches the task's threshold (items come ordered easiest first).
 */
import { Rng } from './rng';

export interface Curriculum {
  start: number;
  widenAt: number;
  step: number;
}

export class ItemOrder {
  epoch = 0;
  cursor = 0;
  /** Items sampled from: the first `pool` (all without a curriculum). */
  pool: number;
  private order: number[];

  constructor(private readonly count: number, private readonly seed: number, readonly curriculum?: Curriculum) {
    this.pool = curriculum ? Math.min(count, curriculum.start) : count;
    this.order = this.permutation();
  }

  private permutation(): number[] {
    return new Rng(this.seed + this.epoch).shuffle(Array.from({ length: this.pool }, (_, i) => i));
  }

  /** The next `count` item indices, passing into the next epoch when this one ends. */
  next(count: number): number[] {
    const picked: number[] = [];
    while (picked.length < count) {
      if (this.cursor >= this.order.length) {
        this.epoch += 1;
        this.cursor = 0;
        this.order = this.permutation();
      }
      picked.push(this.order[this.cursor++]);
    }
    return picked;
  }

  /** After a step: a curriculum widens its pool (a new pass over it) when the step did well enough. */
  observe(successRate: number): void {
    const { curriculum } = this;
    if (!curriculum || this.pool >= this.count || successRate < curriculum.widenAt) return;
    this.pool = Math.min(this.count, this.pool + curriculum.step);
    this.epoch += 1;
    this.cursor = 0;
    this.order = this.permutation();
  }

  /** Where a checkpoint left it. */
  restore(state: { epoch: number; cursor: number }, pool?: number): void {
    if (this.curriculum && Number.isInteger(pool)) this.pool = Math.max(1, Math.min(this.count, pool!));
    this.epoch = state.epoch;
    this.cursor = state.cursor;
    this.order = this.permutation();
  }
}
