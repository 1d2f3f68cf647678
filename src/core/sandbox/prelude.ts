/**
 * Preludes: JavaScript a task runs before each program (the DSL functions). Compiling a whole
 * prelude in every fresh context costs more than running a typical program, so a prelude can
 * be modular: common helpers plus one part per global name, and a program gets only the parts
 * whose names appear in its source as words. A part must not depend on another part (only on
 * the common helpers), and every program still gets a fresh context.
 */
export interface ModularPrelude {
  common: string;
  parts: Record<string, string>;
}

export type Prelude = string | ModularPrelude;

/** The prelude text for one program. */
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
