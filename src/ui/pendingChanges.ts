/**
 * What the configuration form says that the live run does not: the page's fields whose draft
 * value differs, as "task kolmogorov -> functions". Train runs the live run until Apply makes the
 * draft the run, and a newcomer who picked an algorithm and pressed Train trained the old one
 * without a word; the form lists these beside Apply.
 */
import { configFields, type ConfigField, type LabConfig } from '../core/config';

/** The page's fields: CLI-only ones (paths on disk) are never shown, nor compared. */
export const pageFields = configFields().filter((field) => !field.cliOnly);
/** A field's value in a config. */
export const valueOf = (config: LabConfig, field: ConfigField) => (config[field.section] as Record<string, unknown>)[field.key];

export function pendingChanges(live: LabConfig, draft: LabConfig, shown = 4): string[] {
  const said = (field: ConfigField) => `${field.flag} ${String(valueOf(live, field))} -> ${String(valueOf(draft, field))}`;
  const differing = pageFields.filter((field) => JSON.stringify(valueOf(live, field)) !== JSON.stringify(valueOf(draft, field)));
  // A new task or algorithm brings its own defaults: those follow from it and are not listed one by one.
  const chosen = differing.filter((field) => field.section === 'task' && field.key === 'name').concat(differing.filter((field) => field.section === 'algorithm' && field.key === 'name'));
  if (chosen.length) return chosen.map(said).concat(differing.length > chosen.length ? [`with ${differing.length - chosen.length} more settings of its own`] : []);
  const listed = differing.slice(0, shown).map(said);
  return differing.length > shown ? [...listed, `${differing.length - shown} more`] : listed;
}
