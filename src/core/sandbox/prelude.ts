/**
 * Preludes: JavaScript a task runs before each program (the DSL functions). The sandbox
 * evaluates a prelude's full text once, into the snapshot every program starts from, so a
 * prelude costs nothing per program. A prelude can still be modular (common helpers plus one
 * part per global name); `preludeFor` gives the parts a program names, for hosts that compile
 * per program.
 */
export interface ModularPrelude {
  common: string;
  parts: Record<string, string>;
}

export type Prelude = string | ModularPrelude;

/** The whole prelude text: every part. */
export function fullPrelude(prelude: Prelude): string {
  if (typeof prelude === 'string') return prelude;
  return prelude.common + Object.values(prelude.parts).join('');
}

/** The prelude text for one program: the common helpers and the parts whose names it uses as words. */
export function preludeFor(prelude: Prelude, source: string): string {
  if (typeof prelude === 'string') return prelude;
  let text = prelude.common;
  const included = new Set<string>();
  for (const name of source.match(/[A-Za-z_$][\w$]*/g) ?? []) {
    if (included.has(name) || !Object.hasOwn(prelude.parts, name)) continue;
    included.add(name);
    text += prelude.parts[name];
  }
  return text;
}
