import type { ChangeEvent } from 'react';

/**
 * An `<input type="file">` change handler: the picked file goes to `use` and the input is
 * cleared, so it never shows the name of a file that was refused or since replaced (the page
 * says what is loaded), and picking the same file again (fixed on disk) reads it again.
 */
export const onFilePicked = (use: (file: File) => unknown) => (event: ChangeEvent<HTMLInputElement>) => {
  const file = event.target.files?.[0];
  event.target.value = '';
  if (file) void use(file);
};
